#include <kfvm_Backends.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedCoupledMeshSystem.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_GhostedBlocks.hpp"

#include <string>
#include <utility>

namespace kfvm {

namespace Details {

inline int checkedVariables(int numVariables) {
  require(numVariables >= 2 && numVariables <= maxCoupledVariables,
          "distributed coupled mesh system: a coupled system has 2 to ",
          maxCoupledVariables, " variables, got ", numVariables);
  return numVariables;
}

}  // namespace Details

template <class ExecSpace>
DistributedCoupledMeshSystem<ExecSpace>::DistributedCoupledMeshSystem(
    const MeshTopology& topology, MPI_Comm comm, int numVariables, PartitionMethod method,
    GpuAwareMpi mode)
    : comm_(comm),
      numVariables_(Details::checkedVariables(numVariables)),
      parts_(topology, comm, 1, method, mode),
      halo_(parts_.part(), comm, mode, numVariables) {}

template <class ExecSpace>
void DistributedCoupledMeshSystem<ExecSpace>::setSystem(
    const CoupledSystem<ExecSpace>& system,
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(system.mesh().id() == localMesh().id(),
          "distributed coupled mesh system: the system must be on localMesh()");
  require(system.numVariables() == numVariables_,
          "distributed coupled mesh system: a system of ", system.numVariables(),
          " variables, this one exchanges ", numVariables_);
  require(solver != nullptr && !solver->takesGhostColumns(),
          "distributed coupled mesh system: the solver must be a native one (kfvm's "
          "Krylov methods), got ",
          solver ? solver->name() : std::string("none"));
  for (int v = 0; v < numVariables_; ++v)
    require(!system.boundaryConditions(v).isSet(MeshPart::cutPatch),
            "distributed coupled mesh system: patch '", MeshPart::cutPatch,
            "' is where this rank's part ends; it takes no boundary condition (variable ",
            v, ")");
  operator_.reset();
  stepper_ = std::make_unique<CoupledStepper<ExecSpace>>(system, std::move(solver));
  operator_ = std::make_unique<DistributedMeshOperator<ExecSpace>>(
      halo_, stepper_->system().matrix());
  stepper_->distributeOver(this);
}

template <class ExecSpace>
CoupledStepper<ExecSpace>& DistributedCoupledMeshSystem<ExecSpace>::stepper() {
  require(stepper_ != nullptr, "distributed coupled mesh system: setSystem() first");
  return *stepper_;
}

template <class ExecSpace>
void DistributedCoupledMeshSystem<ExecSpace>::setSweeps(int maxSweeps, Real tolerance) {
  stepper().setSweeps(maxSweeps, tolerance);
}

template <class ExecSpace>
const LinearOperator<ExecSpace>& DistributedCoupledMeshSystem<ExecSpace>::linearOperator()
    const {
  require(operator_ != nullptr, "distributed coupled mesh system: setSystem() first");
  return *operator_;
}

template <class ExecSpace>
SolverReport DistributedCoupledMeshSystem<ExecSpace>::solve(
    LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
    const Vector<ExecSpace>& x) {
  return Details::solveAcrossRanks(
      comm_, solver, *operator_, b, x,
      [this](const Vector<ExecSpace>& v) { halo_.exchange(v); });
}

template <class ExecSpace>
StepReport DistributedCoupledMeshSystem<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields, Real dt, TimeScheme scheme) {
  return stepper().step(fields, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedCoupledMeshSystem<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return stepper().solveSteady(fields);
}

#define KFVM_INSTANTIATE_DISTRIBUTED_COUPLED_MESH(Space) \
  template class DistributedCoupledMeshSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_COUPLED_MESH)

}  // namespace kfvm
