// Geometric multigrid on periodic grids: the finest level is the assembled periodic
// operator, a coarse level the periodic equation on the coarse grid (its ends joined
// as the fine grid's), the transfers interpolate across the ends, and CG with mg
// solves periodic problems in a number of iterations that does not grow with the grid,
// to Jacobi-CG's answer. Red-black Gauss-Seidel with an odd count along a periodic axis
// is a named error.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_GridTransfer.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

struct PeriodicCase {
  CartesianGrid grid;
  std::array<bool, 3> periodic;
};

/// Stretched and uniform grids periodic along one axis or several.
std::vector<PeriodicCase> periodicCases() {
  return {{CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05, 0.2, 0.1, 0.25}),
           {true, false, false}},
          {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05, 0.2, 0.1, 0.25},
                                      {0.4, 0.1, 0.2, 0.3, 0.2, 0.1}),
           {true, false, false}},
          {CartesianGrid::uniform2D(4, 8, 1.0, 2.0), {true, true, false}},
          {CartesianGrid::uniform2D(6, 8, 1.5, 2.0), {false, true, false}},
          {CartesianGrid::fromSpacing({0.2, 0.2, 0.3, 0.3}, {0.25, 0.25, 0.25, 0.25},
                                      {0.1, 0.1, 0.1, 0.1, 0.15, 0.15, 0.1, 0.1}),
           {false, true, true}}};
}

Mesh<Space> periodicMesh(const PeriodicCase& c) {
  return Mesh<Space>(c.grid, GridGeometry(Coordinates::Cartesian, c.periodic));
}

std::string describe(const PeriodicCase& c) {
  return Details::concatenate(c.grid.dimension(), "D, periodic ", c.periodic[0],
                              c.periodic[1], c.periodic[2]);
}

/// Dirichlet, Robin and Neumann sides where the grid has them.
void setUpSides(Equation<Space>& equation) {
  const auto& mesh = equation.mesh();
  if (mesh.hasPatch(Patch::Left))
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
  if (mesh.hasPatch(Patch::Right))
    equation.boundary(Patch::Right, BoundaryCondition::robin(2.0, 1.0, 0.5));
  if (mesh.hasPatch(Patch::Bottom))
    equation.boundary(Patch::Bottom, BoundaryCondition::dirichlet(-1.0));
  if (mesh.hasPatch(Patch::Top))
    equation.boundary(Patch::Top, BoundaryCondition::neumann(-0.3));
}

std::vector<double> wavyValues(Ordinal n, double offset, double amplitude) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = offset + amplitude * std::cos(0.3 * double(i));
  return x;
}

/// The matrix's product A x and the level's, for the assembler's last assemble().
void expectLevelIsMatrix(const GridLevel<Space>& level, const Assembler<Space>& assembler,
                         const std::string& where) {
  const auto x = wavyValues(level.numCells(), 0.1, 1.0);
  Vector<Space> fromLevel("fromLevel", level.numCells());
  Vector<Space> fromMatrix("fromMatrix", level.numCells());
  level.apply(toDevice(x), fromLevel);
  MatrixOperator<Space>(assembler.matrix()).apply(toDevice(x), fromMatrix);
  const auto expected = toHost(fromMatrix);
  EXPECT_LT(maxDifference(toHost(fromLevel), expected),
            tolerance(1e-12) * largestMagnitude(expected))
      << where;
}

TEST(PeriodicMultigrid, FinestLevelIsTheAssembledPeriodicOperator) {
  for (const auto& c : periodicCases()) {
    const auto mesh = periodicMesh(c);
    CellField<Space> D(mesh, "D"), rho(mesh, "rho"), old(mesh, "old");
    D.fromHost(wavyValues(mesh.numCells(), 1.5, 0.5));
    rho.fromHost(wavyValues(mesh.numCells(), 2.0, 1.0));
    Equation<Space> equation(mesh);
    equation.transient(rho).diffusion(D).implicitSource(-0.25);
    setUpSides(equation);
    Assembler<Space> assembler(equation);
    Vector<Space> rhs("rhs", mesh.numCells()), diagonal("diagonal", mesh.numCells());
    for (const Real theta : {Real(1), Real(0.5)}) {
      assembler.assemble(3, theta, old, rhs);
      MatrixOperator<Space>(assembler.matrix()).diagonal(diagonal);
      GridLevel<Space> level(c.grid, c.periodic);
      level.refresh(assembler, diagonal);
      expectLevelIsMatrix(level, assembler, describe(c));
    }
  }
}

