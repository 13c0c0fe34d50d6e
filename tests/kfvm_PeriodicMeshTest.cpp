// Periodic patch pairs on general meshes (MeshTopology::addPeriodicPair): hexahedra
// joined left to right and back to front equal the periodic grid's steps; a periodic
// manufactured solution on distorted tetrahedra periodic along every axis converges at
// second order with the correction; transient diffusion there keeps its mass; a profile
// advected around periodic triangles stays within its bounds; bad pairs are named
// errors.
#include "kfvm_Manufactured.hpp"
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestMeshes.hpp"

#include <kfvm_CellPolygons.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_MeshQuality.hpp>
#include <kfvm_PointLocation.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Three implicit steps of a diffusion-convection equation with a coefficient field and
/// walls on the bottom and top; returns the cell values.
std::vector<double> stepMixed(const Mesh<Space>& mesh) {
  CellField<Space> phi(mesh, "phi"), D(mesh, "D");
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(1) + Real(0.5) * Compat::sin(Real(3) * x) * Compat::cos(y + z);
      });
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::cos(Real(2 * pi) * x) + y * z;
      });
  Equation<Space> equation(mesh);
  equation.transient(Real(1))
      .diffusion(D)
      .convection(Real(0.7), Real(0.2), Real(-0.4), ConvectionScheme::PowerLaw)
      .source(Real(0.3))
      .boundary("bottom", BoundaryCondition::dirichlet(1.0))
      .boundary("top", BoundaryCondition::neumann(-0.5));
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-13)},
                                        {"max_iterations", "2000"}}));
  for (int step = 0; step < 3; ++step) {
    const auto report = stepper.step(phi, Real(0.01));
    EXPECT_TRUE(report.converged) << report.reason;
  }
  return toHost(phi.values());
}

// Hexahedra on stretched vertices with left-right and back-front joined are the grid
// periodic along x and z: the same volumes, and three steps with a coefficient field,
// convection and walls give the grid's values to round-off.
TEST(PeriodicMesh, JoinedHexahedraEqualThePeriodicGrid) {
  const std::vector<double> xs = {0, 0.1, 0.3, 0.45, 0.75, 1.0};
  const std::vector<double> ys = {0, 0.4, 0.5, 0.7, 1.0};
  const std::vector<double> zs = {0, 0.3, 0.4, 0.6};
  auto topology = hexahedra(xs, ys, zs).topology();
  topology.addPeriodicPair("left", "right");
  topology.addPeriodicPair("back", "front");
  const Mesh<Space> general(topology);
  const Mesh<Space> grid(CartesianGrid::fromVertices(xs, ys, zs),
                         GridGeometry(Coordinates::Cartesian, {true, false, true}));
  ASSERT_EQ(general.numCells(), grid.numCells());
  EXPECT_EQ(general.numFaces(), grid.numFaces());
  EXPECT_EQ(general.numBoundaryFaces(), grid.numBoundaryFaces());
  EXPECT_EQ(general.faceShifts().extent(0), std::size_t(general.numFaces()));
  expectError([&] { (void)general.patchIndex("left"); },
              {"unknown boundary patch 'left'", "bottom", "top"});
  EXPECT_LT(maxDifference(toHost(general.cellVolumes()), toHost(grid.cellVolumes())),
            tolerance(1e-15));
  const auto onGeneral = stepMixed(general), onGrid = stepMixed(grid);
  const double difference = maxDifference(onGeneral, onGrid);
  std::printf("  joined hexahedra against the periodic grid: %.3e\n", difference);
  EXPECT_LT(difference, tolerance(1e-12) * largestMagnitude(onGrid));
  // The joined faces are orthogonal: no angle, no skew.
  const auto quality = meshQuality(general);
  EXPECT_LT(quality.maxNonOrthogonality, sizeof(Real) == sizeof(double) ? 1e-6 : 1e-2);
}

