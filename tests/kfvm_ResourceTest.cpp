// The GPU lessons, enforced: a time step allocates nothing and copies nothing between
// memory spaces. Counted with Kokkos' profiling hooks (the Kokkos Tools interface).
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_ResourceWatch.hpp>

#include <string>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

void expectStepsAllocateAndCopyNothing(const std::string& solverName, TimeScheme scheme) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8));
  CellField<Space> D(mesh, "D", 0.5), phi(mesh, "phi", 1.0);
  Equation<Space> equation(mesh);
  equation.transient().diffusion(D).implicitSource(-0.1).source(0.3);
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(2.0))
      .boundary(Patch::Top, BoundaryCondition::robin(1.0, 0.5, 0.2));
  ImplicitStepper<Space> stepper(
      equation,
      makeLinearSolver<Space>(solverName, {{"tolerance", solverToleranceText(1e-8)}}));
  for (int step = 0; step < 2; ++step) {  // warm-up: first-use scratch space is allowed
    ASSERT_TRUE(stepper.step(phi, 0.01, scheme).converged);
  }
  ResourceCounts counts;
  {
    ResourceWatch watch;
    for (int step = 0; step < 5; ++step) {
      ASSERT_TRUE(stepper.step(phi, 0.01, scheme).converged);
    }
    Kokkos::fence();
    counts = watch.counts();
  }
  EXPECT_EQ(counts.allocations, 0)
      << solverName << ": first was '" << counts.firstAllocation << "'";
  EXPECT_EQ(counts.crossSpaceCopies, 0)
      << solverName << ": first was '" << counts.firstCopy << "'";
}

TEST(Resources, TimeStepsAllocateNothingAndCopyNothingBetweenSpaces) {
  expectStepsAllocateAndCopyNothing("cg", TimeScheme::BackwardEuler);
  expectStepsAllocateAndCopyNothing("bicgstab", TimeScheme::CrankNicolson);
  expectStepsAllocateAndCopyNothing("gmres", TimeScheme::BackwardEuler);
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
