#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

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

}  // namespace Details

template <class ExecSpace>
DistributedSystem<ExecSpace>::DistributedSystem(
    std::unique_ptr<Partition<ExecSpace>> partition)
    : partition_(std::move(partition)) {
  require(partition_ != nullptr, "distributed system: the partition is null");
  const auto& owned = partition_->ownedCells();
  ownedCells_ =
      copyToDevice<Ordinal, ExecSpace>(owned, "kfvm::DistributedSystem::ownedCells");
  ownedRhs_ =
      Vector<ExecSpace>("kfvm::DistributedSystem::ownedRhs", Ordinal(owned.size()));
  ownedX_ = Vector<ExecSpace>("kfvm::DistributedSystem::ownedX", Ordinal(owned.size()));
  // Columns of the owned rows: the owned cells in row order, then the ghosts.
  columnCells_ = owned;
  for (Ordinal cell = 0; cell < localMesh().numCells(); ++cell)
    if (!partition_->isOwned(cell)) columnCells_.push_back(cell);
  setSolver("cg", 1e-10, 10000);
}

template <class ExecSpace>
DistributedSystem<ExecSpace>::DistributedSystem(const CartesianGrid& grid,
                                                const Decomposition& decomposition,
                                                MPI_Comm comm, GpuAwareMpi mode,
                                                int ghostLayers)
    : DistributedSystem(std::make_unique<GridBlocks<ExecSpace>>(grid, decomposition, comm,
                                                                mode, ghostLayers)) {}

template <class ExecSpace>
DistributedSystem<ExecSpace>::DistributedSystem(const MeshTopology& topology,
                                                MPI_Comm comm, int ghostLayers,
                                                PartitionMethod method, GpuAwareMpi mode)
    : DistributedSystem(std::make_unique<MeshParts<ExecSpace>>(
          topology, comm, ghostLayers, method, mode)) {}

template <class ExecSpace>
GridBlocks<ExecSpace>& DistributedSystem<ExecSpace>::gridBlocks() const {
  auto* blocks = dynamic_cast<GridBlocks<ExecSpace>*>(partition_.get());
  require(blocks != nullptr,
          "distributed system: its partition is a general mesh's parts, not grid blocks");
  return *blocks;
}

