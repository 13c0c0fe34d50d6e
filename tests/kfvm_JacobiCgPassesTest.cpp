// CG's two-pass Jacobi iteration over the matrix-free stencil (JacobiCgPasses,
// StencilJacobiCg): the same solutions and iteration counts as the three-kernel iteration
// over the assembled matrix, with every kind of boundary condition, partial chunks and
// tiles, a uniform or a per-cell diagonal; two passes and one publication an iteration;
// offered only where it applies.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>
#include <kfvm_StencilJacobiCg.hpp>

#include <algorithm>
#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// values(c) = offset + sin(0.3 c) + cos(0.11 c).
void setRough(const Vector<Space>& values, double offset) {
  std::vector<double> v(std::size_t(values.extent(0)));
  for (std::size_t c = 0; c < v.size(); ++c)
    v[c] = offset + std::sin(0.3 * c) + std::cos(0.11 * c);
  Kokkos::deep_copy(values, toDevice(v));
}

struct Solved {
  SolverReport report;
  std::vector<double> x;
};

/// Solves A x = rhs by Jacobi-CG from x = 0.3 over op.
Solved solve(const LinearOperator<Space>& op, const Vector<Space>& rhs) {
  auto solver = makeLinearSolver<Space>("cg", {{"preconditioner", "jacobi"},
                                               {"tolerance", solverToleranceText(1e-10)},
                                               {"max_iterations", "2000"}});
  solver->setOperator(op);
  Vector<Space> x("x", rhs.extent(0));
  Kokkos::deep_copy(x, Real(0.3));
  Solved solved{solver->solve(rhs, x), {}};
  solved.x = toHost(x);
  return solved;
}

/// The two passes over the stencil against the three kernels over the matrix, for
/// equation assembled at (invDt, theta) with a rough old field.
void expectTwoPassesEqualMatrix(const Equation<Space>& equation, Real invDt, Real theta,
                                bool uniformDiagonal, const std::string& what) {
  const auto& mesh = equation.mesh();
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  setRough(old.values(), 0.5);
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(invDt, theta, old, rhs);
  const MatrixFreeOperator<Space> stencil(assembler, StencilLoop::Columns);
  ASSERT_NE(stencil.jacobiCgPasses(), nullptr) << what;
  EXPECT_EQ(stencil.stencil().uniformInteriorDiagonal(), uniformDiagonal) << what;
  const MatrixOperator<Space> matrix(assembler.matrix());
  const Solved passes = solve(stencil, rhs), kernels = solve(matrix, rhs);
  ASSERT_TRUE(passes.report.converged) << what << ": " << passes.report.reason;
  ASSERT_TRUE(kernels.report.converged) << what << ": " << kernels.report.reason;
  EXPECT_GT(passes.report.iterations, 5) << what;
  EXPECT_LE(std::abs(passes.report.iterations - kernels.report.iterations), 1) << what;
  double scale = 0;
  for (double v : kernels.x) scale = std::max(scale, std::abs(v));
  EXPECT_LT(maxDifference(passes.x, kernels.x), tolerance(1e-8) * scale) << what;
}

TEST(JacobiCgPasses, EqualTheThreeKernelIterationOverTheMatrix) {
  // 37 x 6 x 19: a partial tile along i and j, a partial chunk along k (19 = 8 + 8 + 3).
  Mesh<Space> mesh(CartesianGrid::uniform3D(37, 6, 19, 1.0, 0.4, 0.9));
  Equation<Space> mixed(mesh);
  mixed.transient(2.0).diffusion(0.7).implicitSource(-0.3);
  mixed.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
      .boundary(Patch::Right, BoundaryCondition::robin(1.0, 2.0, 0.5))
      .boundary(Patch::Top, BoundaryCondition::neumann(0.4))
      .boundary(Patch::Back, BoundaryCondition::dirichlet(-0.5));
  for (const Real theta : {Real(1), Real(0.5)})
    expectTwoPassesEqualMatrix(mixed, 40, theta, true,
                               "mixed conditions, theta " + std::to_string(theta));
  expectTwoPassesEqualMatrix(mixed, 0, 1, true, "steady");
  // A transient coefficient field: the diagonal and w read at every cell.
  CellField<Space> rho(mesh, "rho");
  setRough(rho.values(), 3.0);
  Equation<Space> field(mesh);
  field.transient(rho).diffusion(1.1);
  field.boundary(Patch::Bottom, BoundaryCondition::dirichlet(2.0));
  expectTwoPassesEqualMatrix(field, 25, 1, false, "transient field");
  // Fewer than 3 cells along an axis, and one chunk shorter than its depth.
  Mesh<Space> thin(CartesianGrid::uniform3D(2, 33, 5, 0.2, 1.0, 0.5));
  Equation<Space> small(thin);
  small.transient(1.0).diffusion(0.9);
  small.boundary(Patch::Front, BoundaryCondition::dirichlet(0.25));
  expectTwoPassesEqualMatrix(small, 30, 1, false, "2 x 33 x 5");
}