/// L2 error of -div grad phi + phi = f on cutCubes(n) periodic along every axis, phi
/// periodic: cos(2 pi x) + 0.5 sin(2 pi y) + 0.25 cos(2 pi z) + 0.2 sin(2 pi (x + z)).
double periodicManufacturedError(int n, DiffusionCorrection correction) {
  auto topology = cutCubes(n, false, 0.04);
  topology.addPeriodicPair("left", "right");
  topology.addPeriodicPair("bottom", "top");
  topology.addPeriodicPair("back", "front");
  const Mesh<Space> mesh(topology);
  EXPECT_EQ(mesh.numBoundaryFaces(), 0);
  const auto exact = [](double x, double y, double z) {
    return std::cos(2 * pi * x) + 0.5 * std::sin(2 * pi * y) +
           0.25 * std::cos(2 * pi * z) + 0.2 * std::sin(2 * pi * (x + z));
  };
  CellField<Space> s(mesh, "s"), phi(mesh, "phi");
  setFromCellCentres(
      s, mesh, KOKKOS_LAMBDA(Real xr, Real yr, Real zr) {
        const double x = xr, y = yr, z = zr, k = 2 * pi;
        const double a =
            Compat::cos(k * x) + 0.5 * Compat::sin(k * y) + 0.25 * Compat::cos(k * z);
        const double b = 0.2 * Compat::sin(k * (x + z));
        return Real((1 + k * k) * a + (1 + 2 * k * k) * b);
      });
  Equation<Space> equation(mesh);
  equation.diffusion(Real(1)).implicitSource(Real(-1)).source(s).diffusionCorrection(
      correction);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", "1e-2"},
                                               {"criterion", "initial"},
                                               {"max_iterations", "5000"}}));
  // In float the sweeps' residual stops near 5e-6 of ||b|| on this problem (round-off of
  // its sum of fluxes), above solverTolerance's 1e-6.
  stepper.setSweeps(200, Real(sizeof(Real) == sizeof(double) ? 1e-11 : 2e-5));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return l2Error(phi, mesh, exact);
}

TEST(PeriodicMesh, DistortedTetrahedraPeriodicAlongEveryAxisConvergeAtSecondOrder) {
  const std::vector<int> sizes = {4, 8, 16};
  std::vector<double> errors;
  for (const int n : sizes)
    errors.push_back(periodicManufacturedError(n, DiffusionCorrection::OverRelaxed));
  std::vector<double> orders;
  for (std::size_t i = 1; i < errors.size(); ++i) {
    orders.push_back(std::log2(errors[i - 1] / errors[i]));
    std::printf(
        "  periodic tetrahedra n = %d -> %d: L2 error %.3e -> %.3e (order %.3f)\n",
        sizes[i - 1], sizes[i], errors[i - 1], errors[i], orders.back());
  }
  EXPECT_GE(orders.back(), sizeof(Real) == sizeof(double) ? 1.8 : 1.6);
  // Without the correction the error does not fall (the faces are not orthogonal).
  const double uncorrected = periodicManufacturedError(8, DiffusionCorrection::None);
  std::printf("  without the correction at n = 8: %.3e\n", uncorrected);
  EXPECT_GT(uncorrected, 3 * errors[1]);
}

/// A Gaussian near x = 0.1, y = 0.9 (across both joined pairs) and a periodic
/// diffusivity (device lambdas outside a test body: nvcc refuses them there).
void setGaussianAndDiffusivity(CellField<Space>& phi, CellField<Space>& D,
                               const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::exp(-Real(20) * ((x - Real(0.1)) * (x - Real(0.1)) +
                                        (y - Real(0.9)) * (y - Real(0.9)) +
                                        (z - Real(0.5)) * (z - Real(0.5))));
      });
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) {
        return Real(1) +
               Real(0.5) * Compat::sin(Real(2 * pi) * x) * Compat::cos(Real(2 * pi) * y);
      });
}

/// 1 for 0.2 < x < 0.45, 0 elsewhere.
void setBox(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real, Real) {
        return x > Real(0.2) && x < Real(0.45) ? Real(1) : Real(0);
      });
}

