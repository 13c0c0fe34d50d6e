// Periodic grids across 1, 2 and 4 ranks: a split with periodic axes wraps the ghost
// layers around the grid, so every rank's block is an ordinary grid (the assembled
// matrix and the matrix-free stencil alike) and the steps equal the one-process steps on
// the periodic Mesh: diffusion with upwind and Van Leer convection, periodic in both
// axes and in x only (Dirichlet at the bottom and top).
#include "../kfvm_TestSpace.hpp"
#include "kfvm_AgainstOneProcess.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// phi(x, y) at the cell centres of a mesh (periodic in x over 1.2 and in y over 1).
std::vector<double> startValues(const Mesh<Space>& mesh) {
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  std::vector<double> values;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double x = centres(c, 0), y = centres(c, 1);
    values.push_back(0.3 + std::sin(2 * pi * x / 1.2) * std::cos(2 * pi * y) +
                     (std::abs(x - 0.4) < 0.2 && std::abs(y - 0.5) < 0.2 ? 1.0 : 0.0));
  }
  return values;
}

struct Case {
  bool periodicY;
  bool convect;
  ConvectionScheme scheme;
  bool matrixFree;
};

void checkAgainstOneProcess(const Case& c) {
  const auto grid = CartesianGrid::uniform2D(12, 10, 1.2, 1.0);
  const std::array<bool, 3> periodic{true, c.periodicY, false};
  // Across the ranks, the split wrapping around: a periodic side faces a rank.
  const auto split =
      Decomposition::balanced(2, {12, 10, 1}, worldSize()).withPeriodicAxes(periodic);
  const auto blocks = onBlocks(grid, split, c.convect && isTvd(c.scheme) ? 2 : 1);
  {
    const auto system = blocks();
    EXPECT_FALSE(system->isPhysical(Patch::Left) || system->isPhysical(Patch::Right));
    if (c.periodicY)
      EXPECT_FALSE(system->isPhysical(Patch::Bottom) || system->isPhysical(Patch::Top));
  }
  EquationCase check;
  check.name = std::string("periodic ") + (c.periodicY ? "x and y, " : "x, ") +
               (c.convect ? convectionSchemeName(c.scheme) : "diffusion") +
               (c.matrixFree ? " (matrix-free)" : "");
  check.terms = [c](Equation<Space>& equation, const auto& isPhysical) {
    equation.transient().diffusion(Real(0.05));
    if (c.convect) equation.convection(0.7, 0.3, 0, c.scheme);
    if (!c.periodicY && isPhysical(Patch::Bottom))
      equation.boundary(Patch::Bottom, BoundaryCondition::dirichlet(1));
    if (!c.periodicY && isPhysical(Patch::Top))
      equation.boundary(Patch::Top, BoundaryCondition::dirichlet(0));
  };
  // On a rank, the ghosts beyond an end: the other end's values.
  check.start = [](CellField<Space>& phi, const Mesh<Space>& mesh) {
    phi.fromHost(startValues(mesh));
  };
  check.solver = c.convect ? "bicgstab" : "cg";
  check.sweepTolerance = 1e-12;
  check.maxSweeps = 40;
  check.steps = 3;
  check.dt = Real(0.02);
  check.matrixFree = c.matrixFree;
  check.tolerance = tolerance(1e-10);
  checkAgainstOneProcess(
      Mesh<Space>(grid, GridGeometry(Coordinates::Cartesian, periodic)), blocks, check);
}

TEST(DistributedPeriodic, DiffusionStepsEqualTheOneProcessSteps) {
  checkAgainstOneProcess({true, false, ConvectionScheme::Upwind, false});
  checkAgainstOneProcess({false, false, ConvectionScheme::Upwind, false});
}

TEST(DistributedPeriodic, MatrixFreeStencilStepsEqualTheOneProcessSteps) {
  checkAgainstOneProcess({true, false, ConvectionScheme::Upwind, true});
}

TEST(DistributedPeriodic, UpwindAndVanLeerConvectionEqualTheOneProcessSteps) {
  checkAgainstOneProcess({true, true, ConvectionScheme::Upwind, false});
  checkAgainstOneProcess({false, true, ConvectionScheme::VanLeer, false});
}

