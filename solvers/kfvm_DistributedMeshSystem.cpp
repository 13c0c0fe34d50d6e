#include <kfvm_Backends.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedMeshSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_MatrixOperator.hpp>

#include "detail/kfvm_GhostedBlocks.hpp"
#include "detail/kfvm_StructureVersions.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

namespace kfvm {

namespace Details {

/// y(row) = A(row, :) x for the owned rows 0 .. owned - 1.
template <class ExecSpace>
struct OwnedRowsProduct {
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal row) const {
    y(row) = rowProduct(columns, values, x, offsets(row), offsets(row + 1));
  }
};

/// owned(c) = 1 for c < owned, 0 for the ghosts after them.
template <class ExecSpace>
struct FirstCellsOwned {
  Vector<ExecSpace> mask;
  Ordinal owned;
  KOKKOS_FUNCTION void operator()(Ordinal c) const { mask(c) = c < owned ? 1 : 0; }
};

/// Rows of the part's vectors (the halo's components per cell): the owned cells' first.
template <class ExecSpace>
VectorSpace<ExecSpace> partSpace(const MeshHaloExchange<ExecSpace>& halo) {
  const Ordinal local = halo.localCells() * halo.components(),
                owned = halo.ownedCells() * halo.components();
  Vector<ExecSpace> mask("kfvm::DistributedMeshOperator::owned", local);
  forEachIndex("kfvm::DistributedMeshOperator::ownedMask", ExecSpace(), local,
               FirstCellsOwned<ExecSpace>{mask, owned});
  std::vector<Ordinal> ghosts;
  for (Ordinal c = owned; c < local; ++c) ghosts.push_back(c);
  const MPI_Comm comm = halo.communicator();
  const int rank = halo.rank();
  return VectorSpace<ExecSpace>(
      mask,
      copyToDevice<Ordinal, ExecSpace>(ghosts, "kfvm::DistributedMeshOperator::ghosts"),
      [comm, rank](double* values, int count) {
        const int status =
            MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
        require(status == MPI_SUCCESS,
                "distributed mesh operator: MPI_Allreduce failed on rank ", rank);
      });
}

/// halo, when it exchanges one value per cell (an equation's); kfvm::Error otherwise.
template <class ExecSpace>
MeshHaloExchange<ExecSpace>& scalarHalo(MeshHaloExchange<ExecSpace>& halo) {
  require(halo.components() == 1, "distributed mesh operator: an equation's matrix over ",
          "a halo of ", halo.components(), " values per cell");
  return halo;
}

int commSize(MPI_Comm comm) {
  int size = 0;
  require(MPI_Comm_size(comm, &size) == MPI_SUCCESS,
          "distributed mesh system: MPI_Comm_size failed");
  return size;
}

int commRank(MPI_Comm comm) {
  int rank = 0;
  require(MPI_Comm_rank(comm, &rank) == MPI_SUCCESS,
          "distributed mesh system: MPI_Comm_rank failed");
  return rank;
}

}  // namespace Details

template <class ExecSpace>
DistributedMeshOperator<ExecSpace>::DistributedMeshOperator(
    MeshHaloExchange<ExecSpace>& halo, const Assembler<ExecSpace>& assembler)
    : DistributedMeshOperator(Details::scalarHalo(halo), assembler.matrix()) {
  assembler_ = &assembler;
}

template <class ExecSpace>
DistributedMeshOperator<ExecSpace>::DistributedMeshOperator(
    MeshHaloExchange<ExecSpace>& halo, const CrsMatrix<ExecSpace>& matrix)
    : halo_(&halo),
      matrix_(&matrix),
      space_(Details::partSpace(halo)),
      version_(Details::newStructureVersion()) {
  require(matrix.numRows() == halo.localCells() * halo.components(),
          "distributed mesh operator: the matrix has ", matrix.numRows(),
          " rows, the part ", halo.localCells(), " cells of ", halo.components(),
          " unknowns");
}

template <class ExecSpace>
void DistributedMeshOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                               const Vector<ExecSpace>& y) const {
  halo_->exchange(x);
  const auto& A = *matrix_;
  forEachIndex("kfvm::DistributedMeshOperator::ownedRows", ExecSpace(),
               halo_->ownedCells() * halo_->components(),
               Details::OwnedRowsProduct<ExecSpace>{A.rowOffsets(), A.columns(),
                                                    A.values(), x, y});
  space_.zeroGhosts(y);
}

template <class ExecSpace>
void DistributedMeshOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  if (assembler_)
    Kokkos::deep_copy(ExecSpace(), d, assembler_->diagonal());
  else
    matrixDiagonal(*matrix_, d);
  space_.zeroGhosts(d);
}