// Constant coefficients: each coarse level is the periodic equation assembled on its
// grid, down to the coarsest; a periodic axis is merged while its count is 2 or a
// multiple of 4 (8 -> 4 -> 2 -> 1; 6 cells stay 6).
TEST(PeriodicMultigrid, CoarseLevelsAreThePeriodicEquationOnTheCoarseGrids) {
  for (const auto& c : periodicCases()) {
    const auto setUp = [](Equation<Space>& equation) {
      equation.transient(2.0).diffusion(1.3).implicitSource(-0.25);
      setUpSides(equation);
    };
    const auto mesh = periodicMesh(c);
    Equation<Space> equation(mesh);
    setUp(equation);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    Vector<Space> rhs("rhs", mesh.numCells()), diagonal("diagonal", mesh.numCells());
    assembler.assemble(3, 1, old, rhs);
    MatrixOperator<Space>(assembler.matrix()).diagonal(diagonal);
    std::vector<GridLevel<Space>> levels;
    levels.emplace_back(c.grid, c.periodic);
    levels.back().refresh(assembler, diagonal);
    while (levels.back().canCoarsen() && levels.size() < 6) {
      GridLevel<Space> coarse = levels.back().coarser();
      coarse.refresh(levels.back());
      levels.push_back(std::move(coarse));
    }
    ASSERT_GE(levels.size(), 3u) << describe(c);
    for (std::size_t l = 1; l < levels.size(); ++l) {
      const auto& level = levels[l];
      const auto& finer = levels[l - 1];
      for (int a = 0; a < c.grid.dimension(); ++a) {
        const int n = finer.cells()[a];
        const bool mergeable = !c.periodic[a] || n == 2 || n % 4 == 0;
        if (c.periodic[a] && !mergeable) EXPECT_EQ(level.cells()[a], n) << describe(c);
        if (level.cells()[a] != n) EXPECT_EQ(level.cells()[a], (n + 1) / 2);
        EXPECT_EQ(level.periodic()[a], c.periodic[a]);
      }
      const auto grid = CartesianGrid::fromVertices(
          level.vertices(0),
          c.grid.dimension() >= 2 ? level.vertices(1) : std::vector<double>{},
          c.grid.dimension() >= 3 ? level.vertices(2) : std::vector<double>{});
      bool periodicWithOneCell = false;
      for (int a = 0; a < 3; ++a)
        periodicWithOneCell = periodicWithOneCell || (c.periodic[a] && grid.cells(a) < 2);
      if (periodicWithOneCell) continue;  // no Mesh: a cell its own neighbour
      const Mesh<Space> coarseMesh(grid,
                                   GridGeometry(Coordinates::Cartesian, c.periodic));
      Equation<Space> coarseEquation(coarseMesh);
      setUp(coarseEquation);
      Assembler<Space> coarseAssembler(coarseEquation);
      CellField<Space> coarseOld(coarseMesh, "old");
      Vector<Space> coarseRhs("rhs", coarseMesh.numCells());
      coarseAssembler.assemble(3, 1, coarseOld, coarseRhs);
      expectLevelIsMatrix(
          level, coarseAssembler,
          describe(c) + ", level " + std::to_string(l) + ": " + level.description());
    }
  }
}

// Around a periodic axis the prolongation interpolates across the ends: a coarse
// function linear in sin/cos of the angle comes back to second order, and restriction
// keeps the sum (R = P^T with weights summing to 1).
TEST(PeriodicMultigrid, TransfersInterpolateAcrossTheEnds) {
  const PeriodicCase c{CartesianGrid::uniform1D(16, 1.0), {true, false, false}};
  GridLevel<Space> fine(c.grid, c.periodic);
  const GridLevel<Space> coarse = fine.coarser();
  ASSERT_EQ(coarse.cells()[0], 8);
  const GridTransfer<Space> transfer(fine, coarse);
  const double pi = std::acos(-1.0);
  std::vector<double> e(8);
  for (int I = 0; I < 8; ++I) e[std::size_t(I)] = std::cos(2 * pi * (I + 0.5) / 8);
  Vector<Space> x("x", 16);
  transfer.prolongAdd(toDevice(e), x);
  const auto fineValues = toHost(x);
  // Fine cell 0 (centre 1/32) lies between coarse cell 7 (across the end) and 0.
  const double expected0 = 0.75 * e[0] + 0.25 * e[7];
  EXPECT_NEAR(fineValues[0], expected0, 1e-6);
  EXPECT_NEAR(fineValues[15], 0.75 * e[7] + 0.25 * e[0], 1e-6);
  Vector<Space> restricted("restricted", 8);
  transfer.restrict(toDevice(std::vector<double>(16, 1.0)), restricted);
  double sum = 0;
  for (double v : toHost(restricted)) sum += v;
  EXPECT_NEAR(sum, 16.0, 1e-5);
}

