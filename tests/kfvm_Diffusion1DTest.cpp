// FiPy's 1D diffusion examples (examples/diffusion/mesh1D.py) on kfvm.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

std::unique_ptr<LinearSolver<Space>> tightSolver(const std::string& name = "cg") {
  return makeLinearSolver<Space>(
      name, {{"tolerance", solverToleranceText(1e-13)}, {"max_iterations", "5000"}});
}

TEST(Diffusion1D, SteadyProfileBetweenTwoDirichletValuesIsLinear) {
  for (const auto& grid :
       {CartesianGrid::uniform1D(50, 1.0),
        CartesianGrid::fromSpacing({0.1, 0.3, 0.05, 0.2, 0.15, 0.2})}) {
    Mesh<Space> mesh(grid);
    Equation<Space> equation(mesh);
    equation.diffusion(2.5)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(3.0))
        .boundary(Patch::Right, BoundaryCondition::dirichlet(-1.0));
    CellField<Space> phi(mesh, "phi");
    ImplicitStepper<Space> stepper(equation, tightSolver());
    const auto report = stepper.solveSteady(phi);
    ASSERT_TRUE(report.converged) << report.reason;
    const auto values = toHost(phi.values());
    const auto centres =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
    for (Ordinal c = 0; c < mesh.numCells(); ++c) {
      EXPECT_NEAR(values[c], 3.0 - 4.0 * centres(c, 0), tolerance(1e-11)) << "cell " << c;
    }
  }
}

/// FiPy's transient case: nx = 50, dx = 1, D = 1, phi = 1 at x = 0 and 0 at x = 50.
struct FiPyTransientCase {
  Mesh<Space> mesh{CartesianGrid::uniform1D(50, 50.0)};
  Equation<Space> equation{mesh};
  CellField<Space> phi{mesh, "phi"};

  FiPyTransientCase() {
    equation.transient()
        .diffusion(1.0)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::dirichlet(0.0));
  }

  double maxErrorAt(double time) const {
    const auto values = toHost(phi.values());
    double worst = 0;
    for (int c = 0; c < 50; ++c) {
      const double x = c + 0.5;
      const double exact = 1.0 - std::erf(x / (2.0 * std::sqrt(time)));
      worst = std::max(worst, std::abs(values[c] - exact));
    }
    return worst;
  }
};

TEST(Diffusion1D, BackwardEulerMatchesErfWithinFiPyTolerance) {
  FiPyTransientCase problem;
  ImplicitStepper<Space> stepper(problem.equation, tightSolver());
  for (int step = 0; step < 10; ++step) {
    const auto report = stepper.step(problem.phi, 4.5, TimeScheme::BackwardEuler);
    ASSERT_TRUE(report.converged) << report.reason;
  }
  const double error = problem.maxErrorAt(45.0);
  EXPECT_LT(error, 2e-2);
  EXPECT_GT(error, 1e-4);  // a first-order scheme at this dt is not exact
}

TEST(Diffusion1D, CrankNicolsonThenBackwardEulerMatchesErfWithinFiPyTolerance) {
  FiPyTransientCase problem;
  ImplicitStepper<Space> stepper(problem.equation, tightSolver("bicgstab"));
  for (int step = 0; step < 9; ++step) {
    const auto report = stepper.step(problem.phi, 4.5, TimeScheme::CrankNicolson);
    ASSERT_TRUE(report.converged) << report.reason;
  }
  ASSERT_TRUE(stepper.step(problem.phi, 4.5, TimeScheme::BackwardEuler).converged);
  EXPECT_LT(problem.maxErrorAt(45.0), 3e-3);
}

}  // namespace
}  // namespace kfvm::Test
