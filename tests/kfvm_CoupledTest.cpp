// Coupled block systems: boundary conditions per variable against the scalar assembly
// and an exact solution, and bad input. Cahn-Hilliard in the (phi, mu) form is
// kfvm_CahnHilliardTest.cpp.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_CoupledStepper.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

// Variable 0 under the conditions of the scalar gold test (kfvm_AssemblyTest.cpp),
// variable 1 under others; the coupling term c_01 = 0.3 only adds to block (0, 1).
Equation<Space>& withConditions(Equation<Space>& equation, int variable) {
  if (variable == 0)
    return equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5))
        .boundary(Patch::Bottom, BoundaryCondition::robin(1.0, 2.0, 3.0));
  return equation.boundary(Patch::Top, BoundaryCondition::dirichlet(-1.0))
      .boundary(Patch::Left, BoundaryCondition::robin(2.0, 1.0, 0.5))
      .boundary(Patch::Bottom, BoundaryCondition::neumann(-0.25));
}

// The same conditions on the two variables of a coupled system.
void withConditions(CoupledSystem<Space>& system) {
  system.boundary(0, Patch::Left, BoundaryCondition::dirichlet(1.0))
      .boundary(0, Patch::Right, BoundaryCondition::neumann(0.5))
      .boundary(0, Patch::Bottom, BoundaryCondition::robin(1.0, 2.0, 3.0))
      .boundary(1, Patch::Top, BoundaryCondition::dirichlet(-1.0))
      .boundary(1, Patch::Left, BoundaryCondition::robin(2.0, 1.0, 0.5))
      .boundary(1, Patch::Bottom, BoundaryCondition::neumann(-0.25));
}

TEST(Coupled, BlocksWithBoundaryConditionsEqualTheScalarAssembly) {
  Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 2, 4}));
  const double D[2] = {2.0, 0.7}, c[2] = {-0.5, -1.5}, s[2] = {1.0, -2.0};
  const double coupling = 0.3, dt = 0.5;
  CoupledSystem<Space> system(mesh, 2);
  std::vector<std::vector<std::vector<Real>>> scalarMatrix;
  std::vector<std::vector<double>> scalarRhs;
  for (int v = 0; v < 2; ++v) {
    system.transient(v, v)
        .diffusion(v, v, D[v])
        .implicitSource(v, v, c[v])
        .source(v, s[v]);
    Equation<Space> equation(mesh);
    equation.transient(1.0).diffusion(D[v]).implicitSource(c[v]).source(s[v]);
    withConditions(equation, v);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    old.fromHost(v == 0 ? std::vector<double>{1, 2, 3, 4, 5, 6}
                        : std::vector<double>{-1, 0.5, 2, -3, 1, 0});
    Vector<Space> rhs("rhs", 6);
    assembler.assemble(Real(1 / dt), 1, old, rhs);
    scalarMatrix.push_back(assembler.matrix().toDenseHost());
    scalarRhs.push_back(toHost(rhs));
  }
  system.implicitSource(0, 1, coupling);
  withConditions(system);
  const auto previous = toDevice({1, -1, 2, 0.5, 3, 2, 4, -3, 5, 1, 6, 0});
  Vector<Space> rhs("rhs", 12);
  system.assemble(Real(1 / dt), previous, previous, rhs);
  const auto A = system.matrix().toDenseHost();
  const auto b = toHost(rhs);
  const double volume = 2;
  for (int i = 0; i < 6; ++i) {
    for (int e = 0; e < 2; ++e) {
      EXPECT_NEAR(b[2 * i + e], scalarRhs[e][i], tolerance(1e-13)) << "rhs " << i << e;
      for (int j = 0; j < 6; ++j)
        for (int v = 0; v < 2; ++v) {
          const double expected = e == v               ? double(scalarMatrix[e][i][j])
                                  : (e == 0 && i == j) ? -coupling * volume
                                                       : 0.0;
          EXPECT_NEAR(A[2 * i + e][2 * j + v], expected, tolerance(1e-13))
              << "cell " << i << " equation " << e << ", cell " << j << " variable " << v;
        }
    }
  }
}

