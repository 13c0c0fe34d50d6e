#ifndef KFVM_TEST_SYSTEMS_HPP
#define KFVM_TEST_SYSTEMS_HPP

// Small linear systems with their dense copies, for solver tests against direct solves.

#include "kfvm_TestHelpers.hpp"

#include <kfvm_CrsMatrix.hpp>

#include <cmath>
#include <random>
#include <vector>

namespace kfvm::Test {

/// A CRS matrix built row by row on the host, with its dense copy.
struct HostSystem {
  Ordinal n;
  std::vector<Offset> offsets{0};
  std::vector<Ordinal> columns;
  std::vector<double> values;
  std::vector<std::vector<double>> dense;

  explicit HostSystem(Ordinal size)
      : n(size), dense(size, std::vector<double>(size, 0.0)) {}
  void add(Ordinal row, Ordinal column, double value) {
    columns.push_back(column);
    values.push_back(value);
    dense[row][column] = value;
  }
  void endRow() { offsets.push_back(columns.size()); }
  CrsMatrix<TestExecSpace> matrix() const {
    return CrsMatrix<TestExecSpace>::fromHost(
        n, n, offsets, columns, std::vector<Real>(values.begin(), values.end()));
  }
};

/// SPD: a 2D 5-point Laplacian (8 x 8) with a random positive shift on the diagonal.
inline HostSystem spdSystem() {
  const int m = 8;
  HostSystem system(m * m);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> shift(0.01, 0.5);
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < m; ++i) {
      const int row = i + m * j;
      if (j > 0) system.add(row, row - m, -1);
      if (i > 0) system.add(row, row - 1, -1);
      system.add(row, row, 4 + shift(random));
      if (i < m - 1) system.add(row, row + 1, -1);
      if (j < m - 1) system.add(row, row + m, -1);
      system.endRow();
    }
  }
  return system;
}

/// Non-symmetric: upwinded convection-diffusion (Peclet 3) on a 2D 8 x 8 grid, with
/// random perturbations of the off-diagonals.
inline HostSystem nonSymmetricSystem() {
  const int m = 8;
  HostSystem system(m * m);
  std::mt19937 random(11);
  std::uniform_real_distribution<double> jitter(-0.2, 0.2);
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < m; ++i) {
      const int row = i + m * j;
      if (j > 0) system.add(row, row - m, -1 + jitter(random));
      if (i > 0) system.add(row, row - 1, -1 - 3 + jitter(random));
      system.add(row, row, 4 + 3 + 0.1);
      if (i < m - 1) system.add(row, row + 1, -1 + jitter(random));
      if (j < m - 1) system.add(row, row + m, -1 + jitter(random));
      system.endRow();
    }
  }
  return system;
}

inline std::vector<double> rightHandSide(Ordinal n) {
  std::vector<double> b(n);
  for (Ordinal i = 0; i < n; ++i) b[i] = std::sin(0.3 * i) + 0.5;
  return b;
}

}  // namespace kfvm::Test

#endif