template <class ExecSpace>
DistributedMeshSystem<ExecSpace>::DistributedMeshSystem(const MeshTopology& topology,
                                                        MPI_Comm comm, int ghostLayers,
                                                        PartitionMethod method,
                                                        GpuAwareMpi mode)
    : DistributedMeshSystem(topology, topology.connect(), comm, ghostLayers, method,
                            mode) {}

template <class ExecSpace>
DistributedMeshSystem<ExecSpace>::DistributedMeshSystem(
    const MeshTopology& topology, const MeshTopology::Connectivity& connectivity,
    MPI_Comm comm, int ghostLayers, PartitionMethod method, GpuAwareMpi mode)
    : comm_(comm),
      mode_(mode),
      owners_(partitionCells(topology, connectivity, Details::commSize(comm), method)),
      part_(meshPart(topology, connectivity, owners_, Details::commRank(comm),
                     ghostLayers)),
      halo_(part_, comm, mode),
      ghostLayers_(ghostLayers),
      mesh_(part_.topology) {
  setSolver("cg", 1e-10, 10000);
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::setEquation(const Equation<ExecSpace>& equation) {
  require(equation.mesh().id() == mesh_.id(),
          "distributed mesh system: the equation must be on localMesh()");
  require(!equation.boundaryConditions().isSet(MeshPart::cutPatch),
          "distributed mesh system: patch '", MeshPart::cutPatch,
          "' is where this rank's part ends; it takes no boundary condition");
  const bool reachesTwoCells =
      equation.hasHigherOrder() || equation.hasDiffusionCrossTerms() ||
      (equation.hasConvection() && isTvd(equation.convectionScheme()));
  require(!reachesTwoCells || ghostLayers_ >= 2,
          "distributed mesh system: the non-orthogonal correction, a diffusion tensor, "
          "TVD convection and the fourth-order term read cells two faces away; construct "
          "the system with 2 ghost layers, not ",
          ghostLayers_);
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  coupledStepper_.reset();
  stepper_ = std::make_unique<ImplicitStepper<ExecSpace>>(equation, std::move(solver_));
  stepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ =
      std::make_unique<DistributedMeshOperator<ExecSpace>>(halo_, stepper_->assembler());
  stepper_->distributeOver(this);
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::setSystem(
    const CoupledSystem<ExecSpace>& system,
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(system.mesh().id() == mesh_.id(),
          "distributed mesh system: the coupled system must be on localMesh()");
  require(solver != nullptr && !solver->takesGhostColumns(),
          "distributed mesh system: a coupled system's solver must be a native one "
          "(kfvm's Krylov methods), got ",
          solver ? solver->name() : std::string("none"));
  const int n = system.numVariables();
  for (int v = 0; v < n; ++v)
    require(!system.boundaryConditions(v).isSet(MeshPart::cutPatch),
            "distributed mesh system: patch '", MeshPart::cutPatch,
            "' is where this rank's part ends; it takes no boundary condition (variable ",
            v, ")");
  if (!blockHalo_ || blockHalo_->components() != n)
    blockHalo_ = std::make_unique<MeshHaloExchange<ExecSpace>>(part_, comm_, mode_, n);
  if (stepper_) solver_ = stepper_->takeSolver();
  operator_.reset();
  stepper_.reset();
  coupledStepper_ =
      std::make_unique<CoupledStepper<ExecSpace>>(system, std::move(solver));
  if (sweepsGiven_) coupledStepper_->setSweeps(maxSweeps_, Real(sweepTolerance_));
  operator_ = std::make_unique<DistributedMeshOperator<ExecSpace>>(
      *blockHalo_, coupledStepper_->system().matrix());
  coupledStepper_->distributeOver(this);
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::setSolver(const std::string& name,
                                                 double tolerance, int maxIterations) {
  require(tolerance > 0 && tolerance < 1,
          "distributed mesh system: tolerance must be in (0, 1), got ", tolerance);
  require(maxIterations >= 1, "distributed mesh system: maxIterations must be >= 1, got ",
          maxIterations);
  Parameters parameters;
  parameters.set("tolerance", tolerance).set("max_iterations", maxIterations);
  setSolver(makeLinearSolver<ExecSpace>(name, parameters));
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "distributed mesh system: the solver is null");
  require(!solver->takesGhostColumns(), "distributed mesh system: solver '",
          solver->name(),
          "' takes ghost columns (a Trilinos solver); general meshes "
          "across ranks take kfvm's own solvers");
  if (coupledStepper_)
    coupledStepper_->setSolver(std::move(solver));
  else if (stepper_)
    stepper_->setSolver(std::move(solver));
  else
    solver_ = std::move(solver);
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::setSweeps(int maxSweeps, double tolerance) {
  require(maxSweeps >= 1, "distributed mesh system: maxSweeps must be at least 1, got ",
          maxSweeps);
  require(std::isfinite(tolerance) && tolerance > 0,
          "distributed mesh system: sweep tolerance must be positive and finite, got ",
          tolerance);
  maxSweeps_ = maxSweeps;
  sweepTolerance_ = tolerance;
  sweepsGiven_ = true;
  if (stepper_) stepper_->setSweeps(maxSweeps, Real(tolerance));
  if (coupledStepper_) coupledStepper_->setSweeps(maxSweeps, Real(tolerance));
}

template <class ExecSpace>
void DistributedMeshSystem<ExecSpace>::exchange(const Vector<ExecSpace>& x) {
  if (coupledStepper_)
    blockHalo_->exchange(x);
  else
    halo_.exchange(x);
}

template <class ExecSpace>
SolverReport DistributedMeshSystem<ExecSpace>::solve(LinearSolver<ExecSpace>& solver,
                                                     const Vector<ExecSpace>& b,
                                                     const Vector<ExecSpace>& x) {
  return Details::solveAcrossRanks(comm_, solver, *operator_, b, x,
                                   [this](const Vector<ExecSpace>& v) { exchange(v); });
}

template <class ExecSpace>
const LinearOperator<ExecSpace>& DistributedMeshSystem<ExecSpace>::linearOperator()
    const {
  require(operator_ != nullptr,
          "distributed mesh system: setEquation() or setSystem() first");
  return *operator_;
}

template <class ExecSpace>
ImplicitStepper<ExecSpace>& DistributedMeshSystem<ExecSpace>::stepper() {
  require(stepper_ != nullptr, "distributed mesh system: setEquation() first");
  return *stepper_;
}

template <class ExecSpace>
StepReport DistributedMeshSystem<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                                  TimeScheme scheme) {
  require(std::isfinite(dt) && dt > 0,
          "distributed mesh system: dt must be positive and finite, got ", dt);
  phi.requireOn(mesh_, "distributed unknown");
  return stepper().step(phi, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedMeshSystem<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  phi.requireOn(mesh_, "distributed unknown");
  return stepper().solveSteady(phi);
}

template <class ExecSpace>
CoupledStepper<ExecSpace>& DistributedMeshSystem<ExecSpace>::coupledStepper() {
  require(coupledStepper_ != nullptr, "distributed mesh system: setSystem() first");
  return *coupledStepper_;
}

template <class ExecSpace>
StepReport DistributedMeshSystem<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields, Real dt, TimeScheme scheme) {
  return coupledStepper().step(fields, dt, scheme);
}

template <class ExecSpace>
StepReport DistributedMeshSystem<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return coupledStepper().solveSteady(fields);
}

template <class ExecSpace>
double DistributedMeshSystem<ExecSpace>::dot(const Vector<ExecSpace>& x,
                                             const Vector<ExecSpace>& y) const {
  return linearOperator().space().dot(x, y);
}

template <class ExecSpace>
std::function<void(double*, int)> DistributedMeshSystem<ExecSpace>::maxOverRanks() const {
  return Details::maxOverRanks(comm_, halo_.rank());
}

template <class ExecSpace>
std::vector<Real> DistributedMeshSystem<ExecSpace>::gather(
    const CellField<ExecSpace>& phi, int root) const {
  phi.requireOn(mesh_, "gathered");
  const int size = Details::commSize(comm_), rank = halo_.rank();
  require(root >= 0 && root < size, "distributed mesh system: root ", root,
          " is not one of ", size, " ranks");
  const auto check = [rank](int status, const char* what) {
    require(status == MPI_SUCCESS, "distributed mesh system: ", what, " failed on rank ",
            rank);
  };
  const auto values = phi.toHost();
  const int owned = int(part_.ownedCells);
  std::vector<int> counts(std::size_t(size), 0), offsets(std::size_t(size) + 1, 0);
  check(MPI_Gather(&owned, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_),
        "MPI_Gather");
  for (int r = 0; r < size; ++r)
    offsets[std::size_t(r) + 1] = offsets[std::size_t(r)] + counts[std::size_t(r)];
  std::vector<long long> ids(rank == root ? std::size_t(offsets.back()) : 0);
  std::vector<Real> gathered(ids.size());
  const MPI_Datatype type = std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
  check(MPI_Gatherv(part_.globalCells.data(), owned, MPI_LONG_LONG, ids.data(),
                    counts.data(), offsets.data(), MPI_LONG_LONG, root, comm_),
        "MPI_Gatherv");
  check(MPI_Gatherv(values.data(), owned, type, gathered.data(), counts.data(),
                    offsets.data(), type, root, comm_),
        "MPI_Gatherv");
  std::vector<Real> global(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) global[std::size_t(ids[k])] = gathered[k];
  return global;
}

#define KFVM_INSTANTIATE_DISTRIBUTED_MESH(Space) \
  template class DistributedMeshOperator<Space>; \
  template class DistributedMeshSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_MESH)

}  // namespace kfvm