/// GMRES + ILU(0) to tolerance (double; float stalls higher: floatTolerance).
std::unique_ptr<LinearSolver<Space>> blockSolver(double tolerance,
                                                 double floatTolerance) {
  Parameters parameters;
  parameters.set("tolerance",
                 sizeof(Real) == sizeof(double) ? tolerance : floatTolerance);
  parameters.set("preconditioner", "ilu0");
  return makeLinearSolver<Space>("gmres", parameters);
}

/// Linear Cahn-Hilliard in (phi, mu), zero flux: dphi/dt = div(grad mu), 0 = div(grad
/// phi) + mu.
CoupledSystem<Space> linearCahnHilliard(const Mesh<Space>& mesh) {
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0).diffusion(0, 1, 1).diffusion(1, 0, 1).implicitSource(1, 1, 1);
  return system;
}

// Steady, on [0, 1]: u'' = v and v'' = 0 with v(0) = 0, dv/dn(1) = 1 (so v = x) and
// u(0) = 0, u + du/dn = 1/3 at x = 1: u = (x^3 - x) / 6. Second order in h.
double steadyCoupledError(int cells) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(cells, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  system.diffusion(0, 0, 1).implicitSource(0, 1, -1).diffusion(1, 1, 1);
  system.boundary(0, Patch::Left, BoundaryCondition::dirichlet(0))
      .boundary(0, Patch::Right, BoundaryCondition::robin(1, 1, 1.0 / 3.0))
      .boundary(1, Patch::Left, BoundaryCondition::dirichlet(0))
      .boundary(1, Patch::Right, BoundaryCondition::neumann(1));
  // float stalls near 4e-6 here (the block system's condition number is about 1e5)
  CoupledStepper<Space> stepper(system, blockSolver(1e-12, 1e-5));
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "u"),
                                       CellField<Space>(mesh, "v")};
  const auto report = stepper.solveSteady(fields);
  EXPECT_TRUE(report.converged) << report.reason;
  const auto u = toHost(fields[0].values()), v = toHost(fields[1].values());
  double error = 0;
  for (int i = 0; i < cells; ++i) {
    const double x = (i + 0.5) / cells;
    EXPECT_NEAR(v[i], x, tolerance(1e-9));  // linear: exact
    error = std::max(error, std::abs(u[i] - (x * x * x - x) / 6));
  }
  return error;
}

TEST(Coupled, SteadySystemWithDirichletNeumannAndRobinConvergesAtSecondOrder) {
  const double coarse = steadyCoupledError(20), fine = steadyCoupledError(40);
  EXPECT_LT(fine, 2e-4);
  if (sizeof(Real) == sizeof(double)) EXPECT_GT(std::log2(coarse / fine), 1.9);
}

// Linear Cahn-Hilliard in (phi, mu), zero flux: dphi/dt = div(grad mu), 0 = div(grad
// phi) + mu, so dphi/dt = -L^2 phi with L the cell-centred Neumann Laplacian, whose
// eigenvectors are cos(k pi x) at the cell centres (eigenvalue -l_k, l_k = (2 - 2
// cos(k pi h)) / h^2). A mix of k = 1 and 2 then decays mode by mode, per step by
// (1 - l^2 dt / 2) / (1 + l^2 dt / 2) under Crank-Nicolson (mu, a constraint, at the new
// values only) and by 1 / (1 + l^2 dt) under backward Euler: gold values. The explicit
// half reads the old mu, so mu starts on its constraint (mu = l_k per mode), as it is
// after any step; backward Euler starts from mu = 0 and does not read it.
TEST(Coupled, CrankNicolsonAndBackwardEulerStepsEqualTheDiscreteModeDecay) {
  const int cells = 24, steps = 5;
  const double h = 1.0 / cells, dt = 2e-4;
  Mesh<Space> mesh(CartesianGrid::uniform1D(cells, 1.0));
  const CoupledSystem<Space> system = linearCahnHilliard(mesh);
  EXPECT_TRUE(system.hasTransient(0));
  EXPECT_FALSE(system.hasTransient(1));
  CoupledStepper<Space> stepper(system, blockSolver(1e-13, 1e-6));
  const auto mode = [&](int k, int i) {
    return std::cos(k * M_PI * (i + 0.5) * h);
  };
  const auto lambda = [&](int k) {
    return (2 - 2 * std::cos(k * M_PI * h)) / (h * h);
  };
  for (const auto scheme : {TimeScheme::CrankNicolson, TimeScheme::BackwardEuler}) {
    SCOPED_TRACE(scheme == TimeScheme::CrankNicolson ? "Crank-Nicolson"
                                                     : "backward Euler");
    std::vector<CellField<Space>> fields{CellField<Space>(mesh, "phi"),
                                         CellField<Space>(mesh, "mu")};
    std::vector<double> phi0(cells), mu0(cells, 0.0);
    for (int i = 0; i < cells; ++i) {
      phi0[i] = mode(1, i) + 0.5 * mode(2, i);
      if (scheme == TimeScheme::CrankNicolson)
        mu0[i] = lambda(1) * mode(1, i) + 0.5 * lambda(2) * mode(2, i);
    }
    fields[0].fromHost(phi0);
    fields[1].fromHost(mu0);
    for (int step = 0; step < steps; ++step) {
      const auto report = stepper.step(fields, Real(dt), scheme);
      ASSERT_TRUE(report.converged) << report.reason;
    }
    const auto factor = [&](int k) {
      const double a = lambda(k) * lambda(k) * dt;
      return std::pow(
          scheme == TimeScheme::CrankNicolson ? (1 - a / 2) / (1 + a / 2) : 1 / (1 + a),
          steps);
    };
    const auto phi = toHost(fields[0].values()), mu = toHost(fields[1].values());
    for (int i = 0; i < cells; ++i) {
      const double a1 = factor(1), a2 = 0.5 * factor(2);
      EXPECT_NEAR(phi[i], a1 * mode(1, i) + a2 * mode(2, i), tolerance(1e-10)) << i;
      // mu = -L phi = l_k times each mode
      EXPECT_NEAR(mu[i], lambda(1) * a1 * mode(1, i) + lambda(2) * a2 * mode(2, i),
                  tolerance(1e-10) * lambda(2))
          << i;
    }
  }
}

