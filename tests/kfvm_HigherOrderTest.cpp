// The fourth-order DiffusionTerm: its matrix against a hand-computed one, the theta
// scheme's explicit half, and FiPy's tanh1D Cahn-Hilliard case. Cahn-Hilliard 2D in this
// form is kfvm_CahnHilliardTest.cpp.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_ExplicitStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_StencilOperator.hpp>

#include <cmath>
#include <random>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

// 5 cells of width 1/2, D = 2, kappa = 1/2, g = 3 phi, zero flux everywhere, rho = 1,
// backward Euler with dt = 1/2. With T the zero-flux second-difference matrix (rows
// [1 -1], [-1 2 -1], ..., [-1 1]): K_D = (D / h) T = 4 T, V^-1 K_kappa = (kappa / h^2) T
// = 2 T, so theta K_D M = 4 T (3 I + 2 T) = 8 T^2 + 12 T, plus V / dt = 1 on the
// diagonal.
TEST(HigherOrder, MatrixEqualsTheHandComputedProductOfTheTwoOperators) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(5, 2.5));
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(2.0, 0.5, Polynomial{0, 3});
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  old.fromHost({1, 2, 3, 4, 5});
  Vector<Space> rhs("rhs", 5);
  assembler.assemble(2.0, 1.0, old, rhs);
  const std::vector<std::vector<double>> T2 = {{2, -3, 1, 0, 0},
                                               {-3, 6, -4, 1, 0},
                                               {1, -4, 6, -4, 1},
                                               {0, 1, -4, 6, -3},
                                               {0, 0, 1, -3, 2}};
  const std::vector<std::vector<double>> T = {{1, -1, 0, 0, 0},
                                              {-1, 2, -1, 0, 0},
                                              {0, -1, 2, -1, 0},
                                              {0, 0, -1, 2, -1},
                                              {0, 0, 0, -1, 1}};
  const auto A = assembler.matrix().toDenseHost();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      const double expected = 8 * T2[i][j] + 12 * T[i][j] + (i == j ? 1 : 0);
      EXPECT_NEAR(A[i][j], expected, tolerance(1e-12)) << "entry " << i << ", " << j;
    }
  }
  EXPECT_EQ(assembler.matrix().numEntries(), Offset(5 + 2 * 4 + 2 * 3));  // pentadiagonal
  EXPECT_LT(maxDifference(toHost(rhs), {1, 2, 3, 4, 5}), tolerance(1e-12));
  EXPECT_LT(maxDifference(toHost(assembler.diagonal()), {29, 73, 73, 73, 29}),
            tolerance(1e-12));
}

// The same 5 cells with D and kappa per cell: on an interior face each is the harmonic
// mean of its two cells' values (equal spacing: 2 a b / (a + b)). With the face weights
// w_f, W(w) is the zero-flux matrix of sum_f w_f (e_i - e_j)(e_i - e_j)^T; then
// K_D = W(D_f) / h, V^-1 K_kappa = W(kappa_f) / h^2, and the matrix is
// V / dt I + K_D (3 I + V^-1 K_kappa), built here with dense loops.
TEST(HigherOrder, CellCoefficientsGiveTheProductWithHarmonicFaceValues) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(5, 2.5));
  const double h = 0.5;
  const std::vector<double> D = {2, 1, 4, 0.5, 3}, kappa = {0.5, 2, 1, 1, 0.25};
  CellField<Space> mobility(mesh, "D"), gradientEnergy(mesh, "kappa");
  mobility.fromHost(D);
  gradientEnergy.fromHost(kappa);
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(mobility, gradientEnergy, Polynomial{0, 3});
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  old.fromHost({1, 2, 3, 4, 5});
  Vector<Space> rhs("rhs", 5);
  assembler.assemble(2.0, 1.0, old, rhs);
  using Dense = std::vector<std::vector<double>>;
  auto weighted = [](const std::vector<double>& c, double scale) {
    Dense W(5, std::vector<double>(5, 0.0));
    for (int i = 0; i + 1 < 5; ++i) {  // the face between cells i and i + 1
      const double w = scale * 2 * c[i] * c[i + 1] / (c[i] + c[i + 1]);
      W[i][i] += w;
      W[i + 1][i + 1] += w;
      W[i][i + 1] -= w;
      W[i + 1][i] -= w;
    }
    return W;
  };
  const Dense KD = weighted(D, 1 / h), Lk = weighted(kappa, 1 / (h * h));
  const auto A = assembler.matrix().toDenseHost();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      double expected = i == j ? 1 : 0;  // V / dt
      for (int k = 0; k < 5; ++k) expected += KD[i][k] * ((k == j ? 3 : 0) + Lk[k][j]);
      EXPECT_NEAR(A[i][j], expected, tolerance(1e-12)) << "entry " << i << ", " << j;
    }
  }
  EXPECT_LT(maxDifference(toHost(rhs), {1, 2, 3, 4, 5}), tolerance(1e-12));
}

