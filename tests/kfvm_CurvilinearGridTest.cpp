// Grids in cylindrical and spherical coordinates (FiPy's CylindricalGrid1D/2D and
// SphericalGrid1D): FiPy's geometry computed by hand, steady radial diffusion against
// its exact solutions at second order, conservation, and the structured paths refusing.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

void expectValues(const std::vector<double>& actual, const std::vector<double>& expected,
                  const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance(1e-14) * (1 + std::abs(expected[i])))
        << what << " " << i;
}

TEST(CurvilinearGrid, GeometryIsFiPys) {
  // r vertices 1, 1.5, 2.5: cell centres 1.25 and 2, widths 0.5 and 1.
  const auto radial = CartesianGrid::fromVertices({1.0, 1.5, 2.5});
  const Mesh<Space> cylinder(radial, Coordinates::Cylindrical);
  expectValues(toHost(cylinder.cellVolumes()), {0.5 * 1.25, 1.0 * 2.0}, "volumes");
  expectValues(toHost(cylinder.faceAreas()), {1.0, 1.5, 2.5}, "areas");
  expectValues(toHost(cylinder.faceDistances()), {0.25, 0.75, 0.5}, "distances");
  const Mesh<Space> sphere(radial, Coordinates::Spherical);
  expectValues(toHost(sphere.cellVolumes()), {0.5 * 1.5625, 1.0 * 4.0}, "volumes");
  expectValues(toHost(sphere.faceAreas()), {1.0, 2.25, 6.25}, "areas");
  // r-z: r vertices 0, 1, 3 and z vertices 0, 2. Faces normal to r first (r = 0, 1, 3),
  // then those normal to z (z = 0 under each cell, then z = 2).
  const Mesh<Space> rz(CartesianGrid::fromVertices({0.0, 1.0, 3.0}, {0.0, 2.0}),
                       Coordinates::Cylindrical);
  expectValues(toHost(rz.cellVolumes()), {1 * 2 * 0.5, 2 * 2 * 2.0}, "volumes");
  expectValues(toHost(rz.faceAreas()), {0.0, 2.0, 6.0, 0.5, 4.0, 0.5, 4.0}, "areas");
  EXPECT_EQ(rz.coordinates(), Coordinates::Cylindrical);
}

TEST(CurvilinearGrid, StructuredPathsRefuseAndTheGridLayoutRemains) {
  const Mesh<Space> mesh(CartesianGrid::uniform2D(4, 3, 1.0, 1.0),
                         Coordinates::Cylindrical);
  EXPECT_FALSE(mesh.isCartesian());
  EXPECT_TRUE(mesh.hasGridLayout());
  EXPECT_EQ(mesh.gridLayout().cellCounts(), (std::array<int, 3>{4, 3, 1}));
  EXPECT_EQ(mesh.patchSize(Patch::Left), 3);
  EXPECT_EQ(mesh.patchIndex("top"), int(Patch::Top));
  expectError([&] { (void)mesh.grid(); }, {"cylindrical coordinates"});
  expectError([&] { (void)mesh.cellCounts(); }, {"cylindrical coordinates"});
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::fromVertices({-1.0, 0.0, 1.0}),
                            Coordinates::Cylindrical);
      },
      {"radius starts at r = -1"});
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::uniform3D(2, 2, 2, 1, 1, 1),
                            Coordinates::Cylindrical);
      },
      {"a cylindrical grid is 1D (r) or 2D (r, z), got 3D"});
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::uniform2D(2, 2, 1, 1), Coordinates::Spherical);
      },
      {"a spherical grid is 1D (r), got 2D"});
}

/// Max |phi - exact| at the cell centres for steady diffusion on n cells of r in [1, 2],
/// phi = 0 at r = 1 and 1 at r = 2 (cylindrical: ln r / ln 2; spherical:
/// (1 - 1/r) / (1 - 1/2)).
double radialError(int n, Coordinates coordinates, int dimension) {
  std::vector<double> rs(std::size_t(n) + 1);
  for (int i = 0; i <= n; ++i) rs[std::size_t(i)] = 1.0 + double(i) / n;
  const CartesianGrid grid = dimension == 1
                                 ? CartesianGrid::fromVertices(rs)
                                 : CartesianGrid::fromVertices(rs, {0.0, 0.5, 1.0});
  const Mesh<Space> mesh(grid, coordinates);
  Equation<Space> equation(mesh);
  equation.diffusion(Real(1))
      .boundary("left", BoundaryCondition::dirichlet(0))
      .boundary("right", BoundaryCondition::dirichlet(1));
  CellField<Space> phi(mesh, "phi");
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-14)},
                                               {"max_iterations", "5000"}}));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  const auto values = toHost(phi.values());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  double error = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double r = centres(c, 0);
    const double exact = coordinates == Coordinates::Cylindrical
                             ? std::log(r) / std::log(2.0)
                             : (1 - 1 / r) / 0.5;
    error = std::max(error, std::abs(values[std::size_t(c)] - exact));
  }
  return error;
}

TEST(CurvilinearGrid, SteadyRadialDiffusionConvergesAtSecondOrder) {
  for (const auto& [coordinates, dimension] :
       {std::pair{Coordinates::Cylindrical, 1}, std::pair{Coordinates::Cylindrical, 2},
        std::pair{Coordinates::Spherical, 1}}) {
    const double coarse = radialError(16, coordinates, dimension);
    const double fine = radialError(32, coordinates, dimension);
    const double order = std::log2(coarse / fine);
    std::printf("  %s %dD: max error %.3e (16 cells) -> %.3e (32), order %.3f\n",
                coordinatesName(coordinates), dimension, coarse, fine, order);
    EXPECT_LT(coarse, 2e-3);
    EXPECT_GT(order, 1.9);
  }
}

TEST(CurvilinearGrid, ZeroFluxDiffusionConservesTheVolumeIntegral) {
  // A step in r from the axis (r = 0, where the face has no area) diffuses in a closed
  // cylinder: the integral of phi over the cells' volumes stays.
  const Mesh<Space> mesh(CartesianGrid::uniform2D(24, 8, 1.0, 1.0),
                         Coordinates::Cylindrical);
  Equation<Space> equation(mesh);
  equation.transient(Real(1)).diffusion(Real(0.1));
  CellField<Space> phi(mesh, "phi");
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  std::vector<double> step(std::size_t(mesh.numCells()));
  for (std::size_t c = 0; c < step.size(); ++c)
    step[c] = centres(c, 0) < 0.4 && centres(c, 1) < 0.5 ? 1.0 : 0.0;
  phi.fromHost(step);
  const double before = double(integrate(phi, mesh));
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-14)}}));
  for (int step = 0; step < 10; ++step) {
    const auto report = stepper.step(phi, Real(0.01));
    ASSERT_TRUE(report.converged) << report.reason;
  }
  const double after = double(integrate(phi, mesh));
  EXPECT_NEAR(after, before, tolerance(1e-12) * before);
  // Cells up to r = 10/24 and z = 1/2: (10/24)^2 / 2 * 1/2 per radian (the midpoint rule
  // integrates r exactly), not the flat 10/24 * 1/2.
  EXPECT_NEAR(before, 0.25 * (10.0 / 24) * (10.0 / 24), tolerance(1e-14));
}

}  // namespace
}  // namespace kfvm::Test
