// What a deck's run across MPI ranks needs whatever its mesh: the deck's problem on
// this rank's cells, the number of ranks, reductions over them.
#include "kfvm_AcrossRanks.hpp"

#include "kfvm_DeckSetup.hpp"
#include "kfvm_Log.hpp"

#include <kfvm_Error.hpp>

#include <mpi.h>

#include <utility>

namespace kfvm::app {

int ghostLayersOf(const Deck& deck) {
  if (deck.isCoupled()) return 1;
  const bool tvd = deck.hasConvection && isTvd(convectionSchemeFromName(deck.scheme));
  const bool explicitTvd = deck.hasExplicitConvection && deck.explicitScheme != "upwind";
  const bool corrected = !deck.isCartesian() && !deck.diffusionCorrection.empty() &&
                         deck.diffusionCorrection != "none";
  return deck.hasHigherOrder || tvd || explicitTvd || corrected ? 2 : 1;
}

DistributedDeckProblem::DistributedDeckProblem(
    const Deck& deck, std::unique_ptr<DistributedSystem<DeckSpace>> system)
    : system_(std::move(system)) {
  const Mesh<DeckSpace>& mesh = system_->localMesh();
  const auto isPhysical = [this](Patch p) {
    return system_->isPhysical(p);
  };
  const auto solver = [&deck] {
    return makeLinearSolver<DeckSpace>(deck.solver, deck.solverParameters);
  };
  if (deck.isCoupled()) {
    CoupledSystem<DeckSpace> part(mesh, deck.numVariables());
    buildCoupledSystem(deck, part, isPhysical);
    system_->setSystem(part, solver());
    system_->setSweeps(deck.maxSweeps, deck.sweepTolerance);
    return;
  }
  equation_ = std::make_unique<Equation<DeckSpace>>(mesh);
  buildEquation(deck, mesh, cellCentres(deck, mesh), *equation_, isPhysical);
  system_->setEquation(*equation_);
  system_->setSolver(solver());
  system_->stepper().setSweeps(deck.maxSweeps, Real(deck.sweepTolerance),
                               Real(deck.relaxation));
  if (deck.matrixFree) system_->setMatrixFree(true);  // grids only (validateDeck)
  if (deck.hasExplicitSteps()) {
    explicit_ = std::make_unique<ExplicitStepper<DeckSpace>>(*equation_);
    explicit_->setGhostExchange([this](const Vector<DeckSpace>& values) {
      system_->partition().exchange(values);
    });
  }
}

StepReport DistributedDeckProblem::step(std::vector<CellField<DeckSpace>>& fields,
                                        double dt, TimeScheme scheme) {
  if (equation_) return system_->step(fields[0], Real(dt), scheme);
  return system_->step(fields, Real(dt), scheme);
}

StepReport DistributedDeckProblem::solveSteady() {
  if (equation_) return system_->solveSteady(fields_[0]);
  return system_->solveSteady(fields_);
}

StepReport DistributedDeckProblem::stepExplicit(double dt, const std::string& scheme) {
  require(explicit_ != nullptr, "deck: no explicit scheme in [time] (or a coupled deck)");
  double negative = -double(explicit_->stableTimeStep());
  reduceOverRanks(&negative, 1, true);
  return stepExplicitly(*explicit_, fields_[0], dt, scheme, Real(-negative));
}

std::pair<int, int> startRunAcrossRanks(const RunOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  log::setLevel(options.quiet || rank != 0 ? log::Level::Quiet
                : options.verbose          ? log::Level::Verbose
                                           : log::Level::Normal);
  return {rank, size};
}

CheckpointState readWholeCheckpoint(const std::string& path,
                                    const std::vector<long long>& globalIds,
                                    std::vector<CellField<DeckSpace>>& fields) {
  CheckpointState state = readCheckpoint(path, &globalIds);
  require(state.values.size() == fields.size(), "checkpoint '", path, "' holds ",
          state.values.size(), " variables, the deck ", fields.size());
  for (std::size_t v = 0; v < fields.size(); ++v) fields[v].fromHost(state.values[v]);
  state.values.clear();
  return state;
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
