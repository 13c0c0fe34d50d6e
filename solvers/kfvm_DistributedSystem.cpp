#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

/// The global grid's vertices of the rank's ghosted block.
CartesianGrid ghostedGrid(const CartesianGrid& grid, const Decomposition& decomposition,
                          const GhostedBlock& layout, int rank) {
  const auto block = decomposition.block(rank);
  std::vector<double> vertices[3];
  for (int a = 0; a < grid.dimension(); ++a) {
    const auto& all = grid.vertices(a);
    const int first = block.first[a] - layout.lower[a];
    vertices[a].assign(all.begin() + first, all.begin() + first + layout.extent[a] + 1);
  }
  return CartesianGrid::fromVertices(vertices[0], vertices[1], vertices[2]);
}

template <class ExecSpace>
struct OwnedMask {
  GhostedBlock layout;
  Vector<ExecSpace> owned;
  KOKKOS_FUNCTION void operator()(Ordinal c) const {
    owned(c) = layout.isOwned(c) ? Real(1) : Real(0);
  }
};

template <class ExecSpace>
struct WeightedDot {
  Vector<ExecSpace> weight, x, y;
  KOKKOS_FUNCTION void operator()(Ordinal c, Real& sum) const {
    sum += weight(c) * x(c) * y(c);
  }
};

/// z = r / diagonal on owned cells, 0 on ghosts.
template <class ExecSpace>
struct JacobiOnOwned {
  Vector<ExecSpace> owned, diagonal, r, z;
  KOKKOS_FUNCTION void operator()(Ordinal c) const {
    z(c) = owned(c) != 0 ? r(c) / diagonal(c) : Real(0);
  }
};

/// y(row) = sum of A(row, :) x over a list of rows.
template <class ExecSpace>
struct RowsProduct {
  DeviceView<const Ordinal*, ExecSpace> rows;
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    const Ordinal row = rows(m);
    y(row) = rowProduct(columns, values, x, offsets(row), offsets(row + 1));
  }
};

/// ||r|| / ||b|| from {r.r, b.b} (||r|| when b is 0).
double relativeTo(const double sums[2]) {
  return sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
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

template <class T, class ExecSpace>
DeviceView<T*, ExecSpace> toDevice(const std::vector<T>& host, const std::string& label) {
  DeviceView<T*, ExecSpace> view(label, host.size());
  Kokkos::deep_copy(
      view,
      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          host.data(), host.size()));
  return view;
}

/// Local indices of the owned cells of a ghosted block, x fastest.
std::vector<Ordinal> ownedCells(const GhostedBlock& layout) {
  std::vector<Ordinal> cells;
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i) cells.push_back(layout.index(i, j, k));
  return cells;
}

/// The owned cells of a ghosted block, split into those with no ghost among their face
/// neighbours and those with one.
template <class ExecSpace>
void splitOwnedRows(const GhostedBlock& layout, DeviceView<Ordinal*, ExecSpace>& inner,
                    DeviceView<Ordinal*, ExecSpace>& edge) {
  std::vector<Ordinal> innerCells, edgeCells;
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i) {
        const bool nextToGhost = (i == 0 && layout.lower[0]) ||
                                 (i == layout.owned[0] - 1 && layout.upper[0]) ||
                                 (j == 0 && layout.lower[1]) ||
                                 (j == layout.owned[1] - 1 && layout.upper[1]) ||
                                 (k == 0 && layout.lower[2]) ||
                                 (k == layout.owned[2] - 1 && layout.upper[2]);
        (nextToGhost ? edgeCells : innerCells).push_back(layout.index(i, j, k));
      }
  inner = toDevice<Ordinal, ExecSpace>(innerCells, "kfvm::DistributedSystem::innerRows");
  edge = toDevice<Ordinal, ExecSpace>(edgeCells, "kfvm::DistributedSystem::edgeRows");
}

}  // namespace Details

