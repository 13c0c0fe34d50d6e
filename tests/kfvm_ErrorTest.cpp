// Bad input raises kfvm::Error naming the value.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <limits>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

TEST(Errors, FieldOnAnotherMeshIsRejected) {
  Mesh<Space> first(CartesianGrid::uniform2D(4, 4, 1, 1));
  Mesh<Space> second(CartesianGrid::uniform2D(4, 4, 1, 1));
  CellField<Space> D(second, "D", 1.0);
  Equation<Space> equation(first);
  expectError([&] { equation.diffusion(D); },
              {"diffusion field 'D'", "mesh #" + std::to_string(second.id())});
  equation.transient().diffusion(1.0);
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>("cg"));
  CellField<Space> phi(second, "phi");
  expectError([&] { stepper.step(phi, 0.1); }, {"solution field 'phi'"});
}

TEST(Errors, BoundaryConditionOnMissingPatchIsRejected) {
  Mesh<Space> mesh(CartesianGrid::uniform2D(3, 3, 1, 1));
  Equation<Space> equation(mesh);
  expectError([&] { equation.boundary(Patch::Front, BoundaryCondition::dirichlet(1)); },
              {"unknown boundary patch 'front'", "'left', 'right', 'bottom', 'top'"});
  expectError(
      [&] {
        equation.boundary(Patch::Left,
                          BoundaryCondition::dirichlet(std::vector<Real>{1, 2}));
      },
      {"'left'", "2 face values", "3 faces"});
  expectError([] { BoundaryCondition::robin(0, 0, 1); }, {"cannot both be zero"});
  expectError([] { BoundaryCondition::robin(-1, 1, 1); }, {"coefficient a", "-1"});
  expectError(
      [] { BoundaryCondition::dirichlet(std::numeric_limits<Real>::quiet_NaN()); },
      {"boundary value", "nan"});
}

TEST(Errors, NanOrNegativeDiffusionCoefficientIsRejected) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(5, 1));
  Equation<Space> equation(mesh);
  expectError([&] { equation.diffusion(-2.0); }, {"diffusion coefficient", "-2"});
  expectError([&] { equation.diffusion(std::numeric_limits<Real>::quiet_NaN()); },
              {"diffusion coefficient", "nan"});
  CellField<Space> D(mesh, "D");
  D.fromHost({1, 1, -0.5, 1, 1});
  expectError([&] { equation.diffusion(D); },
              {"diffusion coefficient at cell 2", "-0.5"});
  D.fromHost({1, 1, 1, std::numeric_limits<Real>::quiet_NaN(), 1});
  expectError([&] { equation.diffusion(D); }, {"cell 3", "nan"});
  // A field that goes bad after it was accepted is caught when the assembler validates.
  D.fromHost({1, 1, 1, 1, 1});
  equation.diffusion(D);
  D.fromHost({1, 1, 1, 1, -3});
  expectError([&] { Assembler<Space> assembler(equation); }, {"cell 4", "-3"});
  FaceField<Space> Df(mesh, "Df", 1.0);
  auto values = Df.toHost();
  values[5] = -1;
  Df.fromHost(values);
  expectError([&] { equation.diffusion(Df); }, {"face 5", "-1"});
}

TEST(Errors, BadTimeStepsAndSchemesAreRejected) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(5, 1));
  Equation<Space> steady(mesh);
  steady.diffusion(1.0).boundary(Patch::Left, BoundaryCondition::dirichlet(0));
  ImplicitStepper<Space> stepper(steady, makeLinearSolver<Space>("cg"));
  CellField<Space> phi(mesh, "phi");
  expectError([&] { stepper.step(phi, 0.1); }, {"TransientTerm"});
  Equation<Space> transient(mesh);
  transient.transient().diffusion(1.0);
  ImplicitStepper<Space> transientStepper(transient, makeLinearSolver<Space>("bicgstab"));
  expectError([&] { transientStepper.step(phi, 0.0); }, {"dt", "0"});
  expectError([&] { transientStepper.step(phi, -1e-3); }, {"dt", "-0.001"});
  expectError([] { timeSchemeFromName("rk4"); }, {"'rk4'"});
}

// A diffusion coefficient that turns negative after the equation was validated, D(phi)
// at some phi or a field overwritten after the stepper was built, stops the step: the
// harmonic mean would silently give interior faces D_f = 0 and Dirichlet faces the
// negative value.
TEST(Errors, DiffusionCoefficientThatTurnsNegativeStopsTheStep) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(8, 1.0));
  {
    Equation<Space> equation(mesh);
    equation.transient().diffusion(Polynomial{1, 0, -1});  // D(phi) = 1 - phi^2
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(0.0));
    ImplicitStepper<Space> stepper(
        equation,
        makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-10)}}));
    stepper.setSweeps(20, Real(solverTolerance(1e-8)));
    CellField<Space> phi(mesh, "phi");
    phi.fromHost({0, 0.1, 0.2, 0.3, 0.4, 1.5, 0.5, 0.5});
    expectError([&] { stepper.step(phi, 0.01); },
                {"diffusion coefficient D(phi) = -1.25 < 0 at cell 5", "centre (0.6875",
                 "phi = 1.5"});
    phi.fromHost({0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5});  // D > 0: steps again
    const auto report = stepper.step(phi, 0.01);
    EXPECT_TRUE(report.converged) << report.reason;
    phi.fromHost({-2, 0, 0, 0, 0, 0, 0, 0});  // the boundary cell, at sweep 1
    expectError([&] { stepper.solveSteady(phi); }, {"D(phi) = -3 < 0 at cell 0"});
  }
  for (const char* scheme : {"be", "cn"}) {
    CellField<Space> D(mesh, "D", 1.0);
    Equation<Space> equation(mesh);
    equation.transient().diffusion(D).boundary(Patch::Right,
                                               BoundaryCondition::dirichlet(1.0));
    ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>("cg"));
    CellField<Space> phi(mesh, "phi");
    ASSERT_TRUE(stepper.step(phi, 0.01, timeSchemeFromName(scheme)).converged);
    D.fromHost({1, 1, 1, -0.5, 1, 1, 1, 1});
    expectError(
        [&] { stepper.step(phi, 0.01, timeSchemeFromName(scheme)); },
        {"diffusion coefficient field 'D' = -0.5 < 0 at cell 3", "centre (0.4375"});
    D.fromHost({1, 1, 1, 1, 1, 1, 1, std::numeric_limits<Real>::quiet_NaN()});
    expectError([&] { stepper.step(phi, 0.01, timeSchemeFromName(scheme)); },
                {"field 'D' = nan (not finite) at cell 7"});
  }
  FaceField<Space> Df(mesh, "Df", 1.0);
  Equation<Space> equation(mesh);
  equation.transient().diffusion(Df);
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>("cg"));
  CellField<Space> phi(mesh, "phi", 1.0);
  ASSERT_TRUE(stepper.step(phi, 0.01).converged);
  auto values = Df.toHost();
  values[5] = -1;
  Df.fromHost(values);
  expectError([&] { stepper.step(phi, 0.01); }, {"field 'Df' = -1 < 0 at face 5"});
}

}  // namespace
}  // namespace kfvm::Test
