// Explicit stepping: forward Euler and RK2 against backward Euler and Crank-Nicolson on a
// smooth convection-diffusion problem, their temporal orders, and the stable-dt guard;
// FiPy's explicit terms (ExplicitUpwindConvectionTerm, VanLeerConvectionTerm) against
// hand values.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
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

// FiPy's explicit convection on cells of widths 1, 2, 1 (centres 0.5, 2, 3.5), u = 2,
// previous values 1, 2, 4, dt = 1/4, left Dirichlet 0, right gradient 0.5 (both faces
// open). Interior fluxes F phi_U with F = 2; the left face convects g = 0 in, the right
// one F (phi_P + d g) = 2 phi_P + 0.5 out, its phi_P part in the matrix.
// Van Leer: the previous values' gradients are 4/3 (or 1/3 reading the cell's own value
// on the Dirichlet face), 1 and 2/3; across face 1 (gradient 2/3) the limiter gives 4/3
// (or 0), across face 2 (gradient 4/3) 1; the depths (V - |F| dt) / A are 0.5 and 1.5:
// face values 1 + 4/3 * 0.5 / 2 = 4/3 (or 1) and 2 + 1.5 / 2 = 2.75.
TEST(Explicit, FipysExplicitConvectionMatchesHandValues) {
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 3, 4}));
  FaceField<Space> u(mesh, "u");  // u . n_f of u = (2, 0, 0)
  {
    auto normals =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceNormals());
    std::vector<double> values(mesh.numFaces());
    for (Ordinal f = 0; f < mesh.numFaces(); ++f) values[f] = 2.0 * normals(f, 0);
    u.fromHost(values);
  }
  const auto assembled = [&](ExplicitConvectionScheme scheme,
                             ExplicitGradientBoundary boundary, bool asField, bool open) {
    Equation<Space> equation(mesh);
    equation.transient()
        .boundary(Patch::Left, BoundaryCondition::dirichlet(0.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5));
    if (asField)
      equation.explicitConvection(u, scheme, boundary);
    else
      equation.explicitConvection(2.0, 0, 0, scheme, boundary);
    if (!open) equation.convectionThroughSlots({});
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    old.fromHost({1.0, 2.0, 4.0});
    Vector<Space> rhs("rhs", 3);
    assembler.assemble(4, 1, old, old, rhs);
    const auto A = assembler.matrix().toDenseHost();
    std::vector<double> diagonal{A[0][0], A[1][1], A[2][2]};
    EXPECT_EQ(A[0][1], 0.0);
    EXPECT_EQ(A[1][0], 0.0);
    EXPECT_LT(maxDifference(diagonal, toHost(assembler.diagonal())), tolerance(1e-15));
    return std::make_pair(diagonal, toHost(rhs));
  };
  using S = ExplicitConvectionScheme;
  using B = ExplicitGradientBoundary;
  const std::vector<double> mass{4, 8, 4}, openDiagonal{4, 8, 6};
  struct Case {
    S scheme;
    B boundary;
    bool open;
    std::vector<double> diagonal, rhs;
  };
  const std::vector<Case> cases = {
      {S::Upwind, B::CellValues, true, openDiagonal, {4 - 2, 16 + 2 - 4, 16 + 4 - 0.5}},
      {S::Upwind, B::CellValues, false, mass, {4 - 2, 16 + 2 - 4, 16 + 4}},
      {S::VanLeer,
       B::CellValues,
       true,
       openDiagonal,
       {4 - 2, 16 + 2 - 5.5, 16 + 5.5 - 0.5}},
      {S::VanLeer,
       B::DirichletValues,
       true,
       openDiagonal,
       {4 - 8.0 / 3, 16 + 8.0 / 3 - 5.5, 16 + 5.5 - 0.5}}};
  for (const auto& c : cases)
    for (bool asField : {false, true}) {
      const auto [diagonal, rhs] = assembled(c.scheme, c.boundary, asField, c.open);
      EXPECT_LT(maxDifference(diagonal, c.diagonal), tolerance(1e-14))
          << int(c.scheme) << int(c.boundary) << c.open << asField;
      EXPECT_LT(maxDifference(rhs, c.rhs), tolerance(1e-14))
          << int(c.scheme) << int(c.boundary) << c.open << asField;
    }
  Equation<Space> steady(mesh);
  steady.explicitConvection(1.0, 0, 0, ExplicitConvectionScheme::Upwind);
  expectError([&] { Assembler<Space>{steady}; }, {"needs a TransientTerm"});
  Equation<Space> vanLeer(mesh);
  vanLeer.transient().explicitConvection(1.0, 0, 0, ExplicitConvectionScheme::VanLeer);
  Assembler<Space> assembler(vanLeer);
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", 3);
  expectError([&] { assembler.assemble(0, 1, old, old, rhs); }, {"needs a time step"});
  expectError(
      [&] { vanLeer.explicitConvection(0, 1.0, 0, ExplicitConvectionScheme::Upwind); },
      {"convection velocity has a y component"});
}

}  // namespace
}  // namespace kfvm::Test
