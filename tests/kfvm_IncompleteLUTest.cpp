// ILU(0) preconditioning: exact on a full band, level sets of a 5-point stencil, fewer
// iterations than Jacobi, and its breakdowns named.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_IncompleteLU.hpp>
#include <kfvm_LinearSolver.hpp>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// The backward-Euler diffusion matrix of a Dirichlet problem, and its right-hand side.
struct DiffusionSystem {
  Mesh<Space> mesh;
  Equation<Space> equation;
  Assembler<Space> assembler;
  Vector<Space> rhs;

  explicit DiffusionSystem(const CartesianGrid& grid)
      : mesh(grid),
        equation(Equation<Space>(mesh).transient().diffusion(1.0).source(1.0).boundary(
            Patch::Left, BoundaryCondition::dirichlet(1.0))),
        assembler(equation),
        rhs("rhs", mesh.numCells()) {
    CellField<Space> old(mesh, "old");
    assembler.assemble(Real(0.01), Real(1), old, rhs);
  }
};

SolverReport solveWith(const std::string& solver, const std::string& preconditioner,
                       const DiffusionSystem& system, Vector<Space>& x) {
  auto linear =
      makeLinearSolver<Space>(solver, {{"preconditioner", preconditioner},
                                       {"tolerance", solverToleranceText(1e-10)},
                                       {"max_iterations", "2000"}});
  linear->setMatrix(system.assembler.matrix());
  x = Vector<Space>("x", system.mesh.numCells());
  return linear->solve(system.rhs, x);
}

TEST(IncompleteLU, IsExactOnATridiagonalMatrix) {
  DiffusionSystem system(CartesianGrid::uniform1D(200, 1.0));
  IncompleteLU<Space> ilu;
  ilu.analyze(system.assembler.matrix());
  EXPECT_EQ(ilu.numLowerLevels(), 200);  // a chain: one row per level
  EXPECT_EQ(ilu.numUpperLevels(), 200);
  Vector<Space> reference;
  ASSERT_TRUE(solveWith("cg", "jacobi", system, reference).converged);
  for (const std::string solver : {"cg", "bicgstab", "gmres"}) {
    Vector<Space> x;
    const auto report = solveWith(solver, "ilu0", system, x);
    EXPECT_TRUE(report.converged) << solver << ": " << report.reason;
    EXPECT_LE(report.iterations, sizeof(Real) == sizeof(double) ? 1 : 3) << solver;
    EXPECT_LT(maxDifference(toHost(x), toHost(reference)), tolerance(1e-8)) << solver;
  }
}

TEST(IncompleteLU, FivePointStencilHasDiagonalLevelSetsAndBeatsJacobi) {
  DiffusionSystem system(CartesianGrid::uniform2D(40, 30, 1.0, 0.75));
  IncompleteLU<Space> ilu;
  ilu.analyze(system.assembler.matrix());
  EXPECT_EQ(ilu.numLowerLevels(), 40 + 30 - 1);  // the anti-diagonals of the grid
  EXPECT_EQ(ilu.numUpperLevels(), 40 + 30 - 1);
  // 1200 rows in 69 levels: on a host backend the rows run in level order on one thread
  // (a loop per level would cost more in forks and joins than it shares); a device keeps
  // one parallel loop per level.
  constexpr bool onHost =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible;
  EXPECT_EQ(ilu.inOrder(), onHost);
  Vector<Space> withJacobi, withIlu;
  const auto jacobi = solveWith("cg", "jacobi", system, withJacobi);
  const auto incomplete = solveWith("cg", "ilu0", system, withIlu);
  ASSERT_TRUE(jacobi.converged) << jacobi.reason;
  ASSERT_TRUE(incomplete.converged) << incomplete.reason;
  std::printf("CG on 40 x 30 diffusion: %d iterations with Jacobi, %d with ILU(0)\n",
              jacobi.iterations, incomplete.iterations);
  EXPECT_LT(2 * incomplete.iterations, jacobi.iterations);
  EXPECT_LT(maxDifference(toHost(withIlu), toHost(withJacobi)), tolerance(1e-7));
}

TEST(IncompleteLU, BreakdownsAndMissingDiagonalsAreErrors) {
  const auto zeroPivot =
      CrsMatrix<Space>::fromHost(2, 2, {0, 2, 4}, {0, 1, 0, 1}, {0.0, 1.0, 1.0, 0.0});
  IncompleteLU<Space> ilu;
  ilu.analyze(zeroPivot);
  expectError([&] { ilu.factorize(zeroPivot); }, {"pivot of row 0 is 0"});
  const auto noDiagonal =
      CrsMatrix<Space>::fromHost(2, 2, {0, 2, 3}, {0, 1, 0}, {2.0, 1.0, 1.0});
  expectError([&] { ilu.analyze(noDiagonal); }, {"row 1 has no diagonal entry"});
  expectError(
      [&] {
        makeLinearSolver<Space>("gmres", {{"preconditioner", "ilu1"}});
      },
      {"unknown preconditioner 'ilu1'", "ilu0"});
}

}  // namespace
}  // namespace kfvm::Test
