// GMRES's multi-vector kernels against sums done on the host: VectorSpace::dotsWith
// (every count of basis vectors around the 16-vector chunks, w . w with them, a
// distributed space's ghosts skipped even when they hold NaN), Blas::addCombination and
// Blas::setCombination (old values never read);
// then GMRES with classical and modified Gram-Schmidt at restarts below, at and above a
// chunk, against the direct solution, and a bad orthogonalization named.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestSystems.hpp"

#include <kfvm_Blas1.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_VectorSpace.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// n entries of vector q: smooth and different for every q, so that sums of products
/// are neither 0 nor alike.
std::vector<double> entries(int q, Ordinal n) {
  std::vector<double> values(static_cast<std::size_t>(n));
  for (Ordinal i = 0; i < n; ++i)
    values[std::size_t(i)] = std::sin(0.37 * double(i) + 1.3 * q) + 0.01 * q;
  return values;
}

std::vector<Vector<Space>> basisOf(int count, Ordinal n) {
  std::vector<Vector<Space>> basis;
  for (int q = 0; q < count; ++q) basis.push_back(toDevice(entries(q + 1, n)));
  return basis;
}

// A length that is not a multiple of a host thread's block of rows (512).
constexpr Ordinal length = 1283;

TEST(MultiVector, DotsWithEqualTheHostSumsForEveryCount) {
  const auto wHost = entries(0, length);
  const auto w = toDevice(wHost);
  const VectorSpace<Space> space(length);
  for (const int count : {0, 1, 7, 15, 16, 17, 32, 33, 40}) {
    const auto basis = basisOf(count, length);
    std::vector<double> out(std::size_t(count) + 1, -1.0);
    space.dotsWith(w, basis.data(), count, out.data());
    double scale = 0;
    for (const double x : wHost) scale += x * x;
    for (int q = 0; q <= count; ++q) {
      const auto v = q < count ? entries(q + 1, length) : wHost;
      double want = 0;
      for (Ordinal i = 0; i < length; ++i)
        want += v[std::size_t(i)] * wHost[std::size_t(i)];
      EXPECT_NEAR(out[std::size_t(q)], want, tolerance(1e-13) * scale)
          << "count " << count << ", entry " << q;
    }
  }
}

TEST(MultiVector, DotsWithSkipGhostsAndSumOverProcessesOnce) {
  // Every third entry a ghost holding NaN; the reduction over "processes" doubles the
  // sums, once for all count + 1 of them.
  std::vector<double> mask(static_cast<std::size_t>(length)), wHost = entries(0, length);
  std::vector<Ordinal> ghosts;
  for (Ordinal i = 0; i < length; ++i) {
    mask[std::size_t(i)] = i % 3 == 2 ? 0 : 1;
    if (i % 3 == 2) ghosts.push_back(i);
  }
  int reductions = 0;
  const VectorSpace<Space> space(toDevice(mask),
                                 copyToDevice<Ordinal, Space>(ghosts, "ghosts"),
                                 [&](double* values, int count) {
                                   ++reductions;
                                   EXPECT_EQ(count, 18);
                                   for (int q = 0; q < count; ++q) values[q] *= 2;
                                 });
  for (const Ordinal g : ghosts)
    wHost[std::size_t(g)] = std::numeric_limits<double>::quiet_NaN();
  const int count = 17;
  const auto basis = basisOf(count, length);
  std::vector<double> out(std::size_t(count) + 1);
  space.dotsWith(toDevice(wHost), basis.data(), count, out.data());
  EXPECT_EQ(reductions, 1);
  for (int q = 0; q <= count; ++q) {
    const auto v = q < count ? entries(q + 1, length) : wHost;
    double want = 0;
    for (Ordinal i = 0; i < length; ++i)
      if (mask[std::size_t(i)] != 0) want += v[std::size_t(i)] * wHost[std::size_t(i)];
    EXPECT_TRUE(std::isfinite(out[std::size_t(q)])) << "entry " << q;
    EXPECT_NEAR(out[std::size_t(q)], 2 * want, tolerance(1e-13) * length)
        << "entry " << q;
  }
}

