// Geometric multigrid ("mg"): the finest level's face form is the assembled operator; a
// coarse level is the same equation rediscretized on the coarse grid; CG with one
// V-cycle per iteration solves variable-coefficient Poisson with mixed boundaries in a
// number of iterations that does not grow with the grid, to Jacobi-CG's answer; bad
// parameters and operators without a grid are errors naming them.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CoarseSolve.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_GridTransfer.hpp>
#include <kfvm_LevelSweeps.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>
#include <kfvm_VectorSpace.hpp>

#include <algorithm>
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

/// D = 1 + sin(3 x) cos(2 y) / 2 at the cell centres.
void setSmooth(const CellField<Space>& D, const Mesh<Space>& mesh) {
  std::vector<double> values(std::size_t(mesh.numCells()));
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  for (std::size_t c = 0; c < values.size(); ++c)
    values[c] = 1 + 0.5 * std::sin(3 * centres(c, 0)) * std::cos(2 * centres(c, 1));
  Kokkos::deep_copy(D.values(), toDevice(values));
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
// coarse grid (every other vertex; odd counts keep a single last cell), Dirichlet,
// Robin and Neumann boundaries, transient and implicit source terms included.
TEST(Multigrid, CoarseLevelIsTheEquationOnTheCoarseGrid) {
  for (const auto& grid :
       {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2}),
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.2, 0.1},
                                   {0.4, 0.1, 0.2, 0.3, 0.1}, {0.3, 0.1, 0.2})}) {
    const auto setUp = [](Equation<Space>& equation) {
      equation.transient(2.0).diffusion(1.3).implicitSource(-0.25);
      setUpMixed(equation);
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

/// Steady variable-coefficient Poisson on a grid with mixed boundaries, assembled
/// without the matrix.
struct PoissonProblem {
  Mesh<Space> mesh;
  CellField<Space> D, old;
  Equation<Space> equation;
  std::unique_ptr<Assembler<Space>> assembler;
  Vector<Space> rhs;

  explicit PoissonProblem(const CartesianGrid& grid)
      : mesh(grid), D(mesh, "D"), old(mesh, "old"), equation(mesh) {
    setSmooth(D, mesh);
    equation.diffusion(D).source(1.0);
    setUpMixed(equation);
    assembler = std::make_unique<Assembler<Space>>(equation);
    assembler->setFillsMatrix(false);
    rhs = Vector<Space>("rhs", mesh.numCells());
    assembler->assemble(0, 1, old, rhs);
  }
};

/// PoissonProblem on grid solved by CG with the named preconditioner; returns the
/// iterations, the answer in x.
int solvePoisson(const CartesianGrid& grid, const std::string& preconditioner,
                 std::vector<double>& x, const Parameters& extra = {},
                 const std::string& method = "cg") {
  PoissonProblem problem(grid);
  const auto& mesh = problem.mesh;
  const auto& rhs = problem.rhs;
  const MatrixFreeOperator<Space> op(*problem.assembler);
  Parameters parameters = extra;
  if (!extra.has("tolerance")) parameters.set("tolerance", solverToleranceText(1e-8));
  parameters.set("preconditioner", preconditioner).set("max_iterations", 2000);
  auto solver = makeLinearSolver<Space>(method, parameters);
  solver->setDiscretization({&*problem.assembler, nullptr, nullptr});
  solver->setOperator(op);
  Vector<Space> solution("x", mesh.numCells());
  const auto report = solver->solve(rhs, solution);
  EXPECT_TRUE(report.converged) << method << " + " << preconditioner << " on "
                                << mesh.numCells() << " cells: " << report.reason;
  x = toHost(solution);
  return report.iterations;
}

TEST(Multigrid, CgIterationsDoNotGrowWithTheGridAndMatchJacobiCg) {
  std::vector<int> iterations;
  for (const int n : {16, 32, 64}) {
    std::vector<double> x, reference;
    const auto grid = CartesianGrid::uniform3D(n, n, n, 1.0, 1.0, 1.0);
    const int it = solvePoisson(grid, "mg", x);
    iterations.push_back(it);
    solvePoisson(grid, "jacobi", reference);
    EXPECT_LT(maxDifference(x, reference), tolerance(1e-6) * largestMagnitude(reference))
        << n;
    std::printf("mg %d^3: %d CG iterations\n", n, it);
  }
  for (const int it : iterations) EXPECT_LE(it, 10);  // measured (Serial): 7, 8, 8
}

// Stretched cells (aspect ratio 10 and 20, either way) and a non-uniform grid: the
// semi-coarsening keeps the iterations near the isotropic ones.
TEST(Multigrid, StretchedAndNonUniformCellsConvergeInFewIterations) {
  std::vector<double> stretched(24);
  for (std::size_t i = 0; i < stretched.size(); ++i)
    stretched[i] = 0.02 * (1 + 0.1 * double(i));  // cells growing by 10% per cell
  const std::vector<std::pair<std::string, CartesianGrid>> grids = {
      {"aspect ratio 10", CartesianGrid::uniform3D(32, 32, 16, 1.0, 1.0, 5.0)},
      {"aspect ratio 1/20", CartesianGrid::uniform3D(16, 16, 32, 1.0, 1.0, 0.1)},
      {"non-uniform", CartesianGrid::fromSpacing(stretched, stretched, stretched)}};
  for (const auto& [what, grid] : grids) {
    std::vector<double> x, reference;
    const int it = solvePoisson(grid, "mg", x);
    solvePoisson(grid, "jacobi", reference);
    EXPECT_LT(maxDifference(x, reference), tolerance(1e-6) * largestMagnitude(reference))
        << what;
    std::printf("mg, %s: %d CG iterations\n", what.c_str(), it);
    EXPECT_LE(it, 10) << what;  // measured (Serial): 7, 7, 8
  }
}

// The two-grid cycle and the V-cycle as stationary iterations x += B (b - A x) on
// variable-coefficient Poisson with mixed boundaries: the residual shrinks by a factor
// that does not grow with the grid.
TEST(Multigrid, VCycleConvergenceFactorIsBoundedIndependentlyOfTheGrid) {
  for (const int n : {16, 32}) {
    PoissonProblem problem(CartesianGrid::uniform3D(n, n, n, 1.0, 1.0, 1.0));
    const Ordinal cells = problem.mesh.numCells();
    const auto& b = problem.rhs;
    Vector<Space> x("x", cells), r("r", cells), z("z", cells);
    const MatrixFreeOperator<Space> op(*problem.assembler);
    for (const int levels : {2, 30}) {  // the two-grid cycle and the V-cycle
      auto mg = makePreconditioner<Space>("mg", {{"mg_levels", std::to_string(levels)}});
      mg->setDiscretization({&*problem.assembler, nullptr, nullptr});
      mg->setup(op);
      Kokkos::deep_copy(x, Real(0));
      double first = 0, factor = 0;
      for (int k = 0; k < 6; ++k) {
        op.apply(x, r);
        Blas::axpby(Real(1), b, Real(-1), r);
        const double norm = std::sqrt(op.space().dot(r, r));
        if (k == 0) first = norm;
        if (k > 0) factor = std::pow(norm / first, 1.0 / k);  // the mean factor so far
        mg->apply(r, z);
        Blas::axpby(Real(1), z, Real(1), x);
      }
      std::printf("mg, %s at %d^3: residual factor %.3f\n",
                  levels == 2 ? "two grids" : "V-cycle", n, factor);
      // Measured (Serial): two grids 0.29 and 0.28, V-cycle 0.15 and 0.15.
      EXPECT_LT(factor, levels == 2 ? 0.4 : 0.25) << n << ", " << levels << " levels";
    }
  }
}

/// x . y over a vector space of one process.
double dot(const Vector<Space>& x, const Vector<Space>& y) {
  return VectorSpace<Space>(Ordinal(x.extent(0))).dot(x, y);
}

// Restriction is the transpose of prolongation, (R r) . e = r . (P e), on odd counts,
// an axis left unmerged (semi-coarsening) and 1D, 2D and 3D grids.
TEST(Multigrid, RestrictionIsTheTransposeOfProlongation) {
  for (const auto& grid :
       {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05, 0.1, 0.2}),
        CartesianGrid::uniform2D(7, 5, 1.0, 0.5),
        CartesianGrid::uniform3D(9, 6, 5, 1.0, 1.0, 10.0)}) {
    const GridLevel<Space> fine(grid);
    const GridLevel<Space> coarse = fine.coarser();
    const GridTransfer<Space> transfer(fine, coarse);
    const auto r = toDevice(wavy(fine.numCells()));
    auto e = wavy(coarse.numCells());
    for (auto& v : e) v = 1 - v * v;
    const auto coarseE = toDevice(e);
    Vector<Space> restricted("Rr", coarse.numCells()), prolonged("Pe", fine.numCells());
    transfer.restrict(r, restricted);
    transfer.prolongAdd(coarseE, prolonged);  // from 0
    const double left = dot(restricted, coarseE), right = dot(r, prolonged);
    EXPECT_LT(std::abs(left - right), tolerance(1e-14) * std::abs(right))
        << "dimension " << grid.dimension();
    if (grid.dimension() == 3)  // cells 10 times longer along z: z is not merged
      EXPECT_EQ(coarse.cells()[2], 5);
  }
}

