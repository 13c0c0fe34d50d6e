// Periodic grids (FiPy's PeriodicGrid1D/2D/3D and the partly periodic ones): FiPy's
// connectivity and distances, a Fourier mode decaying exactly as the discrete operator
// says, a profile advected once around the domain, Cahn-Hilliard's mass, and the
// structured paths refusing.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

TEST(PeriodicGrid, ConnectivityAndDistancesAreFiPys) {
  // FiPy's PeriodicGrid1D(dx=(1, 2, 3)): the low face joins cell 2 to cell 0 at
  // distance (3 + 1) / 2 = 2; FiPy keeps a fourth, unused face that kfvm does not.
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0.0, 1.0, 3.0, 6.0}),
                         GridGeometry(Coordinates::Cartesian, {true, false, false}));
  EXPECT_TRUE(mesh.isPeriodic() && mesh.isPeriodic(0) && !mesh.isPeriodic(1));
  EXPECT_FALSE(mesh.isCartesian());
  ASSERT_EQ(mesh.numFaces(), 3);
  EXPECT_EQ(mesh.numBoundaryFaces(), 0);
  const auto cells =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCells());
  const Ordinal expected[3][2] = {{2, 0}, {0, 1}, {1, 2}};
  for (int f = 0; f < 3; ++f) {
    EXPECT_EQ(cells(f, 0), expected[f][0]) << "face " << f;
    EXPECT_EQ(cells(f, 1), expected[f][1]) << "face " << f;
  }
  const auto distances = toHost(mesh.faceDistances());
  EXPECT_EQ(distances, (std::vector<double>{2.0, 1.5, 2.5}));
  const auto shifts =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceShifts());
  EXPECT_EQ(shifts(0, 0), 6.0);
  EXPECT_EQ(shifts(1, 0), 0.0);
  const auto cellFaces = toHost(mesh.cellFaces());
  EXPECT_EQ(cellFaces[4], 2);  // cell 2: low face 2, high face 0 (the periodic one)
  EXPECT_EQ(cellFaces[5], 0);
  EXPECT_FALSE(mesh.hasPatch(Patch::Left));
  expectError([&] { (void)mesh.patchIndex("left"); }, {"unknown boundary patch 'left'"});
  EXPECT_FALSE(mesh.isCartesian());      // not every structured path takes periodic axes
  EXPECT_EQ(mesh.grid().numCells(), 3);  // the stencil and multigrid do
  // Periodic in x only: 3 x 2 cells have 3 * 2 faces normal to x and 3 * 3 normal to
  // y, the bottom and top patches 3 faces each.
  const Mesh<Space> leftRight(CartesianGrid::uniform2D(3, 2, 1.0, 1.0),
                              GridGeometry(Coordinates::Cartesian, {true, false, false}));
  EXPECT_EQ(leftRight.numFaces(), 15);
  EXPECT_EQ(leftRight.numBoundaryFaces(), 6);
  EXPECT_EQ(leftRight.patchSize(Patch::Bottom), 3);
  EXPECT_EQ(leftRight.patchSize(Patch::Left), 0);
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::uniform1D(1, 1.0),
                            GridGeometry(Coordinates::Cartesian, {true, false, false}));
      },
      {"a periodic axis needs 2 cells or more; axis 0 has 1"});
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::uniform1D(4, 1.0),
                            GridGeometry(Coordinates::Cartesian, {false, true, false}));
      },
      {"axis 1 of a 1D grid cannot be periodic"});
  expectError(
      [] {
        const Mesh<Space> m(CartesianGrid::uniform1D(4, 1.0),
                            GridGeometry(Coordinates::Cylindrical, {true, false, false}));
      },
      {"the radius of a cylindrical grid cannot be periodic"});
}

TEST(PeriodicGrid, AFourierModeDecaysAsTheDiscreteOperatorSays) {
  // sin(2 pi x / Lx) cos(4 pi y / Ly) is an eigenvector of the periodic 5-point
  // Laplacian, eigenvalue -(lx + ly), l = (2 - 2 cos(k h)) / h^2: each backward-Euler
  // step divides it by 1 + dt D (lx + ly).
  const int nx = 16, ny = 8, steps = 5;
  const double Lx = 2, Ly = 1, D = 0.3, dt = 0.01;
  const Mesh<Space> mesh(CartesianGrid::uniform2D(nx, ny, Lx, Ly),
                         GridGeometry(Coordinates::Cartesian, {true, true, false}));
  const double kx = 2 * pi / Lx, ky = 4 * pi / Ly, hx = Lx / nx, hy = Ly / ny;
  const double lambda =
      (2 - 2 * std::cos(kx * hx)) / (hx * hx) + (2 - 2 * std::cos(ky * hy)) / (hy * hy);
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  std::vector<double> mode(std::size_t(mesh.numCells()));
  for (std::size_t c = 0; c < mode.size(); ++c)
    mode[c] = std::sin(kx * centres(c, 0)) * std::cos(ky * centres(c, 1));
  Equation<Space> equation(mesh);
  equation.transient(Real(1)).diffusion(Real(D));
  // The assembled matrix, the matrix-free stencil and geometric multigrid (they wrap
  // around the axes too).
  for (const std::string how : {"matrix", "matrix-free", "matrix-free mg"}) {
    const bool matrixFree = how != "matrix";
    CellField<Space> phi(mesh, "phi");
    phi.fromHost(mode);
    ImplicitStepper<Space> stepper(
        equation,
        makeLinearSolver<Space>(
            "cg", {{"tolerance", solverToleranceText(1e-14)},
                   {"preconditioner", how == "matrix-free mg" ? "mg" : "jacobi"}}));
    stepper.setMatrixFree(matrixFree);
    for (int step = 0; step < steps; ++step) {
      const auto report = stepper.step(phi, Real(dt));
      ASSERT_TRUE(report.converged) << report.reason;
    }
    const double factor = std::pow(1 + dt * D * lambda, -steps);
    const auto values = toHost(phi.values());
    double error = 0;
    for (std::size_t c = 0; c < mode.size(); ++c)
      error = std::max(error, std::abs(values[c] - factor * mode[c]));
    std::printf(
        "  periodic Fourier mode after %d steps (%s): amplitude %.6f, max error "
        "%.3e\n",
        steps, how.c_str(), factor, error);
    EXPECT_LT(error, tolerance(1e-12));
  }
}