// The constraint holds at the new values whatever the old ones: from mu = 0, off its
// constraint, a Crank-Nicolson step ends with mu = -L phi (L as above, zero flux).
TEST(Coupled, CrankNicolsonKeepsAConstraintAtTheNewValues) {
  const int cells = 16;
  const double h = 1.0 / cells;
  Mesh<Space> mesh(CartesianGrid::uniform1D(cells, 1.0));
  const CoupledSystem<Space> system = linearCahnHilliard(mesh);
  CoupledStepper<Space> stepper(system, blockSolver(1e-13, 1e-6));
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "phi"),
                                       CellField<Space>(mesh, "mu")};
  std::vector<double> phi0(cells);
  for (int i = 0; i < cells; ++i)
    phi0[i] = std::exp(-20 * std::pow((i + 0.5) * h - 0.4, 2));
  fields[0].fromHost(phi0);
  ASSERT_TRUE(stepper.step(fields, Real(1e-3), TimeScheme::CrankNicolson).converged);
  const auto phi = toHost(fields[0].values()), mu = toHost(fields[1].values());
  for (int i = 0; i < cells; ++i) {
    const double left = i > 0 ? phi[i - 1] : phi[i];
    const double right = i + 1 < cells ? phi[i + 1] : phi[i];
    EXPECT_NEAR(mu[i], -(left - 2 * phi[i] + right) / (h * h), tolerance(1e-9) / (h * h))
        << i;
  }
}

TEST(Coupled, MissingEquationsAndBadIndicesAreErrors) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(6, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0).diffusion(0, 1, 1.0);
  expectError([&] { system.validate(); },
              {"equation 1 of the coupled system has no term acting on any variable"});
  expectError([&] { system.diffusion(2, 0, 1.0); }, {"equation index 2 is out of range"});
  expectError([&] { system.source(0, 5, Polynomial{1}); },
              {"variable index 5 is out of range"});
  expectError([&] { CoupledSystem<Space>(mesh, 5); }, {"1 to 4 variables, got 5"});
  expectError([&] { system.boundary(3, Patch::Left, BoundaryCondition::dirichlet(0)); },
              {"variable index 3 is out of range"});
  expectError([&] { system.boundary(1, Patch::Top, BoundaryCondition::dirichlet(0)); },
              {"variable 1 of the coupled system", "top"});
  CoupledSystem<Space> unused(mesh, 2);
  unused.transient(0, 0).implicitSource(1, 0, 1.0);
  expectError([&] { unused.validate(); },
              {"variable 1 of the coupled system appears in no equation"});
  expectError(
      [&] {
        CoupledStepper<Space> stepper(system,
                                      makeLinearSolver<Space>("gmres", Parameters{}));
      },
      {"equation 1 of the coupled system has no term"});
}

