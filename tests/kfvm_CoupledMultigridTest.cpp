// Geometric multigrid for coupled systems ("mg" on a CoupledStepper's block matrix):
// the finest BlockLevel is the matrix, a coarse one is the system assembled on the
// coarse grid, and GMRES with one V-cycle of point-block Gauss-Seidel per iteration
// solves Cahn-Hilliard steps in a number of iterations that does not grow as the grid is
// refined (ILU(0)'s does), to ILU(0)-GMRES's answer; block matrices without a grid are
// errors naming them.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_BlockLevel.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixOperator.hpp>

#include <cmath>
#include <random>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Three coupled variables with every kind of block: transients, diffusion on and off
/// the diagonal (one of them a field, so a block is not constant), implicit sources,
/// and zero-flux sides, or Dirichlet and Robin ones for variable 0 (withConditions).
CoupledSystem<Space> threeVariables(const Mesh<Space>& mesh, bool withConditions,
                                    const FaceField<Space>* D = nullptr) {
  CoupledSystem<Space> system(mesh, 3);
  system.transient(0, 0).transient(1, 1, 2.0).diffusion(0, 0, 1.0).diffusion(0, 1, 0.3);
  if (D != nullptr)
    system.diffusion(1, 1, *D);
  else
    system.diffusion(1, 1, 0.7);
  system.diffusion(2, 0, -0.5).diffusion(2, 2, 1.5).implicitSource(2, 2, -1.0);
  system.implicitSource(1, 0, 0.4).implicitSource(2, 1, 0.2);
  if (withConditions) {
    system.boundary(0, Patch::Left, BoundaryCondition::dirichlet(1.0));
    system.boundary(0, Patch::Top, BoundaryCondition::robin(1.0, 2.0, 0.5));
  }
  return system;
}

/// D = 1 + x y at the face centres (outside a test body: a device lambda's enclosing
/// function may not be a private member, as gtest's TestBody is).
void setCoefficient(FaceField<Space>& D, const Mesh<Space>& mesh) {
  setFromFaceCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) { return 1 + x * y; });
}

/// The block level's residual b - A x and the matrix's, for a smooth x.
double residualDifference(const BlockLevel<Space>& level,
                          const CrsMatrix<Space>& matrix) {
  const Ordinal n = level.size();
  std::vector<double> x(std::size_t(n), 0.0), b(std::size_t(n), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::cos(0.3 * double(i)) + 0.1 * double(i % 3);
    b[i] = std::sin(0.2 * double(i));
  }
  Vector<Space> r("r", n), y("y", n);
  level.residual(toDevice(b), toDevice(x), r);
  multiply(matrix, toDevice(x), y);
  const auto fromLevel = toHost(r), product = toHost(y);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(fromLevel[i] - (b[i] - product[i])));
  return worst;
}

/// The system's matrix for a backward-Euler step of 1 / invDt.
CrsMatrix<Space> assembled(CoupledSystem<Space>& system, Real invDt) {
  const Ordinal n = system.size();
  Vector<Space> previous("previous", n), iterate("iterate", n), rhs("rhs", n);
  system.assemble(invDt, previous, iterate, rhs);
  return system.matrix();
}

TEST(CoupledMultigrid, TheFinestLevelIsTheMatrixAndACoarseOneTheCoarseSystem) {
  const auto fine = CartesianGrid::fromVertices(
      {0, 0.1, 0.25, 0.4, 0.6, 0.7, 0.9, 1.0}, {0, 0.2, 0.4, 0.5, 0.7, 0.8}, {0, 0.3, 1});
  Mesh<Space> mesh(fine);
  FaceField<Space> D(mesh, "D");
  setCoefficient(D, mesh);
  for (const bool conditions : {false, true}) {
    auto system = threeVariables(mesh, conditions, &D);
    GridLevel<Space> grid(fine);
    BlockLevel<Space> level(grid, 3);
    const auto matrix = assembled(system, Real(4));
    level.refresh(matrix);
    EXPECT_LT(residualDifference(level, matrix), tolerance(1e-12)) << conditions;
  }
  // Constant coefficients and zero flux: the coarse level is the coarse system's matrix.
  const auto uniform = CartesianGrid::uniform3D(8, 6, 4, 1.0, 0.9, 0.4);
  Mesh<Space> fineMesh(uniform);
  auto fineSystem = threeVariables(fineMesh, false);
  GridLevel<Space> fineGrid(uniform);
  const GridLevel<Space> coarseGrid = fineGrid.coarser();
  BlockLevel<Space> fineLevel(fineGrid, 3), coarseLevel(coarseGrid, 3);
  fineLevel.refresh(assembled(fineSystem, Real(4)));
  coarseLevel.refresh(fineLevel);
  Mesh<Space> coarseMesh(CartesianGrid::fromVertices(
      coarseGrid.vertices(0), coarseGrid.vertices(1), coarseGrid.vertices(2)));
  auto coarseSystem = threeVariables(coarseMesh, false);
  EXPECT_LT(residualDifference(coarseLevel, assembled(coarseSystem, Real(4))),
            tolerance(1e-12));
}

