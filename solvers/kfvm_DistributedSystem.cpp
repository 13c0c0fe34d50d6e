#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_WrappedVertices.hpp>

#include "detail/kfvm_GhostedBlocks.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

/// The global grid's vertices of the rank's ghosted block; along a periodic axis the
/// ghosts beyond an end are the cells at the other end, moved by the grid's length.
CartesianGrid ghostedGrid(const CartesianGrid& grid, const Decomposition& decomposition,
                          const GhostedBlock& layout, int rank) {
  const auto block = decomposition.block(rank);
  std::vector<double> vertices[3];
  for (int a = 0; a < grid.dimension(); ++a)
    vertices[a] = wrappedVertices(grid.vertices(a), block.first[a] - layout.lower[a],
                                  layout.extent[a]);
  return CartesianGrid::fromVertices(vertices[0], vertices[1], vertices[2]);
}

std::vector<long long> localGlobalIds(const Decomposition& decomposition,
                                      const GhostedBlock& layout, int rank) {
  const auto first = decomposition.block(rank).first;
  const auto& cells = decomposition.cells();
  std::vector<long long> ids(std::size_t(layout.size()));
  const auto wrap = [&](int index, int a) {  // a periodic axis' ghosts wrap around
    return (index % cells[a] + cells[a]) % cells[a];
  };
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i)
        ids[std::size_t(layout.index(i, j, k))] =
            wrap(first[0] + i, 0) +
            (long long)cells[0] *
                (wrap(first[1] + j, 1) + (long long)cells[1] * wrap(first[2] + k, 2));
  return ids;
}

bool isPhysicalPatch(const Decomposition& decomposition, int rank, Patch patch) {
  const int axis = int(patch) / 2, side = int(patch) % 2;
  require(axis < decomposition.dimension(), "distributed system: patch '",
          patchName(patch), "' is not a side of a ", decomposition.dimension(), "D grid");
  return decomposition.neighbour(rank, axis, side) < 0;
}

std::function<void(double*, int)> maxOverRanks(MPI_Comm comm, int rank) {
  return [comm, rank](double* values, int count) {
    const int status =
        MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, comm);
    require(status == MPI_SUCCESS, "distributed system: MPI_Allreduce failed on rank ",
            rank);
  };
}

/// The owned rows' values: entry e is entry sources(e) of the local matrix.
template <class ExecSpace>
struct CopyOwnedEntries {
  DeviceView<const Offset*, ExecSpace> sources;
  DeviceView<const Real*, ExecSpace> all;
  DeviceView<Real*, ExecSpace> owned;
  KOKKOS_FUNCTION void operator()(Ordinal e) const { owned(e) = all(sources(e)); }
};

/// to(r) = from(cells(r)) when gathering owned entries, to(cells(r)) = from(r) otherwise.
template <class ExecSpace>
struct OwnedEntries {
  DeviceView<const Ordinal*, ExecSpace> cells;
  Vector<ExecSpace> from, to;
  bool gather;
  KOKKOS_FUNCTION void operator()(Ordinal r) const {
    if (gather)
      to(r) = from(cells(r));
    else
      to(cells(r)) = from(r);
  }
};

/// Local indices of the owned cells of a ghosted block, x fastest.
std::vector<Ordinal> ownedCells(const GhostedBlock& layout) {
  std::vector<Ordinal> cells;
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i) cells.push_back(layout.index(i, j, k));
  return cells;
}

}  // namespace Details