/// A box profile on [0.2, 0.4] advected with u = 1 once around the periodic unit
/// interval (500 implicit steps at Courant number 0.2); returns the values.
std::vector<double> advectOnce(ConvectionScheme scheme, double& mass0) {
  const int n = 100;
  const Mesh<Space> mesh(CartesianGrid::uniform1D(n, 1.0),
                         GridGeometry(Coordinates::Cartesian, {true, false, false}));
  std::vector<double> box(n);
  for (int i = 0; i < n; ++i)
    box[std::size_t(i)] = (i + 0.5) / n > 0.2 && (i + 0.5) / n < 0.4;
  CellField<Space> phi(mesh, "phi");
  phi.fromHost(box);
  mass0 = double(integrate(phi, mesh));
  Equation<Space> equation(mesh);
  equation.transient(Real(1)).convection(Real(1), Real(0), Real(0), scheme);
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-14)}}));
  stepper.setSweeps(30, Real(solverTolerance(1e-12)));
  for (int step = 0; step < 500; ++step) {
    const auto report = stepper.step(phi, Real(0.002));
    EXPECT_TRUE(report.converged) << report.reason;
  }
  std::vector<double> values = toHost(phi.values());
  values.push_back(double(integrate(phi, mesh)));
  return values;
}

TEST(PeriodicGrid, AProfileAdvectedAroundTheDomainReturnsWithinBounds) {
  for (const auto scheme : {ConvectionScheme::Upwind, ConvectionScheme::VanLeer}) {
    double mass0 = 0;
    std::vector<double> values = advectOnce(scheme, mass0);
    const double mass = values.back();
    values.pop_back();
    // The centre as the circular mean of the positions (the tails wrap around).
    double low = 1, high = 0, sine = 0, cosine = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      low = std::min(low, values[i]);
      high = std::max(high, values[i]);
      sine += values[i] * std::sin(2 * pi * (i + 0.5) / 100);
      cosine += values[i] * std::cos(2 * pi * (i + 0.5) / 100);
    }
    const double centre = std::atan2(sine, cosine) / (2 * pi);
    std::printf(
        "  advected once around (%s): mass drift %.3e, range [%.3e, %.4f], centre %.4f\n",
        scheme == ConvectionScheme::Upwind ? "upwind" : "van Leer",
        std::abs(mass - mass0) / mass0, low, high, centre);
    EXPECT_LT(std::abs(mass - mass0), tolerance(1e-12) * mass0);
    EXPECT_GT(low, -solverTolerance(1e-10));  // bounded: no undershoot, no overshoot
    EXPECT_LT(high, 1 + solverTolerance(1e-10));
    EXPECT_NEAR(centre, 0.3, 5e-3);  // back where it started, within half a cell
    EXPECT_GT(high, scheme == ConvectionScheme::Upwind ? 0.5 : 0.9);  // TVD keeps it
  }
}

TEST(PeriodicGrid, CahnHilliardConservesMass) {
  const int n = 24, steps = 40;
  const double length = 12, epsilon = 1, dt = 0.1;
  const Mesh<Space> mesh(CartesianGrid::uniform2D(n, n, length, length),
                         GridGeometry(Coordinates::Cartesian, {true, true, false}));
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(Real(1), Real(epsilon * epsilon),
                                            Polynomial{0, -1, 0, 1});
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<double> initial(std::size_t(mesh.numCells()));
  for (auto& value : initial) value = 0.1 + noise(random);
  CellField<Space> phi(mesh, "phi");
  phi.fromHost(initial);
  const bool inDouble = sizeof(Real) == sizeof(double);
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("gmres", {{"tolerance", inDouble ? "1e-13" : "1e-5"},
                                        {"max_iterations", "5000"},
                                        {"restart", "60"},
                                        {"preconditioner", "ilu0"}}));
  stepper.setSweeps(30, Real(inDouble ? 1e-11 : 1e-5));
  const double mass0 = double(integrate(phi, mesh));
  const double energy0 = cahnHilliardEnergy(mesh, initial, epsilon);
  double drift = 0;
  for (int step = 0; step < steps; ++step) {
    const auto report = stepper.step(phi, Real(dt));
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    drift = std::max(drift, std::abs(double(integrate(phi, mesh)) - mass0));
  }
  const double area = length * length;
  const double energy = cahnHilliardEnergy(mesh, toHost(phi.values()), epsilon);
  std::printf(
      "  periodic Cahn-Hilliard: mass drift %.3e of the area over %d steps, "
      "energy %.4f -> %.4f\n",
      drift / area, steps, energy0, energy);
  EXPECT_LT(drift / area, tolerance(1e-12));
  EXPECT_LT(energy, energy0);
}

}  // namespace
}  // namespace kfvm::Test