template <class ExecSpace>
MeshParts<ExecSpace>& DistributedSystem<ExecSpace>::meshParts() const {
  auto* parts = dynamic_cast<MeshParts<ExecSpace>*>(partition_.get());
  require(parts != nullptr,
          "distributed system: its partition is a grid's blocks, not a mesh's parts");
  return *parts;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::exchangeGhosts(const CellField<ExecSpace>& field) {
  field.requireOn(localMesh(), "exchanged");
  partition_->exchange(field.values());
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setEquation(const Equation<ExecSpace>& equation) {
  require(equation.mesh().id() == localMesh().id(),
          "distributed system: the equation must be on localMesh()");
  partition_->checkConditions(equation.boundaryConditions(), -1);
  partition_->checkReach(equation);
  // The solver goes from the stepper of the last equation (if any) to the new one.
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  coupledStepper_.reset();
  stepper_ = std::make_unique<ImplicitStepper<ExecSpace>>(equation, std::move(solver_));
  stepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ = partition_->rowsOf(stepper_->assembler());
  components_ = 1;
  stepper_->distributeOver(this);
  if (matrixFree_) setMatrixFree(true);  // the stencil of the new equation
  ownedRowsBuilt_ = false;  // built by the first ownedRows(): Trilinos' path only
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSystem(
    const CoupledSystem<ExecSpace>& system,
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(system.mesh().id() == localMesh().id(),
          "distributed system: the coupled system must be on localMesh()");
  require(solver != nullptr && !solver->takesGhostColumns(),
          "distributed system: a coupled system's solver must be a native one (kfvm's "
          "Krylov methods), got ",
          solver ? solver->name() : std::string("none"));
  const int n = system.numVariables();
  for (int v = 0; v < n; ++v)
    partition_->checkConditions(system.boundaryConditions(v), v);
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  stepper_.reset();
  matrixFree_ = false;
  coupledStepper_ =
      std::make_unique<CoupledStepper<ExecSpace>>(system, std::move(solver));
  if (sweepsGiven_) coupledStepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ = partition_->rowsOf(coupledStepper_->system().matrix(), n);
  components_ = n;
  coupledStepper_->distributeOver(this);
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::buildOwnedRows() {
  // The owned rows: the owned cells' rows of the local matrix, with columns renumbered
  // owned cells first, in row order, then ghosts (what Tpetra and Ifpack2 expect of a
  // column map), and sorted again within each row.
  const auto& A = stepper_->assembler().matrix();
  const auto offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.rowOffsets());
  const auto columns =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.columns());
  const std::vector<Ordinal>& owned = partition_->ownedCells();
  const Ordinal cells = localMesh().numCells();
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
      "kfvm::DistributedSystem::ownedRows", Ordinal(owned.size()), cells,
      copyToDevice<Offset, ExecSpace>(ownedOffsets,
                                      "kfvm::DistributedSystem::ownedOffsets"),
      copyToDevice<Ordinal, ExecSpace>(ownedColumns,
                                       "kfvm::DistributedSystem::ownedColumns"));
  entrySources_ =
      copyToDevice<Offset, ExecSpace>(sources, "kfvm::DistributedSystem::entrySources");
  ownedRowsBuilt_ = true;
}

template <class ExecSpace>
const CrsMatrix<ExecSpace>& DistributedSystem<ExecSpace>::ownedRows() {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  if (!ownedRowsBuilt_) buildOwnedRows();
  const auto& A = stepper_->assembler().matrix();
  forEachIndex("kfvm::DistributedSystem::ownedRowValues", ExecSpace(),
               Ordinal(entrySources_.extent(0)),
               Details::CopyOwnedEntries<ExecSpace>{entrySources_, A.values(),
                                                    ownedRows_.values()});
  return ownedRows_;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::columnGlobalIds() const {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  const auto& all = localGlobalIds();
  std::vector<long long> ids;
  for (const Ordinal cell : columnCells_) ids.push_back(all[std::size_t(cell)]);
  return ids;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::ownedGlobalIds() const {
  const auto& all = localGlobalIds();
  std::vector<long long> ids;
  for (const Ordinal cell : partition_->ownedCells())
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
void DistributedSystem<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "distributed system: the solver is null");
  require(!solver->takesGhostColumns() || partition_->gridDistribution() != nullptr,
          "distributed system: solver '", solver->name(),
          "' takes ghost columns (a Trilinos solver); general meshes across ranks take "
          "kfvm's own solvers");
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
void DistributedSystem<ExecSpace>::setMatrixFree(bool on) {
  require(stepper_ != nullptr,
          "distributed system: setEquation() before setMatrixFree()");
  partition_->setMatrixFree(*operator_, on);  // refuses the fourth-order term
  try {
    stepper_->setMatrixFree(on);  // refuses a solver that needs the matrix
  } catch (...) {
    partition_->setMatrixFree(*operator_, matrixFree_);
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
  partition_->exchange(x, components_);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solve(LinearSolver<ExecSpace>& solver,
                                                 const Vector<ExecSpace>& b,
                                                 const Vector<ExecSpace>& x) {
  SolverReport report;
  if (solver.takesGhostColumns()) {
    report = solveOwnedRows(solver, b, x);
  } else {
    // What "mg" coarsens: the equation on this rank's block, and how the grid is split.
    if (stepper_)
      solver.setDiscretization(
          {&stepper_->assembler(), nullptr, partition_->gridDistribution()});
    // The preconditioner's setup (an ILU pivot) may fail on some ranks only: then it
    // fails on every rank, before the solve's first reduction.
    Details::agreeOnFailure(partition_->communicator(),
                            Details::failureOf([&] { solver.setOperator(*operator_); }),
                            "distributed solve");
    report = solver.solve(b, x);
    report.solver = "distributed " + report.solver;
  }
  exchange(x);  // the ghosts of the answer from their owners
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
  const MPI_Comm comm = partition_->communicator();
  const int rank = partition_->rank();
  return [comm, rank](double* values, int count) {
    const int status =
        MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, comm);
    require(status == MPI_SUCCESS, "distributed system: MPI_Allreduce failed on rank ",
            rank);
  };
}

template <class ExecSpace>
std::vector<Real> DistributedSystem<ExecSpace>::gather(const CellField<ExecSpace>& phi,
                                                       int root) const {
  phi.requireOn(localMesh(), "gathered");
  const MPI_Comm comm = partition_->communicator();
  const int rank = partition_->rank();
  int size = 0;
  MPI_Comm_size(comm, &size);
  require(root >= 0 && root < size, "distributed system: root ", root, " is not one of ",
          size, " ranks");
  const auto check = [rank](int status, const char* what) {
    require(status == MPI_SUCCESS, "distributed system: ", what, " failed on rank ",
            rank);
  };
  const auto values = phi.toHost();
  const auto& cells = partition_->ownedCells();
  std::vector<long long> mineIds;
  std::vector<Real> mine;
  for (const Ordinal cell : cells) {
    mineIds.push_back(localGlobalIds()[std::size_t(cell)]);
    mine.push_back(values[std::size_t(cell)]);
  }
  const int owned = int(cells.size());
  std::vector<int> counts(std::size_t(size), 0), offsets(std::size_t(size) + 1, 0);
  check(MPI_Gather(&owned, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm),
        "MPI_Gather");
  for (int r = 0; r < size; ++r)
    offsets[std::size_t(r) + 1] = offsets[std::size_t(r)] + counts[std::size_t(r)];
  std::vector<long long> ids(rank == root ? std::size_t(offsets.back()) : 0);
  std::vector<Real> gathered(ids.size());
  const MPI_Datatype type = std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
  check(MPI_Gatherv(mineIds.data(), owned, MPI_LONG_LONG, ids.data(), counts.data(),
                    offsets.data(), MPI_LONG_LONG, root, comm),
        "MPI_Gatherv");
  check(MPI_Gatherv(mine.data(), owned, type, gathered.data(), counts.data(),
                    offsets.data(), type, root, comm),
        "MPI_Gatherv");
  std::vector<Real> global(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) global[std::size_t(ids[k])] = gathered[k];
  return global;
}

template <class ExecSpace>
ImplicitStepper<ExecSpace>& DistributedSystem<ExecSpace>::stepper() {
  require(stepper_ != nullptr, "distributed system: setEquation() first");
  return *stepper_;
}

template <class ExecSpace>
CoupledStepper<ExecSpace>& DistributedSystem<ExecSpace>::coupledStepper() {
  require(coupledStepper_ != nullptr, "distributed system: setSystem() first");
  return *coupledStepper_;
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                              TimeScheme scheme) {
  require(std::isfinite(dt) && dt > 0,
          "distributed system: dt must be positive and finite, got ", dt);
  phi.requireOn(localMesh(), "distributed unknown");
  return stepper().step(phi, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedSystem<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  phi.requireOn(localMesh(), "distributed unknown");
  return stepper().solveSteady(phi);
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