// Fields holding one value everywhere give the numbers' matrix and right-hand side, with
// Dirichlet, Neumann and Robin sides on both operators (the boundary faces take their
// cell's value) in 2D, under Crank-Nicolson. A negative field value is an error naming
// it, when set and (changed afterwards) when the assembler is built.
TEST(HigherOrder, ConstantCellCoefficientsEqualTheNumbers) {
  Mesh<Space> mesh(CartesianGrid::uniform2D(4, 3, 1.0, 0.75));
  auto build = [&](Equation<Space>& equation) -> Equation<Space>& {
    return equation.transient()
        .boundary(Patch::Left, BoundaryCondition::dirichlet(0.5))
        .boundary(Patch::Top, BoundaryCondition::robin(1, 0.2, 0.3))
        .higherOrderBoundary(Patch::Right, BoundaryCondition::dirichlet(-0.2))
        .higherOrderBoundary(Patch::Bottom, BoundaryCondition::neumann(0.4));
  };
  CellField<Space> mobility(mesh, "D"), gradientEnergy(mesh, "kappa");
  mobility.fromHost(std::vector<double>(12, 0.7));
  gradientEnergy.fromHost(std::vector<double>(12, 0.3));
  const Polynomial g{0.1, -1, 0, 1};
  Equation<Space> numbers(mesh), fields(mesh);
  build(numbers).higherOrderDiffusion(0.7, 0.3, g);
  build(fields).higherOrderDiffusion(mobility, gradientEnergy, g);
  Assembler<Space> byNumbers(numbers), byFields(fields);
  CellField<Space> old(mesh, "old");
  std::vector<double> start(12);
  for (std::size_t c = 0; c < start.size(); ++c) start[c] = std::sin(1.0 + double(c));
  old.fromHost(start);
  Vector<Space> rhsNumbers("rhsNumbers", 12), rhsFields("rhsFields", 12);
  byNumbers.assemble(4.0, 0.5, old, rhsNumbers);
  byFields.assemble(4.0, 0.5, old, rhsFields);
  const auto a = byNumbers.matrix().toDenseHost(), b = byFields.matrix().toDenseHost();
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a.size(); ++j) {
      scale = std::max(scale, std::abs(double(a[i][j])));
      worst = std::max(worst, std::abs(double(a[i][j]) - double(b[i][j])));
    }
  EXPECT_GT(scale, 1.0);
  EXPECT_LT(worst, tolerance(1e-13) * scale);
  EXPECT_LT(maxDifference(toHost(rhsNumbers), toHost(rhsFields)), tolerance(1e-12));

  std::vector<double> negative(12, 0.3);
  negative[5] = -0.1;
  CellField<Space> bad(mesh, "bad");
  bad.fromHost(negative);
  Equation<Space> refused(mesh);
  expectError([&] { refused.higherOrderDiffusion(mobility, bad, g); },
              {"higher-order diffusion kappa", "cell 5", "-0.1"});
  gradientEnergy.fromHost(negative);  // the equation holds the field: checked again
  expectError([&] { Assembler<Space> again(fields); },
              {"higher-order diffusion kappa", "cell 5"});
}

/// A x - rhs with the matrix and right-hand side the assembler last built.
std::vector<double> residualOf(const Assembler<Space>& assembler,
                               const std::vector<double>& x, const Vector<Space>& rhs) {
  const auto A = assembler.matrix().toDenseHost();
  const auto b = toHost(rhs);
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    r[i] = -b[i];
    for (std::size_t j = 0; j < x.size(); ++j) r[i] += A[i][j] * x[j];
  }
  return r;
}

