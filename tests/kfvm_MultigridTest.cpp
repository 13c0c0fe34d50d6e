// Geometric multigrid ("mg"): the finest level's face form is the assembled operator; a
// coarse level is the same equation rediscretized on the coarse grid; CG with one
// V-cycle per iteration solves variable-coefficient Poisson with mixed boundaries in a
// number of iterations that does not grow with the grid, to Jacobi-CG's answer; bad
// parameters and operators without a grid are errors naming them.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// values(c) = offset + amplitude sin(0.7 c).
void setWavy(const CellField<Space>& field, double offset, double amplitude) {
  std::vector<double> values(std::size_t(field.values().extent(0)));
  for (std::size_t c = 0; c < values.size(); ++c)
    values[c] = offset + amplitude * std::sin(0.7 * double(c));
  Kokkos::deep_copy(field.values(), toDevice(values));
}

/// y = A x on the host through the assembler's matrix.
std::vector<double> matrixProduct(const Assembler<Space>& assembler,
                                  const std::vector<double>& x) {
  Vector<Space> y("y", Ordinal(x.size()));
  MatrixOperator<Space>(assembler.matrix()).apply(toDevice(x), y);
  return toHost(y);
}

std::vector<double> wavy(Ordinal n) {
  std::vector<double> x(std::size_t(n), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.3 * double(i)) + 0.1;
  return x;
}

/// A diffusion equation with mixed boundaries on grid (Dirichlet left, Robin right,
/// Neumann top; the other sides zero flux).
void setUpMixed(Equation<Space>& equation) {
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
  if (equation.mesh().hasPatch(Patch::Right))
    equation.boundary(Patch::Right, BoundaryCondition::robin(2.0, 1.0, 0.5));
  if (equation.mesh().hasPatch(Patch::Top))
    equation.boundary(Patch::Top, BoundaryCondition::neumann(-0.3));
}

TEST(Multigrid, FinestLevelIsTheAssembledOperator) {
  for (const auto& grid :
       {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.2}, {0.4, 0.1, 0.2},
                                   {0.3, 0.1, 0.2, 0.25})}) {
    Mesh<Space> mesh(grid);
    CellField<Space> D(mesh, "D"), rho(mesh, "rho");
    setWavy(D, 1.5, 0.5);
    setWavy(rho, 2.0, 1.0);
    Equation<Space> equation(mesh);
    equation.transient(rho).diffusion(D).implicitSource(-0.25);
    setUpMixed(equation);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    Vector<Space> rhs("rhs", mesh.numCells()), diagonal("diagonal", mesh.numCells());
    for (const Real theta : {Real(1), Real(0.5)}) {
      assembler.assemble(3, theta, old, rhs);
      MatrixOperator<Space>(assembler.matrix()).diagonal(diagonal);
      GridLevel<Space> level(grid);
      level.refresh(assembler, diagonal);
      const auto x = wavy(mesh.numCells());
      Vector<Space> y("y", mesh.numCells());
      level.apply(toDevice(x), y);
      const auto expected = matrixProduct(assembler, x);
      EXPECT_LT(maxDifference(toHost(y), expected),
                tolerance(1e-13) * largestMagnitude(expected))
          << "dimension " << grid.dimension() << ", theta " << theta;
    }
  }
}

