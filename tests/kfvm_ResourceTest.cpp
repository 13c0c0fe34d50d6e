// The GPU lessons, enforced: a time step allocates nothing and copies nothing between
// memory spaces. Counted with Kokkos' profiling hooks (the Kokkos Tools interface).
#include "kfvm_TestHelpers.hpp"

#include <kfvm_AdaptiveStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_ResourceWatch.hpp>

#include <functional>
#include <memory>
#include <string>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Two warm-up steps (first-use scratch space is allowed), then five watched ones: none
/// may allocate or copy between memory spaces.
void expectAllocateAndCopyNothing(const std::string& what,
                                  const std::function<bool()>& step) {
  for (int warmUp = 0; warmUp < 2; ++warmUp) ASSERT_TRUE(step()) << what;
  ResourceCounts counts;
  {
    ResourceWatch watch;
    for (int watched = 0; watched < 5; ++watched) ASSERT_TRUE(step()) << what;
    Kokkos::fence();
    counts = watch.counts();
  }
  EXPECT_EQ(counts.allocations, 0)
      << what << ": first was '" << counts.firstAllocation << "'";
  EXPECT_EQ(counts.crossSpaceCopies, 0)
      << what << ": first was '" << counts.firstCopy << "'";
}

/// A 3D equation with a coefficient field, sources and mixed conditions; with
/// constantD, the uniform stencil (one weight per axis, one interior diagonal).
struct StepProblem {
  Mesh<Space> mesh{CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8)};
  CellField<Space> D{mesh, "D", 0.5}, phi{mesh, "phi", 1.0};
  Equation<Space> equation{mesh};
  explicit StepProblem(bool constantD) {
    if (constantD)
      equation.transient().diffusion(0.5).implicitSource(-0.1).source(0.3);
    else
      equation.transient().diffusion(D).implicitSource(-0.1).source(0.3);
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(2.0))
        .boundary(Patch::Top, BoundaryCondition::robin(1.0, 0.5, 0.2));
  }
  std::unique_ptr<LinearSolver<Space>> solver(const std::string& name) const {
    return makeLinearSolver<Space>(name, {{"tolerance", solverToleranceText(1e-8)}});
  }
};

void expectStepsAllocateAndCopyNothing(const std::string& solverName, TimeScheme scheme,
                                       bool matrixFree = false) {
  StepProblem problem(matrixFree);
  ImplicitStepper<Space> stepper(problem.equation, problem.solver(solverName));
  stepper.setMatrixFree(matrixFree);
  expectAllocateAndCopyNothing(solverName + (matrixFree ? ", matrix-free" : ""), [&] {
    return stepper.step(problem.phi, 0.01, scheme).converged;
  });
}

TEST(Resources, TimeStepsAllocateNothingAndCopyNothingBetweenSpaces) {
  expectStepsAllocateAndCopyNothing("cg", TimeScheme::BackwardEuler);
  expectStepsAllocateAndCopyNothing("bicgstab", TimeScheme::CrankNicolson);
  expectStepsAllocateAndCopyNothing("gmres", TimeScheme::BackwardEuler);
  // Matrix-free: the stencil's one-pass product and dot, no matrix fill.
  expectStepsAllocateAndCopyNothing("cg", TimeScheme::BackwardEuler, true);
  expectStepsAllocateAndCopyNothing("bicgstab", TimeScheme::CrankNicolson, true);
}

// Adaptive steps (each three steps and error reductions, rejected tries among them)
// allocate their work fields on the first step only.
TEST(Resources, AdaptiveStepsAllocateNothingAndCopyNothingBetweenSpaces) {
  StepProblem problem(false);
  ImplicitStepper<Space> stepper(problem.equation, problem.solver("cg"));
  AdaptiveOptions options;
  options.tolerance = 1e-4;
  AdaptiveStepper<Space> adaptive(stepper, TimeScheme::CrankNicolson, options);
  double dt = 0.5;  // too large at first: rejected tries inside the watched steps too
  int rejected = 0;
  expectAllocateAndCopyNothing("adaptive", [&] {
    const auto report = adaptive.step(problem.phi, dt);
    dt = 4 * report.dtNext;  // each next try too large again
    rejected += report.rejected;
    return report.accepted;
  });
  EXPECT_GE(rejected, 5);
}

TEST(Resources, TheWatchSeesAnAllocationAndACopy) {
  ResourceWatch watch;
  Vector<Space> device("kfvm::Test::watched", 10);
  auto host = Kokkos::create_mirror(Kokkos::HostSpace(), device);
  Kokkos::deep_copy(host, device);
  const ResourceCounts counts = watch.counts();
  EXPECT_GE(counts.allocations, 1);
  if (!std::is_same<Space::memory_space, Kokkos::HostSpace>::value) {
    EXPECT_EQ(counts.crossSpaceCopies, 1);
  }
}

TEST(Resources, OneWatchAtATime) {
  ResourceWatch watch;
  expectError([] { ResourceWatch second; }, {"another ResourceWatch"});
}

}  // namespace
}  // namespace kfvm::Test