// Assembled around phi* = phiOld, the Crank-Nicolson residual at phiOld is -L(phiOld),
// the spatial term itself, which a steady assembly around phiOld gives too: checks the
// explicit half, the Newton constant and the boundary parts of both operators.
TEST(HigherOrder, CrankNicolsonOldHalfEqualsTheSpatialTerm) {
  Mesh<Space> mesh(CartesianGrid::uniform2D(6, 5, 1.2, 1.0));
  Equation<Space> equation(mesh);
  equation.transient(2.0)
      .higherOrderDiffusion(0.7, 0.3, Polynomial{0.1, -1, 0, 1})
      .diffusion(0.4)
      .boundary(Patch::Left, BoundaryCondition::dirichlet(0.5))
      .boundary(Patch::Top, BoundaryCondition::robin(1, 0.2, 0.3))
      .higherOrderBoundary(Patch::Right, BoundaryCondition::dirichlet(-0.2))
      .higherOrderBoundary(Patch::Bottom, BoundaryCondition::neumann(0.4));
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> values(mesh.numCells());
  for (auto& v : values) v = uniform(random);
  CellField<Space> old(mesh, "old");
  old.fromHost(values);
  Vector<Space> rhs("rhs", mesh.numCells());
  Assembler<Space> assembler(equation);
  assembler.assemble(0.0, 1.0, old, rhs);
  const auto steady = residualOf(assembler, values, rhs);
  assembler.assemble(5.0, 0.5, old, rhs);
  const auto crankNicolson = residualOf(assembler, values, rhs);
  double scale = 0;
  for (double r : steady) scale = std::max(scale, std::abs(r));
  EXPECT_GT(scale, 1.0);
  EXPECT_LT(maxDifference(steady, crankNicolson), tolerance(1e-12) * scale);
}

// FiPy's examples/cahnHilliard/tanh1D: L = 40, nx = 1000, a^2 = 1, eps = 1, D = 1,
// phi = 1/2 on the left and 1 on the right, laplacian(phi) = 0 on both ends (mu = 0
// there, since f'(1/2) = f'(1) = 0); 100 steps with dt = min(10, exp(-5 + k / 2)) from
// phi = 1. Exact: phi = 1 / (1 + exp(-a x / eps)); FiPy checks atol 1e-4.
TEST(HigherOrder, CahnHilliardTanh1DMatchesTheAnalyticalProfile) {
  if (sizeof(Real) != sizeof(double))
    GTEST_SKIP() << "the fourth-order matrix at h = 0.04 has a condition number near "
                    "1e12: float cannot hold FiPy's 1e-4 (measured: 0.35 error)";
  const int nx = 1000;
  const double length = 40;
  Mesh<Space> mesh(CartesianGrid::uniform1D(nx, length));
  Equation<Space> equation(mesh);
  equation.transient()
      .higherOrderDiffusion(1.0, 1.0,
                            Polynomial{0, 1, -3, 2})  // f' of a^2/2 phi^2(1-phi)^2
      .boundary(Patch::Left, BoundaryCondition::dirichlet(0.5))
      .boundary(Patch::Right, BoundaryCondition::dirichlet(1.0))
      .higherOrderBoundary(Patch::Left, BoundaryCondition::dirichlet(0.0))
      .higherOrderBoundary(Patch::Right, BoundaryCondition::dirichlet(0.0));
  CellField<Space> phi(mesh, "phi");
  phi.fill(1.0);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("gmres", {{"preconditioner", "ilu0"},
                                                  {"tolerance", "1e-12"},
                                                  {"max_iterations", "200"}}));
  stepper.setSweeps(20, Real(1e-10));
  int maxSweeps = 0, maxIterations = 0;
  double exponent = -5;
  for (int step = 0; step < 100; ++step) {
    const auto report = stepper.step(phi, Real(std::min(10.0, std::exp(exponent))));
    exponent += 0.5;
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    maxSweeps = std::max(maxSweeps, report.sweeps);
    maxIterations = std::max(maxIterations, report.iterations);
  }
  const auto values = toHost(phi.values());
  double maxError = 0;
  for (int c = 0; c < nx; ++c) {
    const double x = (c + 0.5) * length / nx;
    maxError = std::max(maxError, std::abs(values[c] - 1 / (1 + std::exp(-x))));
  }
  std::printf(
      "tanh1D: max error %.3e (FiPy's bound 1e-4), at most %d sweeps and %d "
      "GMRES iterations per solve\n",
      maxError, maxSweeps, maxIterations);
  EXPECT_LT(maxError, 1e-4);
}

