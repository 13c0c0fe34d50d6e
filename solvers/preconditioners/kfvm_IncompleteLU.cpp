#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_IncompleteLU.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <algorithm>

namespace kfvm {

namespace Details {
namespace {

/// Sorts rows by level; returns the level offsets.
std::vector<Ordinal> orderByLevel(const std::vector<int>& level,
                                  std::vector<Ordinal>& order) {
  const int numLevels =
      level.empty() ? 0 : *std::max_element(level.begin(), level.end()) + 1;
  std::vector<Ordinal> offsets(numLevels + 1, 0);
  for (int l : level) ++offsets[l + 1];
  for (int l = 0; l < numLevels; ++l) offsets[l + 1] += offsets[l];
  std::vector<Ordinal> next(offsets.begin(), offsets.end() - 1);
  order.assign(level.size(), 0);
  for (std::size_t row = 0; row < level.size(); ++row)
    order[next[level[row]]++] = Ordinal(row);
  return offsets;
}

template <class ExecSpace>
DeviceView<Ordinal*, ExecSpace> toDevice(const std::vector<Ordinal>& host,
                                         const char* label) {
  DeviceView<Ordinal*, ExecSpace> view(std::string(label), host.size());
  auto mirror = Kokkos::create_mirror_view(view);
  std::copy(host.begin(), host.end(), mirror.data());
  Kokkos::deep_copy(view, mirror);
  return view;
}

/// Row i of the IKJ factorization: its L part divided by the pivots, its U part updated
/// by the rows above it (all in earlier levels).
template <class ExecSpace>
struct FactorRows {
  DeviceView<const Ordinal*, ExecSpace> order;
  DeviceView<const Offset*, ExecSpace> offsets, diagonal;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<Real*, ExecSpace> factors;

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    const Ordinal i = order(index);
    const Offset end = offsets(i + 1);
    for (Offset p = offsets(i); p < diagonal(i); ++p) {
      const Ordinal k = columns(p);
      const Real lik = factors(p) / factors(diagonal(k));
      factors(p) = lik;
      Offset q = diagonal(k) + 1, mine = p + 1;
      const Offset endK = offsets(k + 1);
      while (q < endK && mine < end) {
        if (columns(q) == columns(mine)) {
          factors(mine) -= lik * factors(q);
          ++q;
          ++mine;
        } else if (columns(q) < columns(mine)) {
          ++q;
        } else {
          ++mine;
        }
      }
    }
  }
};

template <class ExecSpace>
struct ForwardRows {
  DeviceView<const Ordinal*, ExecSpace> order;
  DeviceView<const Offset*, ExecSpace> offsets, diagonal;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> factors;
  Vector<ExecSpace> r, z;

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    const Ordinal i = order(index);
    Real sum = r(i);
    for (Offset p = offsets(i); p < diagonal(i); ++p) sum -= factors(p) * z(columns(p));
    z(i) = sum;
  }
};

template <class ExecSpace>
struct BackwardRows {
  DeviceView<const Ordinal*, ExecSpace> order;
  DeviceView<const Offset*, ExecSpace> offsets, diagonal;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> factors;
  Vector<ExecSpace> z;

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    const Ordinal i = order(index);
    Real sum = z(i);
    for (Offset p = diagonal(i) + 1; p < offsets(i + 1); ++p)
      sum -= factors(p) * z(columns(p));
    z(i) = sum / factors(diagonal(i));
  }
};

template <class ExecSpace>
struct FirstBadPivot {
  DeviceView<const Offset*, ExecSpace> diagonal;
  DeviceView<const Real*, ExecSpace> factors;

  KOKKOS_FUNCTION void operator()(Ordinal row, Ordinal& first) const {
    const Real pivot = factors(diagonal(row));
    if ((pivot == 0 || !Compat::isfinite(pivot)) && row < first) first = row;
  }
};

/// rows(index) for every index in order, by one thread: the level order is an order in
/// which each row comes after the rows it depends on.
template <class ExecSpace, class Rows>
struct RowsInOrder {
  Rows rows;
  Ordinal count;
  KOKKOS_FUNCTION void operator()(Ordinal) const {
    for (Ordinal index = 0; index < count; ++index) rows(index);
  }
};

/// Runs rows over the level sets levels: one parallel loop per level, or, with
/// inOrder, one loop over all of them on one thread.
template <class ExecSpace, class Rows>
void runLevels(const char* label, const std::vector<Ordinal>& levels, const Rows& rows,
               bool inOrder) {
  const int numLevels = int(levels.size()) - 1;
  if (inOrder) {  // one index: on a host, on the calling thread (forEachIndex)
    forEachIndex(label, ExecSpace(), 1,
                 RowsInOrder<ExecSpace, Rows>{rows, levels.back()});
    return;
  }
  for (int level = 0; level < numLevels; ++level) {
    const Ordinal begin = levels[level], end = levels[level + 1];
    if (Details::runsOnCallingThread<ExecSpace>(end - begin)) {
      const Details::CallingThreadKernel<ExecSpace> kernel(label, ExecSpace(), false);
      for (Ordinal row = begin; row < end; ++row) rows(row);
      continue;
    }
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Ordinal>>(
                             ExecSpace(), begin, end),
                         rows);
  }
}

}  // namespace
}  // namespace Details