// Transient diffusion with a coefficient field on distorted tetrahedra periodic in x and
// y (walls at z = 0 and 1, zero flux): the fluxes through the joined faces balance, and
// the total stays to round-off.
TEST(PeriodicMesh, TransientDiffusionAcrossJoinedFacesKeepsItsMass) {
  auto topology = cutCubes(6, false, 0.04);
  topology.addPeriodicPair("left", "right");
  topology.addPeriodicPair("bottom", "top");
  const Mesh<Space> mesh(topology);
  CellField<Space> phi(mesh, "phi"), D(mesh, "D");
  setGaussianAndDiffusivity(phi, D, mesh);
  const double mass0 = double(integrate(phi, mesh));
  Equation<Space> equation(mesh);
  equation.transient(Real(1)).diffusion(D).diffusionCorrection(
      DiffusionCorrection::OverRelaxed);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-14)},
                                               {"max_iterations", "2000"}}));
  stepper.setSweeps(50, Real(solverTolerance(1e-12)));
  for (int step = 0; step < 5; ++step) {
    const auto report = stepper.step(phi, Real(0.01));
    ASSERT_TRUE(report.converged) << report.reason;
  }
  const double drift = std::abs(double(integrate(phi, mesh)) - mass0) / mass0;
  const auto values = toHost(phi.values());
  std::printf("  periodic tetrahedra: mass drift %.3e over 5 steps, range [%.4f, %.4f]\n",
              drift, *std::min_element(values.begin(), values.end()),
              *std::max_element(values.begin(), values.end()));
  EXPECT_LT(drift, tolerance(1e-12));
}

// A box profile advected once around triangles periodic in x (u = (1, 0), walls at
// y = 0 and 1) by upwind: its mass is kept, it stays within [0, 1], and its centre
// comes back to where it started.
TEST(PeriodicMesh, AProfileAdvectedAroundPeriodicTrianglesReturnsWithinBounds) {
  auto topology = crossedTriangles(16, 0).topology();
  topology.addPeriodicPair("left", "right");
  const Mesh<Space> mesh(topology);
  CellField<Space> phi(mesh, "phi");
  setBox(phi, mesh);
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  const auto volumes = toHost(mesh.cellVolumes());
  const auto centreOf = [&](const std::vector<double>& v) {
    double moment = 0, total = 0;  // around the circle x -> angle
    double sx = 0, cx = 0;
    for (std::size_t c = 0; c < v.size(); ++c) {
      sx += v[c] * volumes[c] * std::sin(2 * pi * centres(c, 0));
      cx += v[c] * volumes[c] * std::cos(2 * pi * centres(c, 0));
      total += v[c] * volumes[c];
    }
    moment = std::atan2(sx, cx) / (2 * pi);
    return moment < 0 ? moment + 1 : moment;
  };
  const double mass0 = double(integrate(phi, mesh));
  const double start = centreOf(toHost(phi.values()));
  Equation<Space> equation(mesh);
  equation.transient(Real(1)).convection(Real(1), Real(0), Real(0),
                                         ConvectionScheme::Upwind);
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-13)},
                                        {"max_iterations", "2000"}}));
  for (int step = 0; step < 100; ++step) {
    const auto report = stepper.step(phi, Real(0.01));
    ASSERT_TRUE(report.converged) << report.reason;
  }
  const auto values = toHost(phi.values());
  const double low = *std::min_element(values.begin(), values.end());
  const double high = *std::max_element(values.begin(), values.end());
  const double drift = std::abs(double(integrate(phi, mesh)) - mass0) / mass0;
  const double end = centreOf(values);
  std::printf(
      "  advected once around periodic triangles: mass drift %.3e, range [%.3e, "
      "%.4f], centre %.4f -> %.4f\n",
      drift, low, high, start, end);
  EXPECT_LT(drift, tolerance(1e-12));
  EXPECT_GE(low, -tolerance(1e-12));
  EXPECT_LE(high, 1 + tolerance(1e-12));
  EXPECT_NEAR(end, start, 0.5 / 16);  // half a cell
  // Output and probes see each cell where it is: the right side's triangles have their
  // own nodes on the joined faces (polygons cover the square once), and a point by the
  // right side lies in a cell there.
  double area = 0;
  for (const auto& polygon : cellPolygons(mesh)) {
    ASSERT_EQ(polygon.size(), 3u);
    double twice = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& p = polygon[k];
      const auto& q = polygon[(k + 1) % 3];
      twice += p[0] * q[1] - q[0] * p[1];
    }
    area += std::abs(twice) / 2;
  }
  EXPECT_NEAR(area, 1.0, tolerance(1e-12));
  for (const double x : {0.001, 0.999}) {
    const Ordinal cell = cellContaining(mesh, {x, 0.37, 0});
    ASSERT_GE(cell, 0) << x;
    EXPECT_NEAR(centres(cell, 0), x, 1.0 / 16) << x;
  }
}