template <class ExecSpace>
DistributedSystem<ExecSpace>::DistributedSystem(const CartesianGrid& grid,
                                                const Decomposition& decomposition,
                                                MPI_Comm comm, GpuAwareMpi mode,
                                                int ghostLayers)
    : decomposition_(decomposition),
      comm_(comm),
      halo_(decomposition, comm, mode, ghostLayers),
      ghostLayers_(ghostLayers),
      mesh_(Details::ghostedGrid(grid, decomposition, halo_.layout(), halo_.rank())),
      previous_(mesh_, "kfvm::DistributedSystem::previous") {
  require(grid.dimension() == decomposition.dimension() &&
              grid.cellCounts() == decomposition.cells(),
          "distributed system: the decomposition is of ", decomposition.cells()[0], " x ",
          decomposition.cells()[1], " x ", decomposition.cells()[2],
          " cells, the grid has ", grid.cells(0), " x ", grid.cells(1), " x ",
          grid.cells(2));
  const Ordinal n = mesh_.numCells();
  owned_ = Vector<ExecSpace>("kfvm::DistributedSystem::owned", n);
  forEachIndex("kfvm::DistributedSystem::ownedMask", ExecSpace(), n,
               Details::OwnedMask<ExecSpace>{halo_.layout(), owned_});
  Details::splitOwnedRows(halo_.layout(), innerRows_, edgeRows_);
  // The same split in boxes of local cells for the stencil: the rim peeled axis by
  // axis (one layer on each side facing a rank), the interior what is left.
  const GhostedBlock& layout = halo_.layout();
  std::array<int, 3> lo{0, 0, 0}, hi{layout.owned[0], layout.owned[1], layout.owned[2]};
  const auto local = [&](std::array<int, 3> cell) {
    for (int a = 0; a < 3; ++a) cell[a] += layout.lower[a];
    return cell;
  };
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      if ((side == 0 ? layout.lower[a] : layout.upper[a]) == 0 || lo[a] >= hi[a])
        continue;
      std::array<int, 3> begin = lo, end = hi;
      if (side == 0)
        end[a] = ++lo[a];
      else
        begin[a] = --hi[a];
      rimBoxes_.emplace_back(local(begin), local(end));
    }
  }
  innerBegin_ = local(lo);
  innerEnd_ = local(hi);
  ownedCells_ = Details::toDevice<Ordinal, ExecSpace>(
      Details::ownedCells(halo_.layout()), "kfvm::DistributedSystem::ownedCells");
  const Ordinal owned = Ordinal(ownedCells_.extent(0));
  ownedRhs_ = Vector<ExecSpace>("kfvm::DistributedSystem::ownedRhs", owned);
  ownedX_ = Vector<ExecSpace>("kfvm::DistributedSystem::ownedX", owned);
  rhs_ = Vector<ExecSpace>("kfvm::DistributedSystem::rhs", n);
  r_ = Vector<ExecSpace>("kfvm::DistributedSystem::r", n);
  z_ = Vector<ExecSpace>("kfvm::DistributedSystem::z", n);
  p_ = Vector<ExecSpace>("kfvm::DistributedSystem::p", n);
  q_ = Vector<ExecSpace>("kfvm::DistributedSystem::q", n);
}

template <class ExecSpace>
bool DistributedSystem<ExecSpace>::isPhysical(Patch patch) const {
  const int axis = int(patch) / 2, side = int(patch) % 2;
  require(axis < decomposition_.dimension(), "distributed system: patch '",
          patchName(patch), "' is not a side of a ", decomposition_.dimension(),
          "D grid");
  return decomposition_.neighbour(halo_.rank(), axis, side) < 0;
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
  assembler_ = std::make_unique<Assembler<ExecSpace>>(equation);
  fullExchange_ = equation.hasHigherOrder();
  if (stencil_) setMatrixFree(true);  // the stencil of the new equation
  // The owned rows: the owned cells' rows of the local matrix, with columns renumbered
  // owned cells first, in row order, then ghosts (what Tpetra and Ifpack2 expect of a
  // column map), and sorted again within each row.
  const auto& A = assembler_->matrix();
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
      Details::toDevice<Offset, ExecSpace>(ownedOffsets,
                                           "kfvm::DistributedSystem::ownedOffsets"),
      Details::toDevice<Ordinal, ExecSpace>(ownedColumns,
                                            "kfvm::DistributedSystem::ownedColumns"));
  entrySources_ = Details::toDevice<Offset, ExecSpace>(
      sources, "kfvm::DistributedSystem::entrySources");
}

