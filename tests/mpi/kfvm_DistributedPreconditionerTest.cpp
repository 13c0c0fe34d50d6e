// Preconditioners across ranks: ILU(0) is block Jacobi over each rank's owned rows (a
// middle rank's ghosted block alone can be singular: steady 1D diffusion), and a setup
// that fails on some ranks fails on every rank instead of leaving the others waiting in
// the solve's reductions.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Steady diffusion on [0, 1] in 40 cells, phi = 0 (left) and 1 (right), D from
/// coefficient(x), over every rank in a row, solved by GMRES with preconditioner.
struct SteadyRow {
  CartesianGrid grid = CartesianGrid::uniform1D(40, 1.0);
  DistributedSystem<Space> system{
      grid, Decomposition::balanced(1, {40, 1, 1}, worldSize()), MPI_COMM_WORLD};
  CellField<Space> phi{system.localMesh(), "phi"};

  template <class Coefficient>
  SteadyRow(const std::string& preconditioner, Coefficient coefficient) {
    const auto& mesh = system.localMesh();
    CellField<Space> D(mesh, "D");
    const auto centres =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
    auto values = Kokkos::create_mirror_view(D.values());
    for (Ordinal c = 0; c < mesh.numCells(); ++c) values(c) = coefficient(centres(c, 0));
    Kokkos::deep_copy(D.values(), values);
    Equation<Space> equation(mesh);
    equation.diffusion(D);
    if (system.isPhysical(Patch::Left))
      equation.boundary(Patch::Left, BoundaryCondition::dirichlet(0.0));
    if (system.isPhysical(Patch::Right))
      equation.boundary(Patch::Right, BoundaryCondition::dirichlet(1.0));
    system.setEquation(equation);
    system.setSolver(
        makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-12)},
                                          {"max_iterations", "400"},
                                          {"preconditioner", preconditioner}}));
  }
};

TEST(DistributedPreconditioner, IluIsBlockJacobiOverTheOwnedRowsOnEveryRankCount) {
  for (const char* preconditioner : {"ilu0", "block-jacobi"}) {
    SteadyRow row(preconditioner, [](double) { return 1.0; });
    const auto report = row.system.solveSteady(row.phi);
    ASSERT_TRUE(report.converged) << preconditioner << ": " << report.reason;
    // The exact answer is phi = x (linear: the scheme is exact).
    const auto& mesh = row.system.localMesh();
    const auto centres =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
    const auto phi =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row.phi.values());
    double worst = 0;
    for (Ordinal c = 0; c < mesh.numCells(); ++c)
      worst = std::max(worst, std::abs(double(phi(c)) - double(centres(c, 0))));
    EXPECT_LT(worst, sizeof(Real) == sizeof(double) ? 1e-9 : 1e-4)
        << preconditioner << ", rank " << worldRank();
  }
}

TEST(DistributedPreconditioner, ASetupFailingOnOneRankFailsOnEveryRank) {
  // D = 0 beyond x = 0.95: the last rank's last cell has a zero row (no transient, no
  // source), and only that rank's Jacobi setup finds it.
  SteadyRow row("jacobi", [](double x) { return x > 0.95 ? 0.0 : 1.0; });
  const bool last = worldRank() == worldSize() - 1;
  expectRefused([&] { row.system.solveSteady(row.phi); },
                last
                    ? std::vector<std::string>{"Jacobi preconditioner", "is zero"}
                    : std::vector<std::string>{
                          "another rank (" + std::to_string(worldSize() - 1) + ") failed",
                          "Jacobi preconditioner"});
}

}  // namespace
}  // namespace kfvm::Test