template <class ExecSpace>
DistributedSystem<ExecSpace>::DistributedSystem(const CartesianGrid& grid,
                                                const Decomposition& decomposition,
                                                MPI_Comm comm, GpuAwareMpi mode,
                                                int ghostLayers)
    : grid_(grid),
      decomposition_(decomposition),
      comm_(comm),
      mode_(mode),
      halo_(decomposition, comm, mode, ghostLayers),
      gridDistribution_(grid_, halo_),
      ghostLayers_(ghostLayers),
      mesh_(Details::ghostedGrid(grid, decomposition, halo_.layout(), halo_.rank())) {
  require(grid.dimension() == decomposition.dimension() &&
              grid.cellCounts() == decomposition.cells(),
          "distributed system: the decomposition is of ", decomposition.cells()[0], " x ",
          decomposition.cells()[1], " x ", decomposition.cells()[2],
          " cells, the grid has ", grid.cells(0), " x ", grid.cells(1), " x ",
          grid.cells(2));
  ownedCells_ = copyToDevice<Ordinal, ExecSpace>(Details::ownedCells(halo_.layout()),
                                                 "kfvm::DistributedSystem::ownedCells");
  const Ordinal owned = Ordinal(ownedCells_.extent(0));
  ownedRhs_ = Vector<ExecSpace>("kfvm::DistributedSystem::ownedRhs", owned);
  ownedX_ = Vector<ExecSpace>("kfvm::DistributedSystem::ownedX", owned);
  setSolver("cg", 1e-10, 10000);
}

template <class ExecSpace>
bool DistributedSystem<ExecSpace>::isPhysical(Patch patch) const {
  return Details::isPhysicalPatch(decomposition_, halo_.rank(), patch);
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setEquation(const Equation<ExecSpace>& equation) {
  require(equation.mesh().id() == mesh_.id(),
          "distributed system: the equation must be on localMesh()");
  for (int p = 0; p < 2 * decomposition_.dimension(); ++p) {
    const Patch patch = static_cast<Patch>(p);
    require(isPhysical(patch) || !equation.boundaryConditions().isSet(patch),
            "distributed system: patch '", patchName(patch), "' of rank ", halo_.rank(),
            " faces another rank; only physical patches take boundary conditions");
  }
  const bool reachesTwoCells =
      equation.hasHigherOrder() ||
      (equation.hasConvection() && isTvd(equation.convectionScheme()));
  require(!reachesTwoCells || ghostLayers_ >= 2,
          "distributed system: TVD convection and the fourth-order term reach two cells "
          "away; construct the system with 2 ghost layers, not ",
          ghostLayers_);
  // The solver goes from the stepper of the last equation (if any) to the new one.
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  coupledStepper_.reset();
  stepper_ = std::make_unique<ImplicitStepper<ExecSpace>>(equation, std::move(solver_));
  stepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ = std::make_unique<DistributedOperator<ExecSpace>>(halo_, comm_,
                                                               stepper_->assembler());
  stepper_->distributeOver(this);
  if (matrixFree_) setMatrixFree(true);  // the stencil of the new equation
  // The owned rows: the owned cells' rows of the local matrix, with columns renumbered
  // owned cells first, in row order, then ghosts (what Tpetra and Ifpack2 expect of a
  // column map), and sorted again within each row.
  const auto& A = stepper_->assembler().matrix();
  const auto offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.rowOffsets());
  const auto columns =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.columns());
  const std::vector<Ordinal> owned = Details::ownedCells(halo_.layout());
  columnCells_ = owned;
  for (Ordinal cell = 0; cell < mesh_.numCells(); ++cell)
    if (!halo_.layout().isOwned(cell)) columnCells_.push_back(cell);
  std::vector<Ordinal> columnOf(columnCells_.size());
  for (std::size_t c = 0; c < columnCells_.size(); ++c)
    columnOf[std::size_t(columnCells_[c])] = Ordinal(c);
  std::vector<Offset> ownedOffsets = {0}, sources;
  std::vector<Ordinal> ownedColumns;
  std::vector<std::pair<Ordinal, Offset>> row;
  for (const Ordinal cell : owned) {
    row.clear();
    for (Offset e = offsets(cell); e < offsets(cell + 1); ++e)
      row.emplace_back(columnOf[std::size_t(columns(e))], e);
    std::sort(row.begin(), row.end());
    for (const auto& [column, source] : row) {
      ownedColumns.push_back(column);
      sources.push_back(source);
    }
    ownedOffsets.push_back(ownedColumns.size());
  }
  ownedRows_ = CrsMatrix<ExecSpace>(
      "kfvm::DistributedSystem::ownedRows", Ordinal(owned.size()), mesh_.numCells(),
      copyToDevice<Offset, ExecSpace>(ownedOffsets,
                                      "kfvm::DistributedSystem::ownedOffsets"),
      copyToDevice<Ordinal, ExecSpace>(ownedColumns,
                                       "kfvm::DistributedSystem::ownedColumns"));
  entrySources_ =
      copyToDevice<Offset, ExecSpace>(sources, "kfvm::DistributedSystem::entrySources");
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSystem(
    const CoupledSystem<ExecSpace>& system,
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(system.mesh().id() == mesh_.id(),
          "distributed system: the coupled system must be on localMesh()");
  require(solver != nullptr && !solver->takesGhostColumns(),
          "distributed system: a coupled system's solver must be a native one (kfvm's "
          "Krylov methods), got ",
          solver ? solver->name() : std::string("none"));
  const int n = system.numVariables();
  for (int v = 0; v < n; ++v)
    for (int p = 0; p < 2 * decomposition_.dimension(); ++p) {
      const Patch patch = static_cast<Patch>(p);
      require(isPhysical(patch) || !system.boundaryConditions(v).isSet(patch),
              "distributed system: patch '", patchName(patch), "' of rank ", halo_.rank(),
              " faces another rank; only physical patches take boundary conditions ",
              "(variable ", v, ")");
    }
  if (!blockHalo_ || blockHalo_->components() != n)
    blockHalo_ = std::make_unique<HaloExchange<ExecSpace>>(decomposition_, comm_, mode_,
                                                           ghostLayers_, n);
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  stepper_.reset();
  matrixFree_ = false;
  coupledStepper_ =
      std::make_unique<CoupledStepper<ExecSpace>>(system, std::move(solver));
  if (sweepsGiven_) coupledStepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ = std::make_unique<DistributedOperator<ExecSpace>>(
      *blockHalo_, comm_, coupledStepper_->system().matrix(), n);
  coupledStepper_->distributeOver(this);
}