/// Steady variable-coefficient Poisson (transient when every axis is periodic: then
/// the operator needs its mass term) by CG and the named preconditioner, matrix-free;
/// returns the iterations, the answer in x.
int solvePeriodic(const CartesianGrid& grid, const std::array<bool, 3>& periodic,
                  const std::string& preconditioner, std::vector<double>& x,
                  const std::string& smoother = "chebyshev") {
  const Mesh<Space> mesh(grid, GridGeometry(Coordinates::Cartesian, periodic));
  CellField<Space> D(mesh, "D"), old(mesh, "old");
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  std::vector<double> d(std::size_t(mesh.numCells())), start(d.size());
  const double pi = std::acos(-1.0);
  for (std::size_t c = 0; c < d.size(); ++c) {
    d[c] = 1 + 0.5 * std::sin(2 * pi * centres(c, 0)) * std::cos(2 * pi * centres(c, 1));
    start[c] = std::cos(2 * pi * centres(c, 0)) + std::sin(4 * pi * centres(c, 1));
  }
  D.fromHost(d);
  old.fromHost(start);
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(1.0);
  setUpSides(equation);
  const bool allPeriodic = mesh.patchSize(Patch::Bottom) == 0 &&
                           mesh.patchSize(Patch::Left) == 0 &&
                           (grid.dimension() < 3 || mesh.patchSize(Patch::Back) == 0);
  if (allPeriodic) equation.transient(1.0);
  Assembler<Space> assembler(equation);
  assembler.setFillsMatrix(false);
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(allPeriodic ? 100 : 0, 1, old, rhs);
  const MatrixFreeOperator<Space> op(assembler);
  Parameters parameters{{"tolerance", solverToleranceText(1e-9)},
                        {"preconditioner", preconditioner},
                        {"max_iterations", "3000"}};
  if (preconditioner == "mg") parameters.set("mg_smoother", smoother);
  auto solver = makeLinearSolver<Space>("cg", parameters);
  solver->setDiscretization({&assembler, nullptr, nullptr});
  solver->setOperator(op);
  Vector<Space> solution("x", mesh.numCells());
  const auto report = solver->solve(rhs, solution);
  EXPECT_TRUE(report.converged)
      << preconditioner << " on " << mesh.numCells() << " cells: " << report.reason;
  x = toHost(solution);
  return report.iterations;
}

TEST(PeriodicMultigrid, CgIterationsDoNotGrowWithTheGridAndMatchJacobiCg) {
  struct Family {
    std::array<bool, 3> periodic;
    int dimension;
    std::vector<int> sizes;
    std::string smoother;
  };
  const std::vector<Family> families = {
      {{true, false, false}, 2, {32, 64, 128}, "chebyshev"},
      {{true, true, false}, 2, {32, 64, 128}, "gauss-seidel"},
      {{true, true, true}, 3, {8, 16, 32}, "chebyshev"},
      {{false, true, true}, 3, {8, 16, 32}, "gauss-seidel"}};
  for (const auto& family : families) {
    std::vector<int> iterations;
    for (const int n : family.sizes) {
      const auto grid = family.dimension == 2
                            ? CartesianGrid::uniform2D(n, n, 1.0, 1.0)
                            : CartesianGrid::uniform3D(n, n, n, 1.0, 1.0, 1.0);
      std::vector<double> x, reference;
      iterations.push_back(
          solvePeriodic(grid, family.periodic, "mg", x, family.smoother));
      const int jacobi = solvePeriodic(grid, family.periodic, "jacobi", reference);
      EXPECT_LT(maxDifference(x, reference),
                tolerance(1e-6) * largestMagnitude(reference))
          << n;
      std::printf(
          "  periodic %d%d%d, %dD n = %d, %s: mg-CG %d, Jacobi-CG %d iterations\n",
          family.periodic[0], family.periodic[1], family.periodic[2], family.dimension, n,
          family.smoother.c_str(), iterations.back(), jacobi);
    }
    for (std::size_t k = 1; k < iterations.size(); ++k)
      EXPECT_LE(iterations[k], iterations[0] + 3) << "periodic mg iterations grew";
    for (const int it : iterations) EXPECT_LE(it, 16);  // measured (Serial): 6 to 12
  }
}

TEST(PeriodicMultigrid, GaussSeidelNeedsEvenCountsAlongPeriodicAxes) {
  std::vector<double> x;
  const auto grid = CartesianGrid::uniform2D(9, 8, 1.0, 1.0);
  expectError(
      [&] {
        solvePeriodic(grid, {true, false, false}, "mg", x, "gauss-seidel");
      },
      {"mg_smoother 'gauss-seidel'", "periodic axis", "9 along axis 0", "chebyshev"});
  // Chebyshev takes it (the odd axis is not merged).
  EXPECT_GT(solvePeriodic(grid, {true, false, false}, "mg", x), 0);
}

}  // namespace
}  // namespace kfvm::Test
