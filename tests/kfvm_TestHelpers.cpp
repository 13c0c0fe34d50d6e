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

double largestMagnitude(const std::vector<double>& a) {
  double m = 0;
  for (const double x : a) m = std::max(m, std::abs(x));
  return m;
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return a.size() == b.size() ? worst : INFINITY;
}

double cahnHilliardEnergy(const Mesh<TestExecSpace>& mesh, const std::vector<double>& phi,
                          double epsilon) {
  const auto volumes =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellVolumes());
  const auto faceCells =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCells());
  const auto areas =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceAreas());
  const auto distances =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceDistances());
  double energy = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double w = phi[c] * phi[c] - 1;
    energy += volumes(c) * w * w / 4;
  }
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) {
    if (faceCells(f, 1) < 0) continue;
    const double jump = phi[faceCells(f, 1)] - phi[faceCells(f, 0)];
    energy += epsilon * epsilon / 2 * areas(f) / distances(f) * jump * jump;
  }
  return energy;
}

}  // namespace kfvm::Test