// The cycle is a symmetric operator (what CG needs): x . B y = y . B x, V and W cycles,
// Chebyshev and red-black Gauss-Seidel smoothing.
TEST(Multigrid, CyclesAreSymmetric) {
  PoissonProblem problem(CartesianGrid::uniform3D(13, 10, 9, 1.0, 0.8, 0.7));
  const MatrixFreeOperator<Space> op(*problem.assembler);
  const Ordinal n = problem.mesh.numCells();
  const auto x = toDevice(wavy(n));
  auto yHost = wavy(n);
  for (auto& v : yHost) v = v * v - 0.3;
  const auto y = toDevice(yHost);
  Vector<Space> Bx("Bx", n), By("By", n);
  for (const auto& [cycle, smoother] :
       std::vector<std::pair<std::string, std::string>>{{"v", "chebyshev"},
                                                        {"w", "chebyshev"},
                                                        {"v", "gauss-seidel"},
                                                        {"w", "gauss-seidel"}}) {
    auto mg =
        makePreconditioner<Space>("mg", {{"mg_cycle", cycle}, {"mg_smoother", smoother}});
    mg->setDiscretization({&*problem.assembler, nullptr, nullptr});
    mg->setup(op);
    mg->apply(x, Bx);
    mg->apply(y, By);
    const double xBy = dot(x, By), yBx = dot(y, Bx);
    EXPECT_LT(std::abs(xBy - yBx), tolerance(1e-12) * std::abs(xBy))
        << cycle << ", " << smoother;
  }
}