template <class ExecSpace>
void IncompleteLU<ExecSpace>::analyze(const CrsMatrix<ExecSpace>& matrix) {
  require(matrix.numRows() == matrix.numColumns(), "ILU(0) needs a square matrix, got ",
          matrix.numRows(), " x ", matrix.numColumns());
  const Ordinal n = matrix.numRows();
  auto offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.rowOffsets());
  auto columns =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.columns());
  std::vector<Ordinal> diagonal(n);
  std::vector<int> lower(n, 0), upper(n, 0);
  for (Ordinal i = 0; i < n; ++i) {
    Offset d = offsets(i + 1);
    for (Offset p = offsets(i); p < offsets(i + 1); ++p) {
      if (columns(p) == i) d = p;
      if (columns(p) < i) lower[i] = std::max(lower[i], lower[columns(p)] + 1);
    }
    require(d < offsets(i + 1), "ILU(0): row ", i, " has no diagonal entry");
    diagonal[i] = Ordinal(d);
  }
  for (Ordinal i = n - 1; i >= 0; --i) {
    for (Offset p = offsets(i); p < offsets(i + 1); ++p) {
      if (columns(p) > i) upper[i] = std::max(upper[i], upper[columns(p)] + 1);
    }
  }
  std::vector<Ordinal> order;
  lowerLevels_ = Details::orderByLevel(lower, order);
  lowerOrder_ = Details::toDevice<ExecSpace>(order, "kfvm::IncompleteLU::lowerOrder");
  upperLevels_ = Details::orderByLevel(upper, order);
  upperOrder_ = Details::toDevice<ExecSpace>(order, "kfvm::IncompleteLU::upperOrder");
  diagonalEntries_ =
      DeviceView<Offset*, ExecSpace>("kfvm::IncompleteLU::diagonalEntries", n);
  auto diagonalHost = Kokkos::create_mirror_view(diagonalEntries_);
  for (Ordinal i = 0; i < n; ++i) diagonalHost(i) = Offset(diagonal[i]);
  Kokkos::deep_copy(diagonalEntries_, diagonalHost);
  factors_ =
      DeviceView<Real*, ExecSpace>("kfvm::IncompleteLU::factors", matrix.numEntries());
  pattern_ = matrix;
  // On a host backend a parallel loop per level costs a fork and a join each: with few
  // rows per level for every thread (2D and 3D patterns in natural order have as many
  // levels as a grid line or plane has cells) the solves ran an order of magnitude
  // slower on OpenMP than on Serial (FiPy's cahnHilliard.mesh2D through kfvm.fipy: 70 s
  // on one OpenMP thread, 121 s on two, 5 s on Serial). There the rows run in level
  // order on one thread. Devices keep the level-parallel loops.
  constexpr bool onHost =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecSpace::memory_space>::accessible;
  const int numLevels = std::max(numLowerLevels(), numUpperLevels());
  const double rowsPerThread =
      double(n) / std::max(1, numLevels) / std::max(1, int(ExecSpace().concurrency()));
  inOrder_ = onHost && (ExecSpace().concurrency() == 1 || rowsPerThread < 512);
}

template <class ExecSpace>
void IncompleteLU<ExecSpace>::factorize(const CrsMatrix<ExecSpace>& matrix) {
  require(matrix.rowOffsets().data() == pattern_.rowOffsets().data() &&
              matrix.columns().data() == pattern_.columns().data(),
          "ILU(0): factorize() needs the structure given to analyze()");
  Kokkos::deep_copy(ExecSpace(), factors_, matrix.values());
  const Details::FactorRows<ExecSpace> rows{lowerOrder_, matrix.rowOffsets(),
                                            diagonalEntries_, matrix.columns(), factors_};
  Details::runLevels<ExecSpace>("kfvm::IncompleteLU::factorize", lowerLevels_, rows,
                                inOrder_);
  Ordinal firstBad = matrix.numRows();
  Kokkos::parallel_reduce("kfvm::IncompleteLU::checkPivots",
                          indexRange(ExecSpace(), matrix.numRows()),
                          Details::FirstBadPivot<ExecSpace>{diagonalEntries_, factors_},
                          Kokkos::Min<Ordinal>(firstBad));
  if (firstBad < matrix.numRows()) {
    Real pivot = 0;
    Offset entry = 0;
    Kokkos::deep_copy(entry, Kokkos::subview(diagonalEntries_, firstBad));
    Kokkos::deep_copy(pivot, Kokkos::subview(factors_, entry));
    fail("ILU(0): pivot of row ", firstBad, " is ", pivot,
         " (the incomplete factorization broke down; try preconditioner jacobi)");
  }
}

template <class ExecSpace>
void IncompleteLU<ExecSpace>::apply(const Vector<ExecSpace>& r,
                                    const Vector<ExecSpace>& z) const {
  const auto offsets = pattern_.rowOffsets();
  const auto columns = pattern_.columns();
  const Details::ForwardRows<ExecSpace> forward{
      lowerOrder_, offsets, diagonalEntries_, columns, factors_, r, z};
  Details::runLevels<ExecSpace>("kfvm::IncompleteLU::forward", lowerLevels_, forward,
                                inOrder_);
  const Details::BackwardRows<ExecSpace> backward{upperOrder_, offsets,  diagonalEntries_,
                                                  columns,     factors_, z};
  Details::runLevels<ExecSpace>("kfvm::IncompleteLU::backward", upperLevels_, backward,
                                inOrder_);
}

#define KFVM_INSTANTIATE_INCOMPLETE_LU(Space) template class IncompleteLU<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_INCOMPLETE_LU)

}  // namespace kfvm
