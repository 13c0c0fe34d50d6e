// One implicit step across 1, 2 and 4 ranks equals the single-process step: 3D
// diffusion with a variable coefficient and mixed boundary conditions, with and without
// upwind convection. Every rank also solves the whole problem alone, for reference.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_DistributedProblem.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

void checkAgainstOneProcess(const Decomposition& decomposition, bool convect) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  const Real dt = 0.01;
  // The whole problem on this process alone.
  Mesh<Space> mesh(grid);
  CellField<Space> D(mesh, "D"), reference(mesh, "phi");
  fillFields(mesh, D, reference);
  Equation<Space> whole(mesh);
  setUp(whole, D, convect, [](Patch) { return true; });
  ImplicitStepper<Space> stepper(
      whole, makeLinearSolver<Space>(convect ? "bicgstab" : "cg",
                                     {{"tolerance", solverToleranceText(1e-12)}}));
  ASSERT_TRUE(stepper.step(reference, dt).converged);
  const auto expected =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.values());
  // The same across the ranks.
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  const auto& local = system.localMesh();
  CellField<Space> localD(local, "D"), phi(local, "phi");
  fillFields(local, localD, phi);
  Equation<Space> part(local);
  setUp(part, localD, convect, [&](Patch p) { return system.isPhysical(p); });
  system.setEquation(part);  // upwind convection is not symmetric: BiCGStab
  system.setSolver(convect ? "bicgstab" : "cg", solverTolerance(1e-12), 5000);
  const auto report = system.step(phi, dt);
  ASSERT_TRUE(report.converged) << report.reason;
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  const auto& layout = system.layout();
  const int rank = worldRank();
  double worst = 0, scale = 0;
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i) {
        const auto first = decomposition.block(rank).first;
        const std::int64_t g =
            (first[0] + i) + std::int64_t(12) * ((first[1] + j) + 10 * (first[2] + k));
        const double want = double(expected(std::size_t(g)));
        worst = std::max(worst, std::abs(double(values(layout.index(i, j, k))) - want));
        scale = std::max(scale, std::abs(want));
      }
  // Owned and ghost cells agree with the single-process step to the solver tolerance.
  EXPECT_LT(worst, (sizeof(Real) == sizeof(double) ? 1e-9 : 1e-4) * scale)
      << "rank " << rank;
}

TEST(Distributed, ImplicitDiffusionStepEqualsTheOneProcessStep) {
  checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), false);
  checkAgainstOneProcess(
      Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(), {worldSize(), 1, 1}),
      false);
}

TEST(Distributed, ImplicitConvectionDiffusionStepEqualsTheOneProcessStep) {
  checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), true);
}

TEST(Distributed, ConditionsOnInnerSidesAndUnsupportedTermsAreErrors) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  const auto decomposition =
      Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(), {worldSize(), 1, 1});
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  Equation<Space> convecting(system.localMesh());
  convecting.transient(1.0).diffusion(1.0).convection(1.0, 0, 0,
                                                      ConvectionScheme::VanLeer);
  EXPECT_THROW(system.setEquation(convecting), Error);  // TVD sweeps
  if (worldSize() > 1) {
    const int rank = worldRank();
    Equation<Space> inner(system.localMesh());
    // Rank 0's right side and every other rank's left side face another rank.
    const Patch patch = rank == 0 ? Patch::Right : Patch::Left;
    EXPECT_FALSE(system.isPhysical(patch));
    inner.transient(1.0).diffusion(1.0).boundary(patch, BoundaryCondition::dirichlet(0));
    try {
      system.setEquation(inner);
      ADD_FAILURE() << "expected kfvm::Error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("faces another rank"), std::string::npos);
    }
  }
  CellField<Space> phi(system.localMesh(), "phi");
  EXPECT_THROW(system.step(phi, 0.1), Error);  // no equation yet
  EXPECT_THROW(system.setSolver("gmres", 1e-8, 100), Error);
  EXPECT_THROW(system.setSolver("cg", 0, 100), Error);
}

}  // namespace
}  // namespace kfvm::Test