template <class ExecSpace>
const CrsMatrix<ExecSpace>& DistributedSystem<ExecSpace>::ownedRows() {
  require(assembler_ != nullptr, "distributed system: setEquation() first");
  const auto& A = assembler_->matrix();
  forEachIndex("kfvm::DistributedSystem::ownedRowValues", ExecSpace(),
               Ordinal(entrySources_.extent(0)),
               Details::CopyOwnedEntries<ExecSpace>{entrySources_, A.values(),
                                                    ownedRows_.values()});
  return ownedRows_;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::localGlobalIds() const {
  const GhostedBlock& layout = halo_.layout();
  const auto first = decomposition_.block(halo_.rank()).first;
  const auto& cells = decomposition_.cells();
  std::vector<long long> ids(std::size_t(layout.size()));
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i)
        ids[std::size_t(layout.index(i, j, k))] =
            (first[0] + i) +
            (long long)cells[0] * ((first[1] + j) + (long long)cells[1] * (first[2] + k));
  return ids;
}

template <class ExecSpace>
std::vector<long long> DistributedSystem<ExecSpace>::columnGlobalIds() const {
  require(assembler_ != nullptr, "distributed system: setEquation() first");
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
  require(name == "cg" || name == "bicgstab",
          "distributed system: solver must be cg or bicgstab, got '", name, "'");
  if (name == "bicgstab" && rHat_.extent(0) == 0) {  // its extra vectors, made once
    const Ordinal n = mesh_.numCells();
    rHat_ = Vector<ExecSpace>("kfvm::DistributedSystem::rHat", n);
    y_ = Vector<ExecSpace>("kfvm::DistributedSystem::y", n);
    s_ = Vector<ExecSpace>("kfvm::DistributedSystem::s", n);
    t_ = Vector<ExecSpace>("kfvm::DistributedSystem::t", n);
  }
  solver_ = name;
  external_.reset();
  require(tolerance > 0 && tolerance < 1,
          "distributed system: tolerance must be in (0, 1), got ", tolerance);
  require(maxIterations >= 1, "distributed system: maxIterations must be >= 1, got ",
          maxIterations);
  tolerance_ = tolerance;
  maxIterations_ = maxIterations;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setMatrixFree(bool on) {
  require(assembler_ != nullptr,
          "distributed system: setEquation() before setMatrixFree()");
  stencil_.reset();
  if (!on) return;
  require(!assembler_->equation().hasHigherOrder(),
          "distributed system: the matrix-free product has no fourth-order term; use the "
          "assembled matrix");
  stencil_ = std::make_unique<StencilOperator<ExecSpace>>(*assembler_);
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
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "distributed system: the solver is null");
  external_ = std::move(solver);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solveWithExternal(const Vector<ExecSpace>& x) {
  const Ordinal owned = Ordinal(ownedCells_.extent(0));
  const auto entries = [&](const Vector<ExecSpace>& from, const Vector<ExecSpace>& to,
                           bool gather) {
    forEachIndex(gather ? "kfvm::DistributedSystem::gatherOwned"
                        : "kfvm::DistributedSystem::scatterOwned",
                 ExecSpace(), owned,
                 Details::OwnedEntries<ExecSpace>{ownedCells_, from, to, gather});
  };
  entries(rhs_, ownedRhs_, true);
  entries(x, ownedX_, true);
  external_->setMatrix(ownedRows());  // the same structure: a refill after the first
  SolverReport report = external_->solve(ownedRhs_, ownedX_);
  entries(ownedX_, x, false);
  return report;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::sumOverRanks(double* values, int count) const {
  const int status =
      MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_);
  require(status == MPI_SUCCESS, "distributed system: MPI_Allreduce failed on rank ",
          halo_.rank());
}

template <class ExecSpace>
double DistributedSystem<ExecSpace>::dot(const Vector<ExecSpace>& x,
                                         const Vector<ExecSpace>& y) const {
  double sum = localDot(x, y);
  sumOverRanks(&sum, 1);
  return sum;
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt) {
  require(std::isfinite(dt) && dt > 0,
          "distributed system: dt must be positive and finite, got ", dt);
  return solve(phi, Real(1) / dt);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  return solve(phi, Real(0));
}

template <class ExecSpace>
double DistributedSystem<ExecSpace>::localDot(const Vector<ExecSpace>& a,
                                              const Vector<ExecSpace>& b) const {
  return double(sumOverIndex("kfvm::DistributedSystem::dot", ExecSpace(),
                             Ordinal(a.extent(0)),
                             Details::WeightedDot<ExecSpace>{owned_, a, b}));
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::applyOverlapped(const Vector<ExecSpace>& x,
                                                   const Vector<ExecSpace>& y) {
  const auto& A = assembler_->matrix();
  const auto rows = [&](const DeviceView<Ordinal*, ExecSpace>& list, const char* label) {
    forEachIndex(label, ExecSpace(), Ordinal(list.extent(0)),
                 Details::RowsProduct<ExecSpace>{list, A.rowOffsets(), A.columns(),
                                                 A.values(), x, y});
  };
  if (stencil_) {
    halo_.startFaces(x);
    stencil_->applyBox(x, y, innerBegin_, innerEnd_);
    halo_.finishFaces(x);
    for (const auto& [begin, end] : rimBoxes_) stencil_->applyBox(x, y, begin, end);
    return;
  }
  if (fullExchange_) {  // rows reach edge and corner ghosts: no overlap
    halo_.exchange(x);
    rows(innerRows_, "kfvm::DistributedSystem::innerRows");
    rows(edgeRows_, "kfvm::DistributedSystem::edgeRows");
    return;
  }
  halo_.startFaces(x);
  rows(innerRows_, "kfvm::DistributedSystem::innerRows");
  halo_.finishFaces(x);
  rows(edgeRows_, "kfvm::DistributedSystem::edgeRows");
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::precondition(const Vector<ExecSpace>& from,
                                                const Vector<ExecSpace>& to) const {
  forEachIndex(
      "kfvm::DistributedSystem::jacobi", ExecSpace(), Ordinal(from.extent(0)),
      Details::JacobiOnOwned<ExecSpace>{owned_, assembler_->diagonal(), from, to});
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solve(CellField<ExecSpace>& phi, Real invDt) {
  require(assembler_ != nullptr, "distributed system: setEquation() first");
  phi.requireOn(mesh_, "distributed unknown");
  const Vector<ExecSpace> x = phi.values();
  const Equation<ExecSpace>& equation = assembler_->equation();
  const bool sweeping = equation.needsSweeps();
  halo_.exchange(x);
  Kokkos::deep_copy(ExecSpace(), previous_.values(), x);
  SolverReport report;
  int iterations = 0;
  // As ImplicitStepper: each sweep evaluates the nonlinear parts at the latest phi
  // (every ghost layer exchanged), assembles and solves.
  for (int sweep = 1; sweep <= (sweeping ? maxSweeps_ : 1); ++sweep) {
    equation.updateNonlinear(phi);
    assembler_->assemble(invDt, 1, previous_, phi, rhs_);
    double sums[2];
    const bool checked = sweeping && sweep > 1;
    if (checked) {
      residual(x, sums);  // the solve below starts from this r
      const double relative = Details::relativeTo(sums);
      if (relative <= sweepTolerance_) {
        report.reason = "converged in " + std::to_string(sweep - 1) +
                        " sweeps (sweep residual " + std::to_string(relative) + ")";
        return report;
      }
    }
    report = external_ ? solveWithExternal(x) : solveLinear(x, checked ? sums : nullptr);
    halo_.exchange(x);
    iterations += report.iterations;
    report.iterations = iterations;
    if (!report.converged) return report;
  }
  if (sweeping) {  // the last solve's result is not checked yet
    equation.updateNonlinear(phi);
    assembler_->assemble(invDt, 1, previous_, phi, rhs_);
    double sums[2];
    residual(x, sums);
    const double relative = Details::relativeTo(sums);
    if (relative > sweepTolerance_) {
      report.converged = false;
      report.reason = "not converged: sweep residual " + std::to_string(relative) +
                      " > " + std::to_string(sweepTolerance_) + " after " +
                      std::to_string(maxSweeps_) + " sweeps";
    }
  }
  return report;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::residual(const Vector<ExecSpace>& x, double sums[2]) {
  multiply(assembler_->matrix(), x, q_);
  Blas::copy(rhs_, r_);
  Blas::axpby(Real(-1), q_, Real(1), r_);
  sums[0] = localDot(r_, r_);
  sums[1] = localDot(rhs_, rhs_);
  sumOverRanks(sums, 2);
}

template <class ExecSpace>
SolverReport DistributedSystem<ExecSpace>::solveLinear(const Vector<ExecSpace>& x,
                                                       const double* known) {
  double sums[2];
  if (known) {
    sums[0] = known[0];
    sums[1] = known[1];
  } else {
    residual(x, sums);
  }
  SolverReport report;
  report.solver = "distributed " + solver_ + "+jacobi";
  report.initialResidual = std::sqrt(sums[0]);
  report.finalResidual = report.initialResidual;
  const double target = tolerance_ * std::sqrt(sums[1]);
  report.converged = report.finalResidual <= target;
  if (!report.converged) {
    if (solver_ == "cg")
      conjugateGradient(x, target, report);
    else
      biCGStab(x, target, report);
  }
  if (report.converged)
    report.reason = "converged";
  else if (report.reason.empty())
    report.reason = "not converged: iteration limit " + std::to_string(maxIterations_) +
                    " reached with residual " + std::to_string(report.finalResidual) +
                    " > target " + std::to_string(target);
  return report;
}

template <class ExecSpace>
void DistributedSystem<ExecSpace>::conjugateGradient(const Vector<ExecSpace>& x,
                                                     double target,
                                                     SolverReport& report) {
  precondition(r_, z_);
  double rz = localDot(r_, z_);
  sumOverRanks(&rz, 1);
  Blas::copy(z_, p_);
  while (!report.converged && report.iterations < maxIterations_) {
    applyOverlapped(p_, q_);
    const double pq = dot(p_, q_);
    if (!(pq > 0)) {
      report.reason = "breakdown: p.Ap = " + std::to_string(pq) +
                      " is not positive (is the operator symmetric positive definite?)";
      return;
    }
    const double alpha = rz / pq;
    Blas::axpby(Real(alpha), p_, Real(1), x);
    Blas::axpby(Real(-alpha), q_, Real(1), r_);
    precondition(r_, z_);
    double next[2] = {localDot(r_, z_), localDot(r_, r_)};  // one reduction for both
    sumOverRanks(next, 2);
    ++report.iterations;
    report.finalResidual = std::sqrt(next[1]);
    report.converged = report.finalResidual <= target;
    Blas::axpby(Real(1), z_, Real(next[0] / rz), p_);
    rz = next[0];
  }
}

/// Right-preconditioned BiCGStab (van der Vorst), Jacobi: y = M^-1 p, z = M^-1 s.
template <class ExecSpace>
void DistributedSystem<ExecSpace>::biCGStab(const Vector<ExecSpace>& x, double target,
                                            SolverReport& report) {
  Blas::copy(r_, rHat_);
  Blas::fill(p_, Real(0));  // p = v = 0
  Blas::fill(q_, Real(0));
  double rho = 1, alpha = 1, omega = 1;
  double rhoNext = localDot(rHat_, r_);
  sumOverRanks(&rhoNext, 1);
  while (!report.converged && report.iterations < maxIterations_) {
    if (rhoNext == 0 || omega == 0) {
      report.reason = "breakdown: rho = " + std::to_string(rhoNext) +
                      ", omega = " + std::to_string(omega);
      return;
    }
    const double beta = (rhoNext / rho) * (alpha / omega);
    rho = rhoNext;
    Blas::axpby(Real(-omega), q_, Real(1), p_);  // p = r + beta (p - omega v)
    Blas::axpby(Real(1), r_, Real(beta), p_);
    precondition(p_, y_);
    applyOverlapped(y_, q_);  // v = A y
    alpha = rho / dot(rHat_, q_);
    Blas::copy(r_, s_);  // s = r - alpha v
    Blas::axpby(Real(-alpha), q_, Real(1), s_);
    precondition(s_, z_);
    applyOverlapped(z_, t_);  // t = A z
    double ts[2] = {localDot(t_, s_), localDot(t_, t_)};
    sumOverRanks(ts, 2);
    omega = ts[1] > 0 ? ts[0] / ts[1] : 0;
    Blas::axpby(Real(alpha), y_, Real(1), x);  // x += alpha y + omega z
    Blas::axpby(Real(omega), z_, Real(1), x);
    Blas::copy(s_, r_);  // r = s - omega t
    Blas::axpby(Real(-omega), t_, Real(1), r_);
    double next[2] = {localDot(r_, r_), localDot(rHat_, r_)};
    sumOverRanks(next, 2);
    ++report.iterations;
    report.finalResidual = std::sqrt(next[0]);
    report.converged = report.finalResidual <= target;
    rhoNext = next[1];
  }
}

#define KFVM_INSTANTIATE_DISTRIBUTED(Space) template class DistributedSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED)

}  // namespace kfvm