TEST(PeriodicMesh, BadPairsAreNamedErrors) {
  const std::vector<double> xs = {0, 0.5, 1.0}, ys = {0, 0.4, 0.7, 1.0}, zs = {0, 1.0};
  const auto msh = hexahedra(xs, ys, zs);
  {
    auto topology = msh.topology();
    topology.addPeriodicPair("left", "outlet");
    expectError([&] { (void)topology.connect(); },
                {"no patch 'outlet'", "'left'", "'front'"});
  }
  {
    auto topology = msh.topology();
    expectError([&] { topology.addPeriodicPair("left", "left"); },
                {"two different patch names"});
    topology.addPeriodicPair("left", "right");
    expectError([&] { topology.addPeriodicPair("right", "top"); },
                {"'right' is already in the periodic pair"});
  }
  {
    auto topology = msh.topology();  // left: 3 faces, bottom: 2
    topology.addPeriodicPair("left", "bottom");
    expectError([&] { (void)Mesh<Space>(topology); },
                {"periodic pair ('left', 'bottom')", "3 and 2 faces"});
  }
  {
    auto moved = msh;  // one node of the right side moved along y: no image there
    for (auto& node : moved.nodes)
      if (node[0] == 1.0 && node[1] == 0.4) node[1] = 0.45;
    auto topology = moved.topology();
    topology.addPeriodicPair("left", "right");
    expectError([&] { (void)Mesh<Space>(topology); },
                {"periodic pair ('left', 'right')", "of 'right' centred at",
                 "has no face of 'left'"});
  }
}

/// The faces of a connectivity's patch.
Ordinal patchFaces(const MeshTopology::Connectivity& c, const std::string& name) {
  const auto found = std::find(c.patchNames.begin(), c.patchNames.end(), name);
  return found == c.patchNames.end()
             ? -1
             : c.patchSizes[std::size_t(found - c.patchNames.begin())];
}

TEST(PeriodicMesh, PartsKeepTheJoinedFacesBetweenTheirCells) {
  // 2 x 3 hexahedra joined left to right: cells 0 and 1 (the bottom row) meet twice, at
  // x = 0.5 and across the joined sides.
  const auto msh = hexahedra({0, 0.5, 1.0}, {0, 0.4, 0.7, 1.0}, {0, 1.0});
  auto topology = msh.topology();
  topology.addPeriodicPair("left", "right");
  const auto connectivity = topology.connect();
  const auto shifted = [](const MeshTopology::Connectivity& c) {
    int count = 0;
    for (const auto& shift : c.faceShifts)
      if (shift[0] != 0 || shift[1] != 0 || shift[2] != 0) {
        EXPECT_DOUBLE_EQ(std::abs(shift[0]), 1.0);
        ++count;
      }
    return count;
  };
  ASSERT_EQ(shifted(connectivity), 3);
  // Both cells kept: the joined face stays one face between them, the sides are gone.
  const auto row = topology.part({0, 1}, connectivity, "kfvm:ranks").connect();
  EXPECT_EQ(shifted(row), 1);
  EXPECT_EQ(row.faceCells.size(), 10u);  // 2 x 6, one shared at x = 0.5, one joined
  EXPECT_EQ(patchFaces(row, "left"), -1);
  EXPECT_EQ(patchFaces(row, "kfvm:ranks"), 2);  // their tops
  // One cell: both its x faces lead to cell 1, left out: cut.
  const auto one = topology.part({0}, connectivity, "kfvm:ranks").connect();
  EXPECT_EQ(shifted(one), 0);
  EXPECT_EQ(patchFaces(one, "kfvm:ranks"), 3);
  EXPECT_EQ(one.patchNames, row.patchNames);
  // Every cell: the whole mesh's faces and patches again.
  const auto all =
      topology.part({0, 1, 2, 3, 4, 5}, connectivity, "kfvm:ranks").connect();
  EXPECT_EQ(shifted(all), 3);
  EXPECT_EQ(all.faceCells.size(), connectivity.faceCells.size());
  EXPECT_EQ(patchFaces(all, "kfvm:ranks"), 0);
}

}  // namespace
}  // namespace kfvm::Test
