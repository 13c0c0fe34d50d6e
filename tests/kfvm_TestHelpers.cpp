#include "kfvm_TestHelpers.hpp"

#include <algorithm>

namespace kfvm::Test {

std::vector<double> solveDense(std::vector<std::vector<double>> A,
                               std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t pivot = k;
    for (std::size_t i = k + 1; i < n; ++i) {
      if (std::abs(A[i][k]) > std::abs(A[pivot][k])) pivot = i;
    }
    std::swap(A[k], A[pivot]);
    std::swap(b[k], b[pivot]);
    for (std::size_t i = k + 1; i < n; ++i) {
      const double factor = A[i][k] / A[k][k];
      for (std::size_t j = k; j < n; ++j) A[i][j] -= factor * A[k][j];
      b[i] -= factor * b[k];
    }
  }
  std::vector<double> x(n);
  for (std::size_t k = n; k-- > 0;) {
    double sum = b[k];
    for (std::size_t j = k + 1; j < n; ++j) sum -= A[k][j] * x[j];
    x[k] = sum / A[k][k];
  }
  return x;
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return a.size() == b.size() ? worst : INFINITY;
}

}  // namespace kfvm::Test
