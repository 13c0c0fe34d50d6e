// Solution-dependent coefficients and Picard sweeps: nonlinear diffusion against its
// exact steady solution, and an Allen-Cahn front against its tanh profile.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

std::unique_ptr<LinearSolver<Space>> tightCg() {
  return makeLinearSolver<Space>(
      "cg", {{"tolerance", solverToleranceText(1e-13)}, {"max_iterations", "5000"}});
}

/// (1 + phi^2) phi' = const on [0, 1], phi(0) = 0, phi(1) = 1: phi + phi^3 / 3 = 4x / 3.
double exactNonlinearDiffusion(double x) {
  double phi = x;
  for (int i = 0; i < 50; ++i)
    phi -= (phi + phi * phi * phi / 3 - 4 * x / 3) / (1 + phi * phi);
  return phi;
}

struct NonlinearResult {
  double maxError;
  StepReport report;
};

NonlinearResult nonlinearDiffusion(int nx) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(nx, 1.0));
  Equation<Space> equation(mesh);
  equation.diffusion(Polynomial{1, 0, 1})
      .boundary(Patch::Left, BoundaryCondition::dirichlet(0.0))
      .boundary(Patch::Right, BoundaryCondition::dirichlet(1.0));
  CellField<Space> phi(mesh, "phi");
  ImplicitStepper<Space> stepper(equation, tightCg());
  stepper.setSweeps(100, Real(solverTolerance(1e-11)));
  NonlinearResult result{0, stepper.solveSteady(phi)};
  const auto values = toHost(phi.values());
  for (int c = 0; c < nx; ++c)
    result.maxError = std::max(
        result.maxError, std::abs(values[c] - exactNonlinearDiffusion((c + 0.5) / nx)));
  return result;
}

TEST(Nonlinear, DiffusionOnePlusPhiSquaredConvergesToItsSteadySolution) {
  const auto coarse = nonlinearDiffusion(40);
  const auto fine = nonlinearDiffusion(80);
  for (const auto* result : {&coarse, &fine}) {
    EXPECT_TRUE(result->report.converged) << result->report.reason;
    EXPECT_GE(result->report.sweeps, 3);  // it is nonlinear: one solve is not enough
    ASSERT_EQ(result->report.sweepResiduals.size(),
              std::size_t(result->report.sweeps) + 1);
    EXPECT_LE(result->report.sweepResiduals.back(), solverTolerance(1e-11));
    const double drop =
        sizeof(Real) == sizeof(double) ? 1e-3 : 1e-1;  // float stops at 1e-6
    EXPECT_LT(result->report.sweepResiduals.back(),
              drop * result->report.sweepResiduals[1]);
  }
  const double order = std::log2(coarse.maxError / fine.maxError);
  std::printf(
      "nonlinear diffusion: errors %.3e (40 cells) %.3e (80 cells), order %.3f, "
      "sweeps %d and %d\n",
      coarse.maxError, fine.maxError, order, coarse.report.sweeps, fine.report.sweeps);
  EXPECT_LT(fine.maxError, tolerance(1e-4));
  if (sizeof(Real) == sizeof(double)) EXPECT_NEAR(order, 2.0, 0.1);
}

/// phi = -1 left of x = centre, +1 right of it (a free function: CUDA allows device
/// lambdas in no TEST body).
void setStep(CellField<Space>& phi, const Mesh<Space>& mesh, Real centre) {
  setFromCellCentres(
      phi, mesh,
      KOKKOS_LAMBDA(Real x, Real, Real) { return x < centre ? Real(-1) : Real(1); });
}

/// Allen-Cahn: dphi/dt = phi'' + phi - phi^3 on [-10, 10], phi(+-10) = +-1, from a step;
/// the front relaxes to phi = tanh(x / sqrt(2)).
TEST(Nonlinear, AllenCahnFrontRelaxesToTanhProfile) {
  const int nx = 200;
  const double L = 10;
  Mesh<Space> mesh(CartesianGrid::uniform1D(nx, 2 * L));
  Equation<Space> equation(mesh);
  equation.transient()
      .diffusion(1.0)
      .source(Polynomial{0, 1, 0, -1})
      .boundary(Patch::Left, BoundaryCondition::dirichlet(-1.0))
      .boundary(Patch::Right, BoundaryCondition::dirichlet(1.0));
  CellField<Space> phi(mesh, "phi");
  setStep(phi, mesh, Real(L));
  ImplicitStepper<Space> stepper(equation, tightCg());
  stepper.setSweeps(50, Real(solverTolerance(1e-10)));
  int maxSweeps = 0;
  for (int step = 0; step < 100; ++step) {
    const auto report = stepper.step(phi, Real(0.5));
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    maxSweeps = std::max(maxSweeps, report.sweeps);
  }
  const auto values = toHost(phi.values());
  double worst = 0;
  for (int c = 0; c < nx; ++c) {
    const double x = (c + 0.5) * 2 * L / nx - L;
    worst = std::max(worst, std::abs(values[c] - std::tanh(x / std::sqrt(2.0))));
  }
  std::printf(
      "Allen-Cahn front: max error %.3e against tanh(x / sqrt 2), at most %d sweeps "
      "per step\n",
      worst, maxSweeps);
  EXPECT_LT(worst, 1e-3);  // measured 2.8e-4 at dx = 0.1
}

TEST(Nonlinear, PolynomialsAndConflictingTermsAreChecked) {
  const Polynomial p{1, -2, 3};
  EXPECT_DOUBLE_EQ(double(p(Real(2))), 1 - 4 + 12);
  EXPECT_DOUBLE_EQ(double(p.derivative(Real(2))), -2 + 12);
  expectError([] { Polynomial{1, 2, 3, 4, 5, 6, 7, 8, 9}; },
              {"a Polynomial takes 1 to 8 coefficients, got 9"});
  expectError(
      [] {
        Polynomial{1, std::nan("")};
      },
      {"Polynomial coefficient 1 must be finite"});
  Mesh<Space> mesh(CartesianGrid::uniform1D(4, 1.0));
  Equation<Space> equation(mesh);
  equation.source(Polynomial{0, 1, 0, -1});
  expectError([&] { equation.implicitSource(2.0); },
              {"the source Polynomial sets the implicit source"});
}

}  // namespace
}  // namespace kfvm::Test