// Field coefficients (FiPy's eq1 & eq2 evaluates them to arrays every step): each
// diagonal block equals the scalar assembly of the same fields, the face coefficient of
// either sign; block (1, 0) is a face-field diffusion on variable 0 (under variable 0's
// conditions, which add to equation 1's right-hand side) and block (0, 1) a cell-field
// implicit source.
TEST(Coupled, FieldCoefficientsEqualTheScalarAssemblyOfTheSameFields) {
  Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 2, 4}));
  const double dt = 0.5, volume = 2;
  const std::vector<double> old0{1, 2, 3, 4, 5, 6}, old1{-1, 0.5, 2, -3, 1, 0};
  std::vector<double> faceValues(mesh.numFaces()), crossValues(mesh.numFaces());
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) {
    faceValues[f] = 0.5 + 0.25 * f;
    crossValues[f] = (f % 3 == 0 ? -1.0 : 1.0) * (0.2 + 0.1 * f);  // either sign
  }
  CellField<Space> rho(mesh, "rho"), c(mesh, "c"), s(mesh, "s"), coupling(mesh, "c01");
  rho.fromHost({1.0, 1.5, 2.0, 0.5, 1.0, 3.0});
  c.fromHost({-0.5, 0.25, -1.0, 0.0, -2.0, 1.0});
  s.fromHost({1.0, -2.0, 0.5, 0.0, 3.0, -1.0});
  coupling.fromHost({0.3, -0.2, 0.1, 0.4, -0.5, 0.6});
  FaceField<Space> D(mesh, "D"), cross(mesh, "D10");
  D.fromHost(faceValues);
  cross.fromHost(crossValues);

  CoupledSystem<Space> system(mesh, 2);
  std::vector<std::vector<std::vector<Real>>> blockMatrix;
  std::vector<std::vector<double>> blockRhs;
  for (int v = 0; v < 2; ++v) {
    system.transient(v, v, rho).diffusion(v, v, D).implicitSource(v, v, c).source(v, s);
    Equation<Space> equation(mesh);
    equation.transient(rho)
        .diffusion(D, DiffusionSign::Either)
        .implicitSource(c)
        .source(s);
    withConditions(equation, v);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    old.fromHost(v == 0 ? old0 : old1);
    Vector<Space> rhs("rhs", 6);
    assembler.assemble(Real(1 / dt), 1, old, rhs);
    blockMatrix.push_back(assembler.matrix().toDenseHost());
    blockRhs.push_back(toHost(rhs));
  }
  Equation<Space> crossTerm(mesh);  // block (1, 0): variable 0's conditions
  crossTerm.diffusion(cross, DiffusionSign::Either);
  withConditions(crossTerm, 0);
  Assembler<Space> crossAssembler(crossTerm);
  Vector<Space> crossRhs("crossRhs", 6);
  crossAssembler.assemble(0, 1, CellField<Space>(mesh, "unused"), crossRhs);
  const auto crossMatrix = crossAssembler.matrix().toDenseHost();
  const auto crossB = toHost(crossRhs);

  system.implicitSource(0, 1, coupling).diffusion(1, 0, cross);
  withConditions(system);
  std::vector<double> interleaved;
  for (int i = 0; i < 6; ++i) interleaved.insert(interleaved.end(), {old0[i], old1[i]});
  const auto previous = toDevice(interleaved);
  Vector<Space> rhs("rhs", 12);
  system.assemble(Real(1 / dt), previous, previous, rhs);
  const auto A = system.matrix().toDenseHost();
  const auto b = toHost(rhs);
  const auto c01 = toHost(coupling.values());
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(b[2 * i], blockRhs[0][i], tolerance(1e-13)) << "rhs " << i << " 0";
    EXPECT_NEAR(b[2 * i + 1], blockRhs[1][i] + crossB[i], tolerance(1e-13))
        << "rhs " << i << " 1";
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(A[2 * i][2 * j], blockMatrix[0][i][j], tolerance(1e-13)) << i << j;
      EXPECT_NEAR(A[2 * i + 1][2 * j + 1], blockMatrix[1][i][j], tolerance(1e-13))
          << i << j;
      EXPECT_NEAR(A[2 * i + 1][2 * j], crossMatrix[i][j], tolerance(1e-13)) << i << j;
      EXPECT_NEAR(A[2 * i][2 * j + 1], i == j ? -c01[i] * volume : 0.0, tolerance(1e-13))
          << i << j;
    }
  }
}