/// Cahn-Hilliard (FiPy's coupled form) on n x n cells of a 32 x 32 square, 5 steps of
/// 0.05 from noise by GMRES with preconditioner: the largest number of iterations of a
/// linear solve, and phi at the end.
std::pair<int, std::vector<double>> cahnHilliard(int n,
                                                 const std::string& preconditioner) {
  Mesh<Space> mesh(CartesianGrid::uniform2D(n, n, 32.0, 32.0));
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0)
      .diffusion(0, 1, 1.0)
      .diffusion(1, 0, 1.0)
      .implicitSource(1, 1, 1.0)
      .source(1, 0, Polynomial{0, 1, 0, -1});
  // GMRES stops at the true residual, which float cannot take below about 1.6e-6.
  const bool inDouble = sizeof(Real) == sizeof(double);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<double> initial(std::size_t(mesh.numCells()));
  for (auto& value : initial) value = noise(random);
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "phi"),
                                       CellField<Space>(mesh, "mu")};
  fields[0].fromHost(initial);
  CoupledStepper<Space> stepper(
      system,
      makeLinearSolver<Space>("gmres", {{"tolerance", inDouble ? "1e-10" : "1e-5"},
                                        {"max_iterations", "400"},
                                        {"restart", "100"},
                                        {"preconditioner", preconditioner}}));
  stepper.setSweeps(20, Real(inDouble ? 1e-9 : 1e-5));
  int most = 0;
  for (int step = 0; step < 5; ++step) {
    const auto report = stepper.step(fields, Real(0.05));
    EXPECT_TRUE(report.converged) << preconditioner << ", " << n << ": " << report.reason;
    most = std::max(most, report.totalIterations / std::max(report.sweeps, 1));
  }
  return {most, toHost(fields[0].values())};
}

TEST(CoupledMultigrid, CahnHilliardIterationsDoNotGrowWithTheGridAndMatchIlu) {
  // Measured (Serial): at most 9, 11 and 10 iterations a solve with mg at 32, 64 and 128
  // cells a side; 43 with ILU(0) at 128.
  std::vector<int> iterations;
  for (const int n : {32, 64, 128}) {
    const auto [mg, phi] = cahnHilliard(n, "mg");
    EXPECT_LE(mg, 15) << n;
    iterations.push_back(mg);
    if (n == 128) {
      const auto [ilu, reference] = cahnHilliard(n, "ilu0");
      EXPECT_GT(ilu, 2 * mg);
      EXPECT_LT(maxDifference(phi, reference),
                sizeof(Real) == sizeof(double) ? 1e-8 : 1e-3);
    }
  }
  EXPECT_LE(iterations.back(), iterations.front() + 2);
}

TEST(CoupledMultigrid, ABlockMatrixWithoutItsGridIsAnError) {
  Mesh<Space> mesh(CartesianGrid::uniform2D(8, 8, 1.0, 1.0));
  auto system = threeVariables(mesh, false);
  const auto matrix = assembled(system, Real(1));
  auto solver = makeLinearSolver<Space>("gmres", {{"preconditioner", "mg"}});
  expectError([&] { solver->setMatrix(matrix, 3); },
              {"mg preconditioner", "3 unknowns per cell",
               "not an assembled matrix on a structured grid"});
}

}  // namespace
}  // namespace kfvm::Test