// Constant coefficients: the coarse level of a grid is the equation assembled on the
// coarse grid (every other vertex; odd counts keep a single last cell), Dirichlet and
// Neumann boundaries, transient and implicit source terms included.
TEST(Multigrid, CoarseLevelIsTheEquationOnTheCoarseGrid) {
  for (const auto& grid :
       {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.2, 0.1},
                                   {0.4, 0.1, 0.2, 0.3, 0.1}, {0.3, 0.1, 0.2})}) {
    const auto setUp = [](Equation<Space>& equation) {
      equation.transient(2.0).diffusion(1.3).implicitSource(-0.25);
      equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
      if (equation.mesh().hasPatch(Patch::Top))
        equation.boundary(Patch::Top, BoundaryCondition::neumann(-0.3));
    };
    Mesh<Space> mesh(grid);
    Equation<Space> equation(mesh);
    setUp(equation);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    Vector<Space> rhs("rhs", mesh.numCells()), diagonal("diagonal", mesh.numCells());
    assembler.assemble(3, 1, old, rhs);
    MatrixOperator<Space>(assembler.matrix()).diagonal(diagonal);
    GridLevel<Space> fine(grid);
    fine.refresh(assembler, diagonal);
    GridLevel<Space> coarse = fine.coarser();
    coarse.refresh(fine);

    std::array<std::vector<double>, 3> vertices;
    for (int a = 0; a < 3; ++a) {
      const auto& v = grid.vertices(a);
      if (a >= grid.dimension()) continue;
      for (std::size_t i = 0; i < v.size(); i += 2) vertices[a].push_back(v[i]);
      if ((v.size() - 1) % 2 == 1) vertices[a].push_back(v.back());
    }
    const CartesianGrid coarseGrid = CartesianGrid::fromVertices(
        vertices[0], grid.dimension() >= 2 ? vertices[1] : std::vector<double>{},
        grid.dimension() >= 3 ? vertices[2] : std::vector<double>{});
    Mesh<Space> coarseMesh(coarseGrid);
    ASSERT_EQ(coarse.numCells(), coarseMesh.numCells());
    Equation<Space> coarseEquation(coarseMesh);
    setUp(coarseEquation);
    Assembler<Space> coarseAssembler(coarseEquation);
    CellField<Space> coarseOld(coarseMesh, "old");
    Vector<Space> coarseRhs("rhs", coarseMesh.numCells());
    coarseAssembler.assemble(3, 1, coarseOld, coarseRhs);
    const auto x = wavy(coarse.numCells());
    Vector<Space> y("y", coarse.numCells());
    coarse.apply(toDevice(x), y);
    const auto expected = matrixProduct(coarseAssembler, x);
    EXPECT_LT(maxDifference(toHost(y), expected),
              tolerance(1e-12) * largestMagnitude(expected))
        << "dimension " << grid.dimension();
  }
}

/// Steady variable-coefficient Poisson on an n^3 unit cube with mixed boundaries, solved
/// by CG with the named preconditioner; returns the iterations, the answer in x.
int solvePoisson(int n, const std::string& preconditioner, std::vector<double>& x,
                 const Parameters& extra = {}) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(n, n, n, 1.0, 1.0, 1.0));
  CellField<Space> D(mesh, "D");
  {
    std::vector<double> values(std::size_t(mesh.numCells()));
    const auto centres =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
    for (std::size_t c = 0; c < values.size(); ++c)
      values[c] = 1 + 0.5 * std::sin(3 * centres(c, 0)) * std::cos(2 * centres(c, 1));
    Kokkos::deep_copy(D.values(), toDevice(values));
  }
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(1.0);
  setUpMixed(equation);
  Assembler<Space> assembler(equation);
  assembler.setFillsMatrix(false);
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(0, 1, old, rhs);
  const MatrixFreeOperator<Space> op(assembler);
  Parameters parameters = extra;
  parameters.set("tolerance", solverToleranceText(1e-8))
      .set("preconditioner", preconditioner)
      .set("max_iterations", 2000);
  auto solver = makeLinearSolver<Space>("cg", parameters);
  solver->setOperator(op);
  Vector<Space> solution("x", mesh.numCells());
  const auto report = solver->solve(rhs, solution);
  EXPECT_TRUE(report.converged) << preconditioner << " at " << n << ": " << report.reason;
  x = toHost(solution);
  return report.iterations;
}

TEST(Multigrid, CgIterationsDoNotGrowWithTheGridAndMatchJacobiCg) {
  std::vector<int> iterations;
  for (const int n : {16, 32, 64}) {
    std::vector<double> x, reference;
    const int it = solvePoisson(n, "mg", x);
    iterations.push_back(it);
    solvePoisson(n, "jacobi", reference);
    EXPECT_LT(maxDifference(x, reference), tolerance(1e-6) * largestMagnitude(reference))
        << n;
    std::printf("mg %d^3: %d CG iterations\n", n, it);
  }
  for (const int it : iterations) EXPECT_LE(it, 12);
}

TEST(Multigrid, BadParametersAndOperatorsWithoutAGridAreErrors) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"mg_degree", "1"},         {"mg_sweeps", "0"}, {"mg_coarse_cells", "0"},
      {"mg_coarse_degree", "65"}, {"mg_levels", "0"}, {"mg_cycle", "x"},
      {"mg_estimate", "never"}};
  for (const auto& parameter : bad)
    expectError(
        [&] {
          makePreconditioner<Space>("mg", {{parameter.first, parameter.second}});
        },
        {parameter.first, parameter.second});
  Mesh<Space> mesh(CartesianGrid::uniform2D(4, 4, 1.0, 1.0));
  Equation<Space> equation(mesh);
  equation.diffusion(1.0);
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(0, 1, old, rhs);
  const MatrixOperator<Space> matrix(assembler.matrix());
  auto mg = makePreconditioner<Space>("mg");
  expectError([&] { mg->setup(matrix); }, {"mg preconditioner", "CRS matrix"});
}

}  // namespace
}  // namespace kfvm::Test