TEST(HigherOrder, BadCoefficientsAndUnsupportedUsesAreErrors) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(8, 1.0));
  Equation<Space> equation(mesh);
  expectError([&] { equation.higherOrderDiffusion(-1.0, 1.0); },
              {"higher-order diffusion coefficient D", "-1"});
  expectError([&] { equation.higherOrderDiffusion(1.0, std::nan("")); },
              {"coefficient kappa", "nan"});
  expectError([&] { equation.higherOrderDiffusion(1.0, 1.0, Polynomial{}); },
              {"Polynomial g has no coefficients"});
  equation.transient().higherOrderDiffusion(1.0, 1.0);
  expectError([&] { ExplicitStepper<Space> stepper(equation); },
              {"explicit stepping does not take the higher-order diffusion term"});
  Assembler<Space> assembler(equation);
  expectError([&] { StencilOperator<Space> op(assembler); },
              {"StencilOperator", "higher-order"});
}

// FiPy's examples/cahnHilliard/mesh2D.py at its own settings: dx = 0.25, D = a = eps = 1,
// f = (a^2 / 2) phi^2 (1 - phi)^2 (g = f' = phi - 3 phi^2 + 2 phi^3), noise of variance
// 0.01 about 1/2 (here uniform), dt = min(100, exp(dexp)) with dexp from -5 by 0.01 per
// step: 300 steps take dt from 0.0067 to 0.134 (t = 12.8), zero flux. The solver is
// apps/decks/cahn-hilliard2d.toml's: GMRES(100) + Jacobi. ILU(0), the deck's former
// choice, is unstable on this operator once dt / dx^4 exceeds about 2 (dt = 0.01 here):
// its pivots turn negative and ||(LU)^-1|| grows by orders of magnitude, and GMRES
// stalls (on this 40 x 40 grid at step 247, dt = 0.080; at 32 x 32 it needs up to 2,584
// iterations for a step that Jacobi takes in 270). apps/decks/README.md has the numbers.
TEST(HigherOrder, FiPyMesh2DConvergesAtEveryStepWithTheDeckSolverAsDtGrows) {
  if (sizeof(Real) != sizeof(double))  // as the decks, whose tolerances are double ones
    GTEST_SKIP() << "the deck's solver tolerance (1e-9 relative) is out of float's reach "
                    "on this operator (GMRES stalls near 1e-6)";
  const int n = 40, steps = 300;
  const double dx = 0.25;
  Mesh<Space> mesh(CartesianGrid::uniform2D(n, n, n * dx, n * dx));
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(1.0, 1.0, Polynomial{0, 1, -3, 2});
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-std::sqrt(0.03), std::sqrt(0.03));
  std::vector<double> initial(std::size_t(mesh.numCells()));
  for (auto& value : initial) value = 0.5 + noise(random);
  CellField<Space> phi(mesh, "phi");
  phi.fromHost(initial);
  const bool inDouble = sizeof(Real) == sizeof(double);
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>("gmres", {{"preconditioner", "jacobi"},
                                        {"restart", "100"},
                                        {"tolerance", solverToleranceText(1e-9)},
                                        {"max_iterations", "5000"}}));
  stepper.setSweeps(30, Real(inDouble ? 1e-8 : 1e-5));
  const double mass0 = integrate(phi, mesh);
  int maxIterations = 0;
  double dexp = -5, dt = 0;
  for (int step = 0; step < steps; ++step) {
    dt = std::min(100.0, std::exp(dexp));
    dexp += 0.01;
    const auto report = stepper.step(phi, Real(dt));
    ASSERT_TRUE(report.converged)
        << "step " << step << ", dt = " << dt << ": " << report.reason;
    maxIterations = std::max(maxIterations, report.totalIterations);
  }
  std::printf(
      "FiPy mesh2D, %d x %d, dx = %g: %d steps to dt = %.3f, at most %d GMRES + Jacobi "
      "iterations per step\n",
      n, n, dx, steps, dt, maxIterations);
  EXPECT_GT(dt, 10 * 0.012);
  // Each solve leaves a residual of 1e-9 ||b|| (the solver's tolerance): over 300 steps
  // the mass may drift by a few 1e-9 (measured 4.5e-9), not more.
  EXPECT_LT(std::abs(integrate(phi, mesh) - mass0) / mass0, tolerance(1e-7));
}

}  // namespace
}  // namespace kfvm::Test