/// One implicit solve with CG and geometric multigrid (settings added) on the periodic
/// Mesh of this process alone and across the ranks (the split wrapping around): steady
/// diffusion with a source between Dirichlet bottom and top (periodic in x only), or,
/// with dt > 0, one long step of transient diffusion (periodic along every axis, no
/// boundary). The distributed answer must equal the one-process one on every local
/// cell (ghosts beyond an end included); the iterations of both are returned.
std::pair<int, int> multigridBoth(const CartesianGrid& grid,
                                  const std::array<bool, 3>& periodic, Real dt,
                                  const std::map<std::string, std::string>& settings,
                                  bool matrixFree = false) {
  Parameters parameters{{"tolerance", solverToleranceText(1e-10)},
                        {"max_iterations", "300"},
                        {"preconditioner", "mg"}};
  for (const auto& [key, value] : settings) parameters.set(key, value);
  const auto setUpSolve = [dt](Equation<Space>& equation, bool bottom, bool top) {
    if (dt > 0) equation.transient();
    equation.diffusion(Real(1));
    if (dt == 0) equation.source(0.3);
    if (bottom) equation.boundary(Patch::Bottom, BoundaryCondition::dirichlet(1));
    if (top) equation.boundary(Patch::Top, BoundaryCondition::dirichlet(0));
  };
  const auto solve = [dt](auto& solver, CellField<Space>& phi) {
    return dt > 0 ? solver.step(phi, dt) : solver.solveSteady(phi);
  };
  const bool walls = !periodic[1];
  const Mesh<Space> whole(grid, GridGeometry(Coordinates::Cartesian, periodic));
  CellField<Space> reference(whole, "phi");
  reference.fromHost(startValues(whole));
  Equation<Space> alone(whole);
  setUpSolve(alone, walls, walls);
  ImplicitStepper<Space> stepper(alone, makeLinearSolver<Space>("cg", parameters));
  stepper.setMatrixFree(matrixFree);
  const auto one = solve(stepper, reference);
  EXPECT_TRUE(one.converged) << one.reason;
  const auto expected = reference.toHost();

  const auto split =
      Decomposition::balanced(grid.dimension(), grid.cellCounts(), worldSize())
          .withPeriodicAxes(periodic);
  DistributedSystem<Space> system(grid, split, MPI_COMM_WORLD);
  const auto& local = system.localMesh();
  CellField<Space> phi(local, "phi");
  phi.fromHost(startValues(local));
  Equation<Space> part(local);
  setUpSolve(part, walls && system.isPhysical(Patch::Bottom),
             walls && system.isPhysical(Patch::Top));
  system.setEquation(part);
  system.setMatrixFree(matrixFree);
  system.setSolver(makeLinearSolver<Space>("cg", parameters));
  const auto many = solve(system, phi);
  EXPECT_TRUE(many.converged) << many.reason;
  const auto values = phi.toHost();
  const auto ids = system.localGlobalIds();
  double worst = 0, scale = 0;
  for (std::size_t cell = 0; cell < ids.size(); ++cell) {
    const double want = double(expected[std::size_t(ids[cell])]);
    worst = std::max(worst, std::abs(double(values[cell]) - want));
    scale = std::max(scale, std::abs(want));
  }
  EXPECT_LT(worst, (sizeof(Real) == sizeof(double) ? 1e-8 : 1e-3) * scale)
      << "rank " << worldRank() << " of " << worldSize();
  return {one.iterations, many.iterations};
}

TEST(DistributedPeriodic, MultigridTakesTheOneProcessIterations) {
  // Blocks of even counts: the levels across the ranks are the one-process levels
  // (periodic axes merged while their count is 2 or a multiple of 4), the ghosts beyond
  // an end wrapping around on every level.
  const int slack = sizeof(Real) == sizeof(double) ? 1 : 3;  // rounding in float
  const auto plane = CartesianGrid::uniform2D(32, 32, 1.2, 1.0);
  const auto cube = CartesianGrid::uniform3D(16, 16, 16, 1.2, 1.0, 1.0);
  for (const char* smoother : {"chebyshev", "gauss-seidel"}) {
    SCOPED_TRACE(smoother);
    const auto [oneSteady, manySteady] =
        multigridBoth(plane, {true, false, false}, 0, {{"mg_smoother", smoother}});
    const auto [oneStep, manyStep] =
        multigridBoth(cube, {true, true, true}, 10, {{"mg_smoother", smoother}});
    if (worldRank() == 0)
      std::printf(
          "  mg-CG, %s, on %d ranks: %d (one process %d) iterations, steady "
          "32^2 periodic in x; %d (%d) for a step on 16^3 periodic\n",
          smoother, worldSize(), manySteady, oneSteady, manyStep, oneStep);
    EXPECT_LE(std::abs(oneSteady - manySteady), slack);
    EXPECT_LE(std::abs(oneStep - manyStep), slack);
    EXPECT_LE(manySteady, 20);
    EXPECT_LE(manyStep, 20);
  }
  const auto [one, many] =
      multigridBoth(cube, {true, true, true}, 10, {}, true);  // matrix-free
  EXPECT_LE(std::abs(one - many), slack) << one << " vs " << many;
}

TEST(DistributedPeriodic, OddPeriodicCountsRefuseGaussSeidelAndChebyshevConverges) {
  // 9 cells around x: the red-black colours by global index meet across the wrap.
  const auto odd = CartesianGrid::uniform2D(9, 8, 1.2, 1.0);
  const std::array<bool, 3> periodic{true, false, false};
  DistributedSystem<Space> system(
      odd, Decomposition::balanced(2, {9, 8, 1}, worldSize()).withPeriodicAxes(periodic),
      MPI_COMM_WORLD);
  CellField<Space> phi(system.localMesh(), "phi");
  Equation<Space> equation(system.localMesh());
  equation.diffusion(Real(1)).source(0.3);
  if (system.isPhysical(Patch::Bottom))
    equation.boundary(Patch::Bottom, BoundaryCondition::dirichlet(1));
  system.setEquation(equation);
  system.setSolver(makeLinearSolver<Space>(
      "cg", {{"preconditioner", "mg"}, {"mg_smoother", "gauss-seidel"}}));
  expectRefused([&] { system.solveSteady(phi); },
                {"mg_smoother 'gauss-seidel'", "even number", "9 along axis 0"});
  const auto [one, many] = multigridBoth(odd, periodic, 0, {});  // Chebyshev
  EXPECT_LE(many, one + 3) << one << " vs " << many;
}

TEST(DistributedPeriodic, AxesBeyondTheDimensionAreRefused) {
  expectRefused(
      [] {
        Decomposition::balanced(2, {12, 10, 1}, 1).withPeriodicAxes({true, true, true});
      },
      {"axis 2 of a 2D grid cannot be periodic"});
}

}  // namespace
}  // namespace kfvm::Test