template <class ExecSpace>
const CrsMatrix<ExecSpace>& DistributedSystem<ExecSpace>::ownedRows() {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  const auto& A = stepper_->assembler().matrix();
  forEachIndex("kfvm::DistributedSystem::ownedRowValues", ExecSpace(),
               Ordinal(entrySources_.extent(0)),
               Details::CopyOwnedEntries<ExecSpace>{entrySources_, A.values(),
                                                    ownedRows_.values()});
  return ownedRows_;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::localGlobalIds() const {
  return Details::localGlobalIds(decomposition_, halo_.layout(), halo_.rank());
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::columnGlobalIds() const {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  const auto all = localGlobalIds();
  std::vector<long long> ids;
  for (const Ordinal cell : columnCells_) ids.push_back(all[std::size_t(cell)]);
  return ids;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::ownedGlobalIds() const {
  const auto all = localGlobalIds();
  std::vector<long long> ids;
  for (const Ordinal cell : Details::ownedCells(halo_.layout()))
    ids.push_back(all[std::size_t(cell)]);
  return ids;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSolver(const std::string& name, double tolerance,
                                             int maxIterations) {
  require(tolerance > 0 && tolerance < 1,
          "distributed system: tolerance must be in (0, 1), got ", tolerance);
  require(maxIterations >= 1, "distributed system: maxIterations must be >= 1, got ",
          maxIterations);
  Parameters parameters;
  parameters.set("tolerance", tolerance).set("max_iterations", maxIterations);
  setSolver(makeLinearSolver<ExecSpace>(name, parameters));
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setMatrixFree(bool on) {
  require(stepper_ != nullptr,
          "distributed system: setEquation() before setMatrixFree()");
  operator_->setMatrixFree(on);  // refuses the fourth-order term
  try {
    stepper_->setMatrixFree(on);  // refuses a solver that needs the matrix
  } catch (...) {
    operator_->setMatrixFree(matrixFree_);
    throw;
  }
  matrixFree_ = on;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSweeps(int maxSweeps, double tolerance) {
  require(maxSweeps >= 1, "distributed system: maxSweeps must be at least 1, got ",
          maxSweeps);
  require(std::isfinite(tolerance) && tolerance > 0,
          "distributed system: sweep tolerance must be positive and finite, got ",
          tolerance);
  maxSweeps_ = maxSweeps;
  sweepTolerance_ = tolerance;
  sweepsGiven_ = true;
  if (stepper_) stepper_->setSweeps(maxSweeps, Real(tolerance));
  if (coupledStepper_) coupledStepper_->setSweeps(maxSweeps, Real(tolerance));
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "distributed system: the solver is null");
  require(!coupledStepper_ || !solver->takesGhostColumns(),
          "distributed system: a coupled system's solver must be a native one (kfvm's "
          "Krylov methods), got ",
          solver->name());
  if (coupledStepper_)
    coupledStepper_->setSolver(std::move(solver));
  else if (stepper_)
    stepper_->setSolver(std::move(solver));
  else
    solver_ = std::move(solver);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solveOwnedRows(LinearSolver<ExecSpace>& solver,
                                                          const Vector<ExecSpace>& b,
                                                          const Vector<ExecSpace>& x) {
  const Ordinal owned = Ordinal(ownedCells_.extent(0));
  const auto entries = [&](const Vector<ExecSpace>& from, const Vector<ExecSpace>& to,
                           bool gather) {
    forEachIndex(gather ? "kfvm::DistributedSystem::gatherOwned"
                        : "kfvm::DistributedSystem::scatterOwned",
                 ExecSpace(), owned,
                 Details::OwnedEntries<ExecSpace>{ownedCells_, from, to, gather});
  };
  entries(b, ownedRhs_, true);
  entries(x, ownedX_, true);
  solver.setMatrix(ownedRows());  // the same structure: a refill after the first
  SolverReport report = solver.solve(ownedRhs_, ownedX_);
  entries(ownedX_, x, false);
  return report;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::exchange(const Vector<ExecSpace>& x) {
  if (coupledStepper_)
    blockHalo_->exchange(x);
  else
    halo_.exchange(x);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solve(LinearSolver<ExecSpace>& solver,
                                                 const Vector<ExecSpace>& b,
                                                 const Vector<ExecSpace>& x) {
  const auto exchange = [this](const Vector<ExecSpace>& v) {
    this->exchange(v);
  };
  if (coupledStepper_)
    return Details::solveAcrossRanks(comm_, solver, *operator_, b, x, exchange);
  if (!solver.takesGhostColumns()) {
    // What "mg" coarsens: the equation on this rank's block, and how the grid is split.
    solver.setDiscretization({&stepper_->assembler(), nullptr, &gridDistribution_});
    return Details::solveAcrossRanks(comm_, solver, *operator_, b, x, exchange);
  }
  SolverReport report = solveOwnedRows(solver, b, x);
  exchange(x);
  return report;
}

template <class ExecSpace>
const LinearOperator<ExecSpace>& DistributedSystem<ExecSpace>::linearOperator() const {
  require(operator_ != nullptr, "distributed system: setEquation() or setSystem() first");
  return *operator_;
}

template <class ExecSpace>
double DistributedSystem<ExecSpace>::dot(const Vector<ExecSpace>& x,
                                         const Vector<ExecSpace>& y) const {
  return linearOperator().space().dot(x, y);
}

template <class ExecSpace>
std::function<void(double*, int)> DistributedSystem<ExecSpace>::maxOverRanks() const {
  return Details::maxOverRanks(comm_, halo_.rank());
}

template <class ExecSpace>
ImplicitStepper<ExecSpace>& DistributedSystem<ExecSpace>::stepper() {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  return *stepper_;
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                              TimeScheme scheme) {
  require(std::isfinite(dt) && dt > 0,
          "distributed system: dt must be positive and finite, got ", dt);
  phi.requireOn(mesh_, "distributed unknown");
  return stepper().step(phi, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  phi.requireOn(mesh_, "distributed unknown");
  return stepper().solveSteady(phi);
}

template <class ExecSpace>
CoupledStepper<ExecSpace>& DistributedSystem<ExecSpace>::coupledStepper() {
  require(coupledStepper_ != nullptr, "distributed system: setSystem() first");
  return *coupledStepper_;
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::step(std::vector<CellField<ExecSpace>>& fields,
                                              Real dt, TimeScheme scheme) {
  return coupledStepper().step(fields, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return coupledStepper().solveSteady(fields);
}

#define KFVM_INSTANTIATE_DISTRIBUTED(Space) template class DistributedSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED)

}  // namespace kfvm