TEST(MultiVector, AddCombinationAddsEveryVectorOnce) {
  for (const int count : {0, 1, 5, 16, 17, 40}) {
    const auto basis = basisOf(count, length);
    std::vector<double> coefficients;
    for (int q = 0; q < count; ++q) coefficients.push_back(0.5 - 0.125 * q);
    auto want = entries(0, length);
    const auto y = toDevice(want);
    Blas::addCombination(basis.data(), coefficients.data(), count, y);
    for (int q = 0; q < count; ++q) {
      const auto v = entries(q + 1, length);
      for (Ordinal i = 0; i < length; ++i)
        want[std::size_t(i)] += coefficients[std::size_t(q)] * v[std::size_t(i)];
    }
    EXPECT_LT(maxDifference(toHost(y), want), tolerance(1e-13) * (1 + count))
        << "count " << count;
  }
}

TEST(MultiVector, SetCombinationOverwritesWithoutReadingTheOldValues) {
  // y starts as NaN: setCombination must not read it, in any chunk; 0 vectors give 0.
  for (const int count : {0, 1, 5, 16, 17, 40}) {
    const auto basis = basisOf(count, length);
    std::vector<double> coefficients;
    for (int q = 0; q < count; ++q) coefficients.push_back(0.25 + 0.0625 * q);
    std::vector<double> want(std::size_t(length), 0.0);
    const auto y = toDevice(std::vector<double>(
        std::size_t(length), std::numeric_limits<double>::quiet_NaN()));
    Blas::setCombination(basis.data(), coefficients.data(), count, y);
    for (int q = 0; q < count; ++q) {
      const auto v = entries(q + 1, length);
      for (Ordinal i = 0; i < length; ++i)
        want[std::size_t(i)] += coefficients[std::size_t(q)] * v[std::size_t(i)];
    }
    const auto got = toHost(y);
    bool finite = true;
    for (const double x : got) finite = finite && std::isfinite(x);
    EXPECT_TRUE(finite) << "count " << count;
    EXPECT_LT(maxDifference(got, want), tolerance(1e-13) * (1 + count))
        << "count " << count;
  }
}

TEST(MultiVector, GmresAtRestartsAroundAChunkMatchesTheDirectSolution) {
  // The nonsymmetric system (convection), no preconditioner, so that a restart cycle runs
  // its whole basis: restarts of 1, 15, 16, 17 and 40 vectors, both orthogonalizations.
  const auto system = nonSymmetricSystem();
  const auto direct = solveDense(system.dense, rightHandSide(system.n));
  for (const int restart : {1, 15, 16, 17, 40})
    for (const std::string method : {"gmres", "fgmres"})
      for (const std::string orthogonalization : {"cgs", "mgs"}) {
        const std::string what =
            method + " (" + orthogonalization + ") restart " + std::to_string(restart);
        auto solver =
            makeLinearSolver<Space>(method, {{"tolerance", solverToleranceText(1e-11)},
                                             {"max_iterations", "5000"},
                                             {"restart", std::to_string(restart)},
                                             {"orthogonalization", orthogonalization}});
        solver->setMatrix(system.matrix());
        auto x = toDevice(std::vector<double>(system.n, 0.0));
        const auto report = solver->solve(toDevice(rightHandSide(system.n)), x);
        EXPECT_TRUE(report.converged) << what << ": " << report.reason;
        EXPECT_LT(maxDifference(toHost(x), direct), tolerance(1e-8)) << what;
      }
}

TEST(MultiVector, AnUnknownOrthogonalizationIsAnErrorNamingIt) {
  expectError(
      [] {
        makeLinearSolver<Space>("gmres", {{"orthogonalization", "qr"}});
      },
      {"orthogonalization", "'cgs' or 'mgs'", "'qr'"});
}

}  // namespace
}  // namespace kfvm::Test