// FiPy's ImplicitSourceTerm rule on a block: where c > 0, c phi* at the iterate goes to
// the right-hand side and the matrix keeps nothing of it; where c <= 0, -c V in the
// matrix. A step from previous values different from the starting iterate reads the
// previous values in the transient term and the iterate in the source.
TEST(Coupled, DiagonalOnlyBlockAndAStepFromPreviousValues) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(4, 4.0));  // cells of volume 1
  CellField<Space> c(mesh, "c");
  c.fromHost({-1.0, 2.0, 0.0, 0.5});
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0).implicitSource(0, 1, c, ImplicitSourceForm::DiagonalOnly);
  system.transient(1, 1).implicitSource(1, 1, -3.0);
  const auto state = toDevice({0, 10, 0, 20, 0, 30, 0, 40});
  Vector<Space> rhs("rhs", 8);
  system.assemble(1, state, state, rhs);
  const auto A = system.matrix().toDenseHost();
  const auto b = toHost(rhs);
  const double expectedMatrix[4] = {1.0, 0.0, 0.0, 0.0};  // -c where c <= 0
  const double expectedRhs[4] = {0.0, 40.0, 0.0, 20.0};   // c phi1 where c > 0
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(A[2 * i][2 * i + 1], expectedMatrix[i], tolerance(1e-14)) << i;
    EXPECT_NEAR(b[2 * i], expectedRhs[i], tolerance(1e-14)) << i;
    EXPECT_NEAR(A[2 * i + 1][2 * i + 1], 1.0 + 3.0, tolerance(1e-14)) << i;
  }

  // Variable 1 alone: (x - old) / dt = -3 x, so x = old / (1 + 3 dt), whatever the
  // starting values; variable 0 from its own previous value and phi1's iterate.
  Parameters parameters;
  parameters.set("tolerance", sizeof(Real) == sizeof(double) ? 1e-12 : 1e-6);
  CoupledStepper<Space> stepper(system, makeLinearSolver<Space>("gmres", parameters));
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "phi0", 5.0),
                                       CellField<Space>(mesh, "phi1", 7.0)};
  std::vector<CellField<Space>> previous{CellField<Space>(mesh, "old0", 1.0),
                                         CellField<Space>(mesh, "old1", 2.0)};
  const double dt = 0.5;
  const auto report = stepper.step(fields, previous, dt);
  ASSERT_TRUE(report.converged) << report.reason;
  const auto x0 = toHost(fields[0].values()), x1 = toHost(fields[1].values());
  const auto cHost = toHost(c.values());
  const double new1 = 2.0 / (1 + 3 * dt);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(x1[i], new1, tolerance(1e-10)) << i;
    // (x0 - 1) / dt = c x1 (implicit, c <= 0) or c * 7 (the iterate, c > 0)
    const double expected = 1 + dt * cHost[i] * (cHost[i] > 0 ? 7.0 : new1);
    EXPECT_NEAR(x0[i], expected, tolerance(1e-10)) << i;
  }
}

TEST(Coupled, BadFieldCoefficientsAreErrorsNamingTheBlock) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(4, 1.0)),
      other(CartesianGrid::uniform1D(4, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  CellField<Space> negative(mesh, "rho", -1.0), elsewhere(other, "c", 1.0);
  CellField<Space> notFinite(mesh, "s", 0.0);
  notFinite.fromHost({0.0, 0.0, std::nan(""), 0.0});
  expectError([&] { system.transient(1, 0, negative); },
              {"equation 1, variable 0 of the coupled system", "transient coefficient",
               "cell 0", "-1"});
  expectError([&] { system.implicitSource(0, 1, elsewhere); },
              {"implicit source field 'c' belongs to mesh"});
  expectError([&] { system.source(1, notFinite); },
              {"equation 1", "source coefficient at cell 2"});
  expectError([&] { system.implicitSource(2, 0, notFinite); },
              {"equation index 2 is out of range"});
}

}  // namespace
}  // namespace kfvm::Test
