// What a deck's run across MPI ranks needs whatever its mesh: the number of ranks,
// reductions over them, explicit steps within every rank's stable limit.
#include "kfvm_AcrossRanks.hpp"

#include <kfvm_Error.hpp>

#include <mpi.h>

namespace kfvm::app {

StepReport stepExplicitAcrossRanks(ExplicitStepper<DeckSpace>* stepper,
                                   CellField<DeckSpace>& phi, double dt,
                                   const std::string& scheme) {
  require(stepper != nullptr, "deck: no explicit scheme in [time]");
  double negative = -double(stepper->stableTimeStep());
  reduceOverRanks(&negative, 1, true);
  return stepExplicitly(*stepper, phi, dt, scheme, Real(-negative));
}

void reduceOverRanks(double* values, int count, bool max) {
  const int status = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE,
                                   max ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
  require(status == MPI_SUCCESS, "kfvm run: MPI_Allreduce failed");
}

int mpiWorldSize() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return 1;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace kfvm::app