// 1D and 2D grids take the same multigrid; the fourth-order term (no face form) is an
// error naming it.
TEST(Multigrid, OneAndTwoDimensionsAndTheFourthOrderTerm) {
  for (const auto& grid :
       {CartesianGrid::uniform1D(200, 1.0), CartesianGrid::uniform2D(96, 80, 1.0, 0.8)}) {
    std::vector<double> x, reference;
    const int it = solvePoisson(grid, "mg", x);
    solvePoisson(grid, "jacobi", reference);
    EXPECT_LT(maxDifference(x, reference), tolerance(1e-6) * largestMagnitude(reference))
        << "dimension " << grid.dimension();
    EXPECT_LE(it, 10) << "dimension " << grid.dimension();
  }
  Mesh<Space> mesh(CartesianGrid::uniform1D(16, 1.0));
  Equation<Space> equation(mesh);
  equation.transient(1.0).higherOrderDiffusion(0.0, 1.0);
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(10, 1, old, rhs);
  MatrixOperator<Space> matrix(assembler.matrix());
  auto mg = makePreconditioner<Space>("mg");
  mg->setDiscretization({&assembler, nullptr, nullptr});
  expectError([&] { mg->setup(matrix); }, {"higher-order diffusion term", "face form"});
}

// Constant coefficients on a uniform grid: the level takes its uniform numbers inside
// (no array read there; its sweeps by column chunks) and its products, residual and
// Chebyshev step (into another vector and in place, and its first two steps from 0 in one
// pass) are still the assembled operator's;
// its dense form and Gershgorin bound agree; variable coefficients are not uniform.
TEST(Multigrid, UniformLevelsKeepTheOperatorAndItsBound) {
  const auto grid = CartesianGrid::uniform3D(7, 6, 20, 0.7, 0.6, 2.0);  // chunks inside
  Mesh<Space> mesh(grid);
  const Ordinal n = mesh.numCells();
  for (const bool variable : {false, true}) {
    CellField<Space> D(mesh, "D", 1.5), old(mesh, "old");
    if (variable) setWavy(D, 1.5, 0.5);
    Equation<Space> equation(mesh);
    equation.transient(2.0).diffusion(D);
    setUpMixed(equation);
    Assembler<Space> assembler(equation);
    Vector<Space> rhs("rhs", n), diagonal("diagonal", n);
    assembler.assemble(0.05, 1, old, rhs);
    MatrixOperator<Space>(assembler.matrix()).diagonal(diagonal);
    GridLevel<Space> level(grid);
    level.refresh(assembler, diagonal);
    EXPECT_EQ(level.data().uniform, !variable);
    const auto x = wavy(n);
    auto bHost = x;
    for (auto& v : bHost) v = 2 * v * v - 1;
    const auto Ax = matrixProduct(assembler, x);
    const double scale = largestMagnitude(Ax);
    Vector<Space> y("y", n), next("next", n), d("d", n);
    level.apply(toDevice(x), y);
    EXPECT_LT(maxDifference(toHost(y), Ax), tolerance(1e-13) * scale) << variable;
    for (const bool columns : {true, false}) {
      const LevelSweeps<Space> sweeps(level, columns);
      sweeps.residual(toDevice(bHost), toDevice(x), y);
      const auto previousHost = wavy(n);
      Kokkos::deep_copy(d, toDevice(previousHost));
      sweeps.chebyshevStep(toDevice(bHost), toDevice(x), d, next, Real(0.3), Real(0.7));
      sweeps.chebyshevStep(toDevice(bHost), toDevice(x), d, d, Real(0.3), Real(0.7));
      const auto residual = toHost(y), moved = toHost(next), inPlace = toHost(d);
      const auto diagonalHost = toHost(diagonal);
      for (Ordinal i = 0; i < n; ++i) {
        const double r = bHost[i] - Ax[i];
        EXPECT_NEAR(residual[i], r, tolerance(1e-13) * scale) << i << columns;
        const double expected =
            x[i] + 0.3 * (x[i] - previousHost[i]) + 0.7 * r / diagonalHost[i];
        EXPECT_NEAR(moved[i], expected, tolerance(1e-12) * scale) << i << columns;
        EXPECT_NEAR(inPlace[i], expected, tolerance(1e-12) * scale) << i << columns;
      }
      // From 0: the first two steps in one pass, and the step after them computing the
      // first iterate, equal the steps one by one.
      const auto b = toDevice(bHost);
      Vector<Space> x1("x1", n), two("two", n), three("three", n), start("start", n);
      sweeps.scaledJacobi(b, x1, Real(0.6));
      sweeps.chebyshevStep(b, x1, Vector<Space>(), two, Real(0.3), Real(0.7));
      sweeps.chebyshevStep(b, two, x1, three, Real(0.2), Real(0.5));
      sweeps.chebyshevStart(b, start, Real(0.6), Real(0.3), Real(0.7));
      sweeps.chebyshevStepAfterStart(b, start, next, Real(0.2), Real(0.5), Real(0.6));
      const double bScale = largestMagnitude(bHost);
      EXPECT_LT(maxDifference(toHost(start), toHost(two)), tolerance(1e-13) * bScale);
      EXPECT_LT(maxDifference(toHost(next), toHost(three)), tolerance(1e-13) * bScale);
      EXPECT_GT(largestMagnitude(toHost(three)), 0.01 * bScale);
    }
    DeviceView<Real**, Space> dense("dense", n, n);
    level.dense(dense);
    const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense);
    double bound = 0;
    for (Ordinal i = 0; i < n; ++i) {
      double row = 0, off = 0;
      for (Ordinal j = 0; j < n; ++j) {
        row += double(a(i, j)) * x[j];
        if (j != i) off += std::abs(double(a(i, j)));
      }
      EXPECT_NEAR(row, Ax[i], tolerance(1e-13) * scale) << i;
      bound = std::max(bound, 1 + off / double(a(i, i)));
    }
    EXPECT_NEAR(level.jacobiBound(), bound, tolerance(1e-13) * bound);
    EXPECT_LE(level.jacobiBound(), 2.0);
  }
}