/// Labels of the kernels work launches.
std::vector<std::string> launched;
void recordLaunch(const char* name, const uint32_t, uint64_t*) {
  launched.push_back(name);
}

TEST(JacobiCgPasses, AnIterationIsTwoPassesAndOnePublication) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(12, 10, 9, 1.0, 1.0, 1.0));
  Equation<Space> equation(mesh);
  equation.transient(1.0).diffusion(1.0);
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  setRough(old.values(), 0);
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(10, 1, old, rhs);
  const MatrixFreeOperator<Space> stencil(assembler, StencilLoop::Columns);
  const auto launchesOf = [&](int iterations) {
    auto solver =
        makeLinearSolver<Space>("cg", {{"preconditioner", "jacobi"},
                                       {"tolerance", "1e-30"},
                                       {"absolute_tolerance", "1e-300"},
                                       {"max_iterations", std::to_string(iterations)}});
    solver->setOperator(stencil);
    Vector<Space> x("x", mesh.numCells());
    launched.clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(recordLaunch);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(recordLaunch);
    const auto report = solver->solve(rhs, x);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    EXPECT_EQ(report.iterations, iterations) << report.reason;
    return launched;
  };
  const auto five = launchesOf(5), twelve = launchesOf(12);
  // Each pass is a block reduction: one launch on host spaces, two on devices.
  const int perPass = BlockReduction<double, Space>::onHost ? 1 : 2;
  EXPECT_EQ(twelve.size() - five.size(), std::size_t(7 * (2 * perPass + 1)));
  for (const char* label :
       {"kfvm::StencilJacobiCg::direction", "kfvm::StencilJacobiCg::update"})
    EXPECT_EQ(std::count(twelve.begin(), twelve.end(), label), 12) << label;
  EXPECT_EQ(
      std::count(twelve.begin(), twelve.end(), "kfvm::ConjugateGradient::updateAndDots"),
      0);
}

TEST(JacobiCgPasses, AreOfferedOnlyWhereTheyApply) {
  Mesh<Space> cube(CartesianGrid::uniform3D(6, 6, 6, 1.0, 1.0, 1.0));
  Mesh<Space> square(CartesianGrid::uniform2D(6, 6, 1.0, 1.0));
  CellField<Space> D(cube, "D");
  Kokkos::deep_copy(D.values(), Real(1));
  Equation<Space> constant(cube), field(cube), flat(square);
  constant.transient(1.0).diffusion(1.0);
  field.transient(1.0).diffusion(D);
  flat.transient(1.0).diffusion(1.0);
  const auto offered = [](const Equation<Space>& equation, StencilLoop loop) {
    Assembler<Space> assembler(equation);
    return MatrixFreeOperator<Space>(assembler, loop).jacobiCgPasses() != nullptr;
  };
  EXPECT_TRUE(offered(constant, StencilLoop::Columns));
  {
    Assembler<Space> assembler(constant);
    MatrixFreeOperator<Space> declined(assembler, StencilLoop::Columns);
    declined.setJacobiCgPasses(false);  // CG's three-kernel iteration
    EXPECT_EQ(declined.jacobiCgPasses(), nullptr);
  }
  EXPECT_FALSE(offered(constant, StencilLoop::Rows));
  EXPECT_FALSE(offered(constant, StencilLoop::Cells));
  EXPECT_FALSE(offered(field, StencilLoop::Columns));  // weights per face
  EXPECT_FALSE(offered(flat, StencilLoop::Columns));   // 2D
  Assembler<Space> assembler(field);
  const StencilOperator<Space> stencil(assembler, StencilLoop::Columns);
  expectError([&] { StencilJacobiCg<Space> passes(stencil); },
              {"StencilJacobiCg", "uniform interior weights"});
  // Not through CG with another preconditioner or with a Jacobi set up for another
  // operator: isSetUpFor() and invertsDiagonal() guard the two-pass path.
  auto none = makePreconditioner<Space>("none"),
       jacobi = makePreconditioner<Space>("jacobi");
  EXPECT_FALSE(none->invertsDiagonal());
  EXPECT_TRUE(jacobi->invertsDiagonal());
  Assembler<Space> cubeAssembler(constant);
  CellField<Space> old(cube, "old");
  Vector<Space> rhs("rhs", cube.numCells());
  cubeAssembler.assemble(10, 1, old, rhs);
  const MatrixFreeOperator<Space> a(cubeAssembler, StencilLoop::Columns),
      b(cubeAssembler, StencilLoop::Columns);
  jacobi->setup(a);
  EXPECT_TRUE(jacobi->isSetUpFor(a));
  EXPECT_FALSE(jacobi->isSetUpFor(b));
}

}  // namespace
}  // namespace kfvm::Test
