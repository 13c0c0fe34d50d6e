#include <kfvm_Backends.hpp>
#include <kfvm_CoarseSolve.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

/// x = inverse b, one row a thread.
template <class ExecSpace>
struct DenseProduct {
  DeviceView<Real**, ExecSpace> inverse;
  Vector<ExecSpace> b, x;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    Real sum = 0;
    const Ordinal n = Ordinal(b.extent(0));
    for (Ordinal j = 0; j < n; ++j) sum += inverse(i, j) * b(j);
    x(i) = sum;
  }
};

}  // namespace Details

namespace Details {

/// level's cells, at most CoarseSolve::maxCells (else kfvm::Error naming the level).
template <class ExecSpace>
Ordinal coarseCells(const GridLevel<ExecSpace>& level) {
  require(level.numCells() <= CoarseSolve<ExecSpace>::maxCells, "CoarseSolve: the ",
          level.description(), " has more than ", CoarseSolve<ExecSpace>::maxCells,
          " cells");
  return level.numCells();
}

}  // namespace Details

template <class ExecSpace>
CoarseSolve<ExecSpace>::CoarseSolve(const GridLevel<ExecSpace>& level)
    : CoarseSolve(Details::coarseCells(level)) {}

template <class ExecSpace>
CoarseSolve<ExecSpace>::CoarseSolve(Ordinal n) {
  require(n >= 1 && n <= maxCells, "CoarseSolve: ", n, " unknowns, not in [1, ", maxCells,
          "]");
  matrix_ = DeviceView<Real**, ExecSpace>("kfvm::CoarseSolve::matrix", n, n);
  inverse_ = DeviceView<Real**, ExecSpace>("kfvm::CoarseSolve::inverse", n, n);
}

template <class ExecSpace>
void CoarseSolve<ExecSpace>::setInverse(const std::vector<double>& inverse) {
  const std::size_t n = inverse_.extent(0);
  require(inverse.size() == n * n, "CoarseSolve::setInverse: ", inverse.size(),
          " entries for ", n, " unknowns");
  auto host = Kokkos::create_mirror_view(inverse_);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) host(i, j) = Real(inverse[i * n + j]);
  Kokkos::deep_copy(inverse_, host);
}

template <class ExecSpace>
void CoarseSolve<ExecSpace>::setup(const GridLevel<ExecSpace>& level) {
  const Ordinal n = level.numCells();
  require(std::size_t(n) == matrix_.extent(0), "CoarseSolve::setup: the ",
          level.description(), " is not the level of ", matrix_.extent(0), " cells");
  level.dense(matrix_);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix_);
  std::vector<double> values(std::size_t(n) * n);
  for (Ordinal i = 0; i < n; ++i)
    for (Ordinal j = 0; j < n; ++j) values[std::size_t(i) * n + j] = double(a(i, j));
  setInverse(invert(values, n, "the " + level.description()));
}

template <class ExecSpace>
std::vector<double> CoarseSolve<ExecSpace>::invert(const std::vector<double>& a,
                                                   Ordinal n, const std::string& what) {
  // Cholesky: L in the lower triangle of l (row-major).
  std::vector<double> l(std::size_t(n) * n, 0.0);
  const auto at = [n](Ordinal i, Ordinal j) {
    return std::size_t(i) * n + j;
  };
  for (Ordinal j = 0; j < n; ++j) {
    double pivot = a[at(j, j)];
    for (Ordinal k = 0; k < j; ++k) pivot -= l[at(j, k)] * l[at(j, k)];
    require(pivot > 0 && std::isfinite(pivot), "CoarseSolve: ", what,
            " is not symmetric positive definite (Cholesky pivot ", pivot, " at row ", j,
            ")");
    l[at(j, j)] = std::sqrt(pivot);
    for (Ordinal i = j + 1; i < n; ++i) {
      double value = 0.5 * (a[at(i, j)] + a[at(j, i)]);
      for (Ordinal k = 0; k < j; ++k) value -= l[at(i, k)] * l[at(j, k)];
      l[at(i, j)] = value / l[at(j, j)];
    }
  }
  // The inverse, column by column: L y = e_c, then L^T x = y.
  std::vector<double> inverse(std::size_t(n) * n, 0.0), y(std::size_t(n), 0.0);
  for (Ordinal c = 0; c < n; ++c) {
    for (Ordinal i = 0; i < n; ++i) {
      double value = i == c ? 1.0 : 0.0;
      for (Ordinal k = c; k < i; ++k) value -= l[at(i, k)] * y[k];
      y[i] = i < c ? 0.0 : value / l[at(i, i)];
    }
    for (Ordinal i = n - 1; i >= 0; --i) {
      double value = y[i];
      for (Ordinal k = i + 1; k < n; ++k) value -= l[at(k, i)] * y[k];
      y[i] = value / l[at(i, i)];
    }
    for (Ordinal i = 0; i < n; ++i) inverse[at(i, c)] = y[i];
  }
  return inverse;
}

template <class ExecSpace>
std::vector<double> CoarseSolve<ExecSpace>::invertGeneral(std::vector<double> a,
                                                          Ordinal n,
                                                          const std::string& what) {
  const auto at = [n](Ordinal i, Ordinal j) {
    return std::size_t(i) * n + j;
  };
  double largest = 0;
  for (const double value : a) largest = std::max(largest, std::abs(value));
  std::vector<double> inverse(std::size_t(n) * n, 0.0);
  for (Ordinal i = 0; i < n; ++i) inverse[at(i, i)] = 1;
  for (Ordinal k = 0; k < n; ++k) {
    Ordinal pivot = k;
    for (Ordinal i = k + 1; i < n; ++i)
      if (std::abs(a[at(i, k)]) > std::abs(a[at(pivot, k)])) pivot = i;
    require(std::abs(a[at(pivot, k)]) > 1e-13 * largest && std::isfinite(a[at(pivot, k)]),
            "CoarseSolve: ", what, " is singular (pivot ", a[at(pivot, k)], " in column ",
            k, ")");
    if (pivot != k)
      for (Ordinal j = 0; j < n; ++j) {
        std::swap(a[at(k, j)], a[at(pivot, j)]);
        std::swap(inverse[at(k, j)], inverse[at(pivot, j)]);
      }
    const double scale = 1 / a[at(k, k)];
    for (Ordinal j = 0; j < n; ++j) {
      a[at(k, j)] *= scale;
      inverse[at(k, j)] *= scale;
    }
    for (Ordinal i = 0; i < n; ++i) {
      const double factor = a[at(i, k)];
      if (i == k || factor == 0) continue;
      for (Ordinal j = 0; j < n; ++j) {
        a[at(i, j)] -= factor * a[at(k, j)];
        inverse[at(i, j)] -= factor * inverse[at(k, j)];
      }
    }
  }
  return inverse;
}

template <class ExecSpace>
void CoarseSolve<ExecSpace>::apply(const Vector<ExecSpace>& b,
                                   const Vector<ExecSpace>& x) const {
  forEachIndex("kfvm::CoarseSolve::apply", ExecSpace(), Ordinal(b.extent(0)),
               Details::DenseProduct<ExecSpace>{inverse_, b, x});
}

#define KFVM_INSTANTIATE_COARSE_SOLVE(Space) template class CoarseSolve<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_COARSE_SOLVE)

}  // namespace kfvm
