// The non-orthogonal correction of diffusion on tetrahedra: the linear profile exact with
// it and not without, second order with variable coefficients on distorted tetrahedra,
// and the order lost without the correction.
#include "kfvm_Manufactured.hpp"
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestMeshes.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Sweeps of the deferred correction to a residual of 1e-11 of ||b||. Each sweep's
/// linear solve to 1e-13 of ||b||, or, with inexactSweeps, to 1e-2 of its initial
/// residual (the sweeps converge to the same answer; 3 times fewer CG iterations).
StepReport solveWithSweeps(const Equation<Space>& equation, CellField<Space>& phi,
                           bool inexactSweeps = false) {
  const Parameters exact{{"tolerance", solverToleranceText(1e-13)},
                         {"max_iterations", "5000"}};
  const Parameters inexact{
      {"tolerance", "1e-2"}, {"criterion", "initial"}, {"max_iterations", "5000"}};
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", inexactSweeps ? inexact : exact));
  stepper.setSweeps(200, Real(solverTolerance(1e-11)));
  return stepper.solveSteady(phi);
}

/// Solves with sweeps; returns max |phi - (ax x + ay y)| over the cell centroids.
double solveAndCompareWithLinear(const Equation<Space>& equation, double ax, double ay) {
  const auto& mesh = equation.mesh();
  CellField<Space> phi(mesh, "phi");
  const auto report = solveWithSweeps(equation, phi);
  EXPECT_TRUE(report.converged) << report.reason;
  const auto values = toHost(phi.values());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  double error = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c)
    error =
        std::max(error, std::abs(values[c] - ax * centres(c, 0) - ay * centres(c, 1)));
  return error;
}

/// max |phi - x| over the cells for D = 1, phi = 0 at x = 0 and 1 at x = 1.
double linearProfileError(const Mesh<Space>& mesh, DiffusionCorrection correction,
                          CellGradient gradient) {
  Equation<Space> equation(mesh);
  equation.diffusion(Real(1))
      .diffusionCorrection(correction, gradient)
      .boundary("left", BoundaryCondition::dirichlet(0))
      .boundary("right", BoundaryCondition::dirichlet(1));
  return solveAndCompareWithLinear(equation, 1, 0);
}

TEST(NonOrthogonal, LinearProfileIsExactOnTetrahedraWithTheCorrection) {
  const Mesh<Space> mesh(cutCubes(3, false, 0.04));
  const double without =
      linearProfileError(mesh, DiffusionCorrection::None, CellGradient::LeastSquares);
  const double leastSquares = linearProfileError(mesh, DiffusionCorrection::OverRelaxed,
                                                 CellGradient::LeastSquares);
  const double gauss =
      linearProfileError(mesh, DiffusionCorrection::OverRelaxed, CellGradient::Gauss);
  std::printf(
      "  linear profile on tetrahedra: max error %.3e uncorrected, %.3e corrected "
      "(least squares), %.3e (Gauss)\n",
      without, leastSquares, gauss);
  EXPECT_GT(without, 1e-3);
  EXPECT_LT(leastSquares, tolerance(1e-9));
  EXPECT_LT(gauss, without);
}

/// L2 error on the distorted tetrahedra of cutCubes(n), Dirichlet values of the exact
/// solution on every side.
double manufacturedError(int n, DiffusionCorrection correction) {
  const Mesh<Space> mesh(cutCubes(n, false, 0.04));
  CellField<Space> D(mesh, "D"), s(mesh, "s"), phi(mesh, "phi");
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(1) + x * y * z; });
  setManufacturedSource3D(s, mesh);
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(s).diffusionCorrection(correction);
  const auto faces =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.boundaryFaces());
  const auto faceCentres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCentres());
  for (const auto& name : mesh.patchNames()) {
    const int patch = mesh.patchIndex(name);
    std::vector<Real> values;
    for (Ordinal i = 0; i < mesh.patchSize(patch); ++i) {
      const Ordinal f = faces(mesh.patchFirstSlot(patch) + i);
      values.push_back(
          Real(manufactured3D(faceCentres(f, 0), faceCentres(f, 1), faceCentres(f, 2))));
    }
    equation.boundary(name, BoundaryCondition::dirichlet(values));
  }
  const bool corrected = correction != DiffusionCorrection::None;
  const auto report = solveWithSweeps(equation, phi, corrected);
  EXPECT_TRUE(report.converged) << report.reason;
  if (corrected) EXPECT_GT(report.sweeps, 5);  // the sweeps, not one solve, converged
  return l2Error(phi, mesh, manufactured3D);
}

