#include <kfvm_Backends.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedCoupledSystem.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_GhostedBlocks.hpp"

#include <utility>

namespace kfvm {

template <class ExecSpace>
DistributedCoupledSystem<ExecSpace>::DistributedCoupledSystem(
    const CartesianGrid& grid, const Decomposition& decomposition, MPI_Comm comm,
    int numVariables, GpuAwareMpi mode)
    : decomposition_(decomposition),
      comm_(comm),
      numVariables_(numVariables),
      halo_(decomposition, comm, mode, 1, numVariables),
      mesh_(Details::ghostedGrid(grid, decomposition, halo_.layout(), halo_.rank())) {
  require(grid.dimension() == decomposition.dimension() &&
              grid.cellCounts() == decomposition.cells(),
          "distributed coupled system: the decomposition is of ",
          decomposition.cells()[0], " x ", decomposition.cells()[1], " x ",
          decomposition.cells()[2], " cells, the grid has ", grid.cells(0), " x ",
          grid.cells(1), " x ", grid.cells(2));
}

template <class ExecSpace>
bool DistributedCoupledSystem<ExecSpace>::isPhysical(Patch patch) const {
  return Details::isPhysicalPatch(decomposition_, halo_.rank(), patch);
}

template <class ExecSpace>
std::vector<long long> DistributedCoupledSystem<ExecSpace>::localGlobalIds() const {
  return Details::localGlobalIds(decomposition_, halo_.layout(), halo_.rank());
}

template <class ExecSpace>
void DistributedCoupledSystem<ExecSpace>::setSystem(
    const CoupledSystem<ExecSpace>& system,
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(system.mesh().id() == mesh_.id(),
          "distributed coupled system: the system must be on localMesh()");
  require(system.numVariables() == numVariables_, "distributed coupled system: a system ",
          "of ", system.numVariables(), " variables, this one exchanges ", numVariables_);
  require(solver != nullptr && !solver->takesGhostColumns(),
          "distributed coupled system: the solver must be a native one (kfvm's Krylov "
          "methods), got ",
          solver ? solver->name() : std::string("none"));
  for (int v = 0; v < numVariables_; ++v)
    for (int p = 0; p < 2 * decomposition_.dimension(); ++p) {
      const Patch patch = static_cast<Patch>(p);
      require(isPhysical(patch) || !system.boundaryConditions(v).isSet(patch),
              "distributed coupled system: patch '", patchName(patch), "' of rank ",
              halo_.rank(), " faces another rank; only physical patches take boundary ",
              "conditions (variable ", v, ")");
    }
  operator_.reset();
  stepper_ = std::make_unique<CoupledStepper<ExecSpace>>(system, std::move(solver));
  operator_ = std::make_unique<DistributedOperator<ExecSpace>>(
      halo_, comm_, stepper_->system().matrix(), numVariables_);
  stepper_->distributeOver(this);
}

template <class ExecSpace>
CoupledStepper<ExecSpace>& DistributedCoupledSystem<ExecSpace>::stepper() {
  require(stepper_ != nullptr, "distributed coupled system: setSystem() first");
  return *stepper_;
}

template <class ExecSpace>
void DistributedCoupledSystem<ExecSpace>::setSweeps(int maxSweeps, Real tolerance) {
  stepper().setSweeps(maxSweeps, tolerance);
}

template <class ExecSpace>
const LinearOperator<ExecSpace>& DistributedCoupledSystem<ExecSpace>::linearOperator()
    const {
  require(operator_ != nullptr, "distributed coupled system: setSystem() first");
  return *operator_;
}

template <class ExecSpace>
std::function<void(double*, int)> DistributedCoupledSystem<ExecSpace>::maxOverRanks()
    const {
  return Details::maxOverRanks(comm_, halo_.rank());
}

template <class ExecSpace>
SolverReport DistributedCoupledSystem<ExecSpace>::solve(LinearSolver<ExecSpace>& solver,
                                                        const Vector<ExecSpace>& b,
                                                        const Vector<ExecSpace>& x) {
  return Details::solveAcrossRanks(
      comm_, solver, *operator_, b, x,
      [this](const Vector<ExecSpace>& v) { halo_.exchange(v); });
}

template <class ExecSpace>
StepReport DistributedCoupledSystem<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields, Real dt, TimeScheme scheme) {
  return stepper().step(fields, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedCoupledSystem<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return stepper().solveSteady(fields);
}

#define KFVM_INSTANTIATE_DISTRIBUTED_COUPLED(Space) \
  template class DistributedCoupledSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_COUPLED)

}  // namespace kfvm
