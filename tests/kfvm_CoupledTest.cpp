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
  system.boundary(0, Patch::Left, BoundaryCondition::dirichlet(1.0))
      .boundary(0, Patch::Right, BoundaryCondition::neumann(0.5))
      .boundary(0, Patch::Bottom, BoundaryCondition::robin(1.0, 2.0, 3.0))
      .boundary(1, Patch::Top, BoundaryCondition::dirichlet(-1.0))
      .boundary(1, Patch::Left, BoundaryCondition::robin(2.0, 1.0, 0.5))
      .boundary(1, Patch::Bottom, BoundaryCondition::neumann(-0.25));
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
  Parameters parameters;
  // float stalls near 4e-6 here (the block system's condition number is about 1e5)
  parameters.set("tolerance", sizeof(Real) == sizeof(double) ? 1e-12 : 1e-5);
  parameters.set("preconditioner", "ilu0");
  CoupledStepper<Space> stepper(system, makeLinearSolver<Space>("gmres", parameters));
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

}  // namespace
}  // namespace kfvm::Test