// The coarsest level's direct solve inverts it: x = A^-1 (A y) = y.
TEST(Multigrid, CoarseSolveInvertsTheLevel) {
  PoissonProblem problem(CartesianGrid::uniform3D(6, 5, 4, 1.0, 0.8, 0.7));
  const Ordinal n = problem.mesh.numCells();
  const MatrixFreeOperator<Space> op(*problem.assembler);
  Vector<Space> diagonal("diagonal", n), Ay("Ay", n), x("x", n);
  op.diagonal(diagonal);
  GridLevel<Space> level(problem.mesh.grid());
  level.refresh(*problem.assembler, diagonal);
  CoarseSolve<Space> coarse(level);
  coarse.setup(level);
  const auto y = wavy(n);
  level.apply(toDevice(y), Ay);
  coarse.apply(Ay, x);
  EXPECT_LT(maxDifference(toHost(x), y), tolerance(1e-11) * largestMagnitude(y));
  GridLevel<Space> large(CartesianGrid::uniform3D(11, 10, 10, 1.0, 1.0, 1.0));
  expectError([&] { CoarseSolve<Space> tooLarge(large); }, {"11 x 10 x 10", "1000"});
}

// The options: W- and F-cycles, two sweeps of degree 2, Lanczos bounds at every setup
// and once per structure, red-black Gauss-Seidel, and multigrid alone (richardson), each
// to Jacobi-CG's answer in a few iterations.
TEST(Multigrid, CyclesSmoothersBoundsAndStandaloneMultigridConverge) {
  const auto grid = CartesianGrid::uniform3D(24, 20, 16, 1.0, 0.8, 0.7);
  std::vector<double> reference;
  solvePoisson(grid, "jacobi", reference);
  const std::vector<std::pair<std::string, Parameters>> options = {
      {"cg", {{"mg_cycle", "w"}}},
      {"gmres", {{"mg_cycle", "f"}}},
      {"cg", {{"mg_degree", "2"}, {"mg_sweeps", "2"}, {"mg_sweep_loop", "columns"}}},
      {"cg", {{"mg_estimate", "setup"}, {"mg_sweep_loop", "cells"}}},
      {"cg", {{"mg_estimate", "structure"}, {"mg_coarse_cells", "8"}}},
      {"cg", {{"mg_smoother", "gauss-seidel"}}},
      {"richardson", {{"mg_smoother", "gauss-seidel"}, {"mg_sweeps", "2"}}},
      {"richardson", {}},
      {"richardson", {{"mg_cycle", "f"}}}};
  for (const auto& [method, given] : options) {
    // GMRES and richardson stop on the true residual, whose floor in float lies near
    // float's 1e-6 (measured 1.6e-6 against a target of 1.5e-6): 1e-5 there.
    Parameters parameters = given;
    if (method != "cg" && sizeof(Real) < sizeof(double))
      parameters.set("tolerance", "1e-5");
    std::vector<double> x;
    const int it = solvePoisson(grid, "mg", x, parameters, method);
    std::string what = method;
    for (const auto& [key, value] : parameters.entries()) what += " " + key + "=" + value;
    std::printf("mg, %s: %d iterations\n", what.c_str(), it);
    EXPECT_LT(maxDifference(x, reference), tolerance(1e-6) * largestMagnitude(reference))
        << what;
    // Measured (Serial): 7 or 8 with Chebyshev, 12 with one Gauss-Seidel sweep, 9 to 11
    // standalone.
    const bool gaussSeidel = parameters.has("mg_smoother");
    EXPECT_LE(it, method == "richardson" || gaussSeidel ? 14 : 10) << what;
  }
}

TEST(Multigrid, BadParametersAndOperatorsWithoutAGridAreErrors) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"mg_degree", "0"},         {"mg_sweeps", "0"},        {"mg_coarse_cells", "0"},
      {"mg_coarse_degree", "65"}, {"mg_levels", "0"},        {"mg_cycle", "x"},
      {"mg_estimate", "never"},   {"mg_sweep_loop", "rows"}, {"mg_smoother", "jacobi"}};
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
  // A NaN in the operator's diagonal reaches the level's summary: an error, not a
  // silent smoother (the assembler refuses NaN coefficients before this).
  std::vector<double> nanDiagonal(std::size_t(mesh.numCells()), 4.0);
  nanDiagonal[5] = std::nan("");
  const auto diagonal = toDevice(nanDiagonal);
  GridLevel<Space> level(mesh.grid());
  expectError([&] { level.refresh(assembler, diagonal); }, {"non-finite", "4 x 4"});
}

}  // namespace
}  // namespace kfvm::Test
