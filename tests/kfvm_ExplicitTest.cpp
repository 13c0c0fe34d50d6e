// Explicit stepping: forward Euler and RK2 against backward Euler and Crank-Nicolson on a
// smooth convection-diffusion problem, their temporal orders, and the stable-dt guard.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ExplicitStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// d(phi)/dt + d(u phi)/dx = D phi'' on [0, 1], phi = 0 at both ends, phi(0) = sin(pi x),
/// u = 1, D = 0.1, 50 cells, power-law convection; integrated to t = 0.1.
struct SmoothProblem {
  Mesh<Space> mesh{CartesianGrid::uniform1D(50, 1.0)};
  Equation<Space> equation{mesh};

  SmoothProblem() {
    equation.transient()
        .diffusion(0.1)
        .convection(1.0, 0, 0, ConvectionScheme::PowerLaw)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(0.0))
        .boundary(Patch::Right, BoundaryCondition::dirichlet(0.0));
  }

  CellField<Space> initial() const {
    CellField<Space> phi(mesh, "phi");
    setFromCellCentres(
        phi, mesh, KOKKOS_LAMBDA(Real x, Real, Real) {
          return Real(Compat::sin(Real(3.14159265358979323846) * x));
        });
    return phi;
  }

  std::vector<double> explicitSolution(ExplicitScheme scheme, int steps) const {
    auto phi = initial();
    ExplicitStepper<Space> stepper(equation);
    for (int s = 0; s < steps; ++s) stepper.step(phi, Real(0.1 / steps), scheme);
    return toHost(phi.values());
  }

  std::vector<double> implicitSolution(TimeScheme scheme, int steps) const {
    auto phi = initial();
    ImplicitStepper<Space> stepper(
        equation,
        makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-14)},
                                          {"max_iterations", "2000"}}));
    for (int s = 0; s < steps; ++s) {
      const auto report = stepper.step(phi, Real(0.1 / steps), scheme);
      EXPECT_TRUE(report.converged) << report.reason;
    }
    return toHost(phi.values());
  }
};

TEST(Explicit, ForwardEulerAndRk2ConvergeWithBackwardEulerAndCrankNicolson) {
  SmoothProblem problem;
  // The same spatial operator integrated with a tiny step: the time-exact reference.
  const auto reference = problem.explicitSolution(ExplicitScheme::RungeKutta2, 8000);
  const int steps[] = {100, 200, 400};  // dt = 1e-3 .. 2.5e-4, stable limit 1.25e-3
  double fe[3], rk2[3], be[3], cn[3], feToBe[3], rk2ToCn[3];
  for (int i = 0; i < 3; ++i) {
    const auto a = problem.explicitSolution(ExplicitScheme::ForwardEuler, steps[i]);
    const auto b = problem.explicitSolution(ExplicitScheme::RungeKutta2, steps[i]);
    const auto c = problem.implicitSolution(TimeScheme::BackwardEuler, steps[i]);
    const auto d = problem.implicitSolution(TimeScheme::CrankNicolson, steps[i]);
    fe[i] = maxDifference(a, reference);
    rk2[i] = maxDifference(b, reference);
    be[i] = maxDifference(c, reference);
    cn[i] = maxDifference(d, reference);
    feToBe[i] = maxDifference(a, c);
    rk2ToCn[i] = maxDifference(b, d);
  }
  auto order = [](const double* e, int i) {
    return std::log2(e[i] / e[i + 1]);
  };
  for (int i = 0; i < 2; ++i) {
    std::printf(
        "dt %g -> %g: orders FE %.3f RK2 %.3f BE %.3f CN %.3f |FE-BE| %.3f "
        "|RK2-CN| %.3f\n",
        0.1 / steps[i], 0.1 / steps[i + 1], order(fe, i), order(rk2, i), order(be, i),
        order(cn, i), order(feToBe, i), order(rk2ToCn, i));
    // In float, solver tolerances (1e-6) blur the implicit errors a little.
    const double slack = sizeof(Real) == sizeof(double) ? 0.1 : 0.25;
    EXPECT_NEAR(order(fe, i), 1.0, slack);
    EXPECT_NEAR(order(be, i), 1.0, slack);
    EXPECT_NEAR(order(feToBe, i), 1.0, slack);
    if (sizeof(Real) == sizeof(double)) {  // float rounding hides second-order errors
      EXPECT_NEAR(order(rk2, i), 2.0, 0.15);
      EXPECT_NEAR(order(cn, i), 2.0, 0.15);
      EXPECT_NEAR(order(rk2ToCn, i), 2.0, 0.15);
    }
  }
}

TEST(Explicit, TimeStepAboveTheStableLimitIsAnErrorUnlessForced) {
  SmoothProblem problem;
  auto phi = problem.initial();
  ExplicitStepper<Space> stepper(problem.equation);
  // dx = 0.02; the end cells bind: a Dirichlet face at dx / 2 (2 D / dx = 10), the
  // interior face (D / dx = 5) and one outflow (u = 1): rho V / 16.
  EXPECT_NEAR(stepper.stableTimeStep(), 0.02 / 16, tolerance(1e-15));
  expectError([&] { stepper.step(phi, Real(0.002)); },
              {"explicit time step dt = 0.002", "exceeds the stable limit 0.0012"});
  stepper.step(phi, Real(0.002), ExplicitScheme::ForwardEuler, true);  // forced
  expectError([] { explicitSchemeFromName("rk4"); }, {"unknown explicit scheme 'rk4'"});
  Equation<Space> steady(problem.mesh);
  steady.diffusion(1.0);
  expectError([&] { ExplicitStepper<Space> bad(steady); }, {"needs a TransientTerm"});
}

// FiPy's Crank-Nicolson, DiffusionTerm(0.5) + ExplicitDiffusionTerm(0.5) stepped by
// backward Euler, is kfvm's Crank-Nicolson of D = 1 (the explicit half is at the old
// values, where each step starts): the same steps to round-off, on a non-uniform grid
// with a Dirichlet and a Neumann side.
TEST(Explicit, FipysCrankNicolsonIsKfvmsCrankNicolson) {
  const Mesh<Space> mesh(CartesianGrid::fromSpacing({0.1, 0.3, 0.05, 0.2, 0.15, 0.2}));
  const auto sides = [](Equation<Space>& equation) {
    equation.transient(1.0)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5));
  };
  Equation<Space> fipys(mesh), kfvms(mesh);
  sides(fipys);
  sides(kfvms);
  fipys.diffusion(0.5).explicitDiffusion(0.5);
  kfvms.diffusion(1.0);
  CellField<Space> a(mesh, "a"), b(mesh, "b");
  a.fromHost({0.0, 0.2, 0.4, 0.1, -0.3, 0.5});
  b.fromHost({0.0, 0.2, 0.4, 0.1, -0.3, 0.5});
  const auto tight = [] {
    return makeLinearSolver<Space>(
        "cg", {{"tolerance", solverToleranceText(1e-13)}, {"max_iterations", "500"}});
  };
  ImplicitStepper<Space> fipyStepper(fipys, tight()), kfvmStepper(kfvms, tight());
  for (int step = 0; step < 5; ++step) {
    ASSERT_TRUE(fipyStepper.step(a, 0.01, TimeScheme::BackwardEuler).converged);
    ASSERT_TRUE(kfvmStepper.step(b, 0.01, TimeScheme::CrankNicolson).converged);
  }
  EXPECT_LT(maxDifference(toHost(a.values()), toHost(b.values())), tolerance(1e-11));
}

}  // namespace
}  // namespace kfvm::Test