TEST(NonOrthogonal, ConvergesOnDistortedTetrahedraOnlyWithTheCorrection) {
  std::vector<double> corrected, uncorrected;
  const std::vector<int> sizes = {4, 8, 16, 24};  // 384 to 82944 tetrahedra
  for (int n : sizes) {
    corrected.push_back(manufacturedError(n, DiffusionCorrection::OverRelaxed));
    uncorrected.push_back(manufacturedError(n, DiffusionCorrection::None));
  }
  // Measured once at n = 32 (not run here: 7 s): order 1.955 from 24 to 32, 1.94 from
  // 16 to 32; the uncorrected error 5.7e-2.
  std::vector<double> orders, lost;
  for (std::size_t i = 1; i < corrected.size(); ++i) {
    const double ratio = std::log(double(sizes[i]) / sizes[i - 1]);
    orders.push_back(std::log(corrected[i - 1] / corrected[i]) / ratio);
    lost.push_back(std::log(uncorrected[i - 1] / uncorrected[i]) / ratio);
    std::printf(
        "  tetrahedra n = %d -> %d: L2 error %.3e -> %.3e (order %.3f) corrected, "
        "%.3e -> %.3e (order %.3f) uncorrected\n",
        sizes[i - 1], sizes[i], corrected[i - 1], corrected[i], orders.back(),
        uncorrected[i - 1], uncorrected[i], lost.back());
  }
  // Measured (Serial): 1.599, 1.844, 1.928: rising towards 2. In float the sweeps stop
  // at a residual of 1e-6 of ||b||, which the finest error (5e-4) feels.
  EXPECT_GE(orders[0], 1.5);
  EXPECT_GT(orders[1], orders[0]);
  EXPECT_GE(orders[2], sizeof(Real) == sizeof(double) ? 1.9 : 1.8);
  EXPECT_LT(corrected.back(), 0.05 * uncorrected.back());
  for (const double order : lost) EXPECT_LT(order, 0.5);  // no convergence without it
}

/// max |phi - (x + 2 y)| for div(Gamma grad phi) = 0 with phi = x + 2 y on the sides
/// (zero cross fluxes' divergence: the linear field is exact for any constant Gamma).
double tensorLinearError(const Mesh<Space>& mesh, CellGradient gradient) {
  const std::array<std::array<Real, 3>, 3> gamma{
      {{1.0, 0.6, 0}, {0.6, 0.5, 0}, {0, 0, 1}}};
  Equation<Space> equation(mesh);
  equation.diffusion(gamma).diffusionCorrection(DiffusionCorrection::OverRelaxed,
                                                gradient);
  const auto faces =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.boundaryFaces());
  const auto faceCentres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCentres());
  for (const auto& name : {"left", "right", "bottom", "top"}) {
    const int patch = mesh.patchIndex(name);
    std::vector<Real> values;
    for (Ordinal i = 0; i < mesh.patchSize(patch); ++i) {
      const Ordinal f = faces(mesh.patchFirstSlot(patch) + i);
      values.push_back(faceCentres(f, 0) + 2 * faceCentres(f, 1));
    }
    equation.boundary(name, BoundaryCondition::dirichlet(values));
  }
  return solveAndCompareWithLinear(equation, 1, 2);
}

TEST(NonOrthogonal, TensorDiffusionKeepsTheLinearFieldOnGridsAndTriangles) {
  const Mesh<Space> grid(CartesianGrid::uniform2D(6, 5, 1, 1));
  const Mesh<Space> triangles(crossedTriangles(5, 0).topology());
  for (const Mesh<Space>* mesh : {&grid, &triangles}) {
    EXPECT_LT(tensorLinearError(*mesh, CellGradient::LeastSquares), tolerance(1e-9))
        << (mesh == &grid ? "grid" : "triangles");
  }
  Equation<Space> equation(grid);
  expectError(
      [&] {
        equation.diffusion({{{1, 0.5, 0}, {0.4, 1, 0}, {0, 0, 1}}});
      },
      {"not symmetric", "[0][1] = 0.5"});
  expectError(
      [&] {
        equation.diffusion({{{1, 2, 0}, {2, 1, 0}, {0, 0, 1}}});
      },
      {"not positive definite", "2x2"});
}

}  // namespace
}  // namespace kfvm::Test
