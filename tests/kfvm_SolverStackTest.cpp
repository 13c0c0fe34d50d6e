// The solver stack: every Krylov method with every preconditioner on the assembled
// matrix, the matrix-free stencil and a coupled block matrix, against direct solutions;
// the preconditioners against hand-built equivalents; flexible methods with a
// preconditioner that changes between applications; bad names and values.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestSystems.hpp"

#include <kfvm_Blas1.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KrylovMethod.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

const std::vector<std::string> methods = {"cg", "fcg", "bicgstab", "gmres", "fgmres"};
const std::vector<std::string> preconditioners = {"none", "jacobi", "ilu0",
                                                  "block-jacobi", "chebyshev"};

SolverReport solveWith(const HostSystem& system, const std::string& method,
                       const std::string& preconditioner, std::vector<double>& answer,
                       int blockSize = 1, Parameters parameters = {}) {
  parameters.set("tolerance", solverToleranceText(1e-12))
      .set("preconditioner", preconditioner)
      .set("max_iterations", 3000);
  auto solver = makeLinearSolver<Space>(method, parameters);
  solver->setMatrix(system.matrix(), blockSize);
  const auto b = rightHandSide(system.n);
  auto x = toDevice(std::vector<double>(system.n, 0.0));
  const auto report = solver->solve(toDevice(b), x);
  answer = toHost(x);
  return report;
}

void expectDirect(const HostSystem& system, const std::string& method,
                  const std::string& preconditioner, int blockSize = 1) {
  std::vector<double> x;
  const auto report = solveWith(system, method, preconditioner, x, blockSize);
  const std::string what = method + "+" + preconditioner;
  EXPECT_TRUE(report.converged) << what << ": " << report.reason;
  EXPECT_GT(report.iterations, 0) << what;
  EXPECT_EQ(report.solver, preconditioner == "none" ? method : what);
  EXPECT_LT(maxDifference(x, solveDense(system.dense, rightHandSide(system.n))),
            tolerance(1e-9))
      << what;
}

TEST(SolverStack, EveryKrylovMethodWithEveryPreconditionerMatchesTheDirectSolution) {
  const auto spd = spdSystem();
  for (const auto& method : methods)
    for (const auto& preconditioner : preconditioners)
      expectDirect(spd, method, preconditioner);
  const auto nonSymmetric = nonSymmetricSystem();
  for (const char* method : {"bicgstab", "gmres", "fgmres"})
    for (const char* preconditioner : {"none", "jacobi", "ilu0", "block-jacobi"})
      expectDirect(nonSymmetric, method, preconditioner);
}

/// Two variables per cell, interleaved: each variable's block an SPD 5-point Laplacian,
/// coupled to the other variable of the same cell by -0.4.
HostSystem coupledSystem() {
  const int m = 6;
  HostSystem system(2 * m * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i)
      for (int v = 0; v < 2; ++v) {
        const int cell = i + m * j, row = 2 * cell + v;
        if (j > 0) system.add(row, row - 2 * m, -1);
        if (i > 0) system.add(row, row - 2, -1);
        if (v == 1) system.add(row, row - 1, -0.4);
        system.add(row, row, 4.2 + 0.3 * v);
        if (v == 0) system.add(row, row + 1, -0.4);
        if (i < m - 1) system.add(row, row + 2, -1);
        if (j < m - 1) system.add(row, row + 2 * m, -1);
        system.endRow();
      }
  return system;
}

// block-jacobi is ILU(0) of each variable's diagonal block: its apply equals ILU(0) of
// the matrix with the couplings between variables removed (built by hand here), and
// differs from ILU(0) of the whole matrix.
TEST(SolverStack, BlockJacobiIsTheIncompleteLUOfEachVariablesBlock) {
  const auto coupled = coupledSystem();
  HostSystem uncoupled(coupled.n);
  for (Ordinal row = 0; row < coupled.n; ++row) {
    for (Offset e = coupled.offsets[row]; e < coupled.offsets[row + 1]; ++e)
      if (coupled.columns[e] % 2 == row % 2)
        uncoupled.add(row, coupled.columns[e], coupled.values[e]);
    uncoupled.endRow();
  }
  const auto apply = [](const HostSystem& system, const std::string& name, int blocks) {
    MatrixOperator<Space> op(system.matrix(), blocks);
    auto M = makePreconditioner<Space>(name);
    M->setup(op);
    auto z = toDevice(std::vector<double>(system.n, 0.0));
    M->apply(toDevice(rightHandSide(system.n)), z);
    return toHost(z);
  };
  const auto blockJacobi = apply(coupled, "block-jacobi", 2);
  EXPECT_LT(maxDifference(blockJacobi, apply(uncoupled, "ilu0", 1)), tolerance(1e-14));
  EXPECT_GT(maxDifference(blockJacobi, apply(coupled, "ilu0", 2)), 1e-3);
  for (const auto& method : {"gmres", "fgmres", "bicgstab"})
    expectDirect(coupled, method, "block-jacobi", 2);
}

// Chebyshev of degree 1 is Jacobi scaled by a constant, which CG does not see: the same
// iterations. Higher degrees take fewer iterations.
TEST(SolverStack, ChebyshevOfDegreeOneIsJacobiAndHigherDegreesTakeFewerIterations) {
  const auto spd = spdSystem();
  std::vector<double> jacobi, chebyshev;
  const int jacobiIterations = solveWith(spd, "cg", "jacobi", jacobi).iterations;
  const auto degreeOne =
      solveWith(spd, "cg", "chebyshev", chebyshev, 1, {{"chebyshev_degree", "1"}});
  EXPECT_EQ(degreeOne.iterations, jacobiIterations);
  EXPECT_LT(maxDifference(chebyshev, jacobi), tolerance(1e-9));
  int previous = jacobiIterations;
  for (const char* degree : {"2", "4"}) {
    const auto report =
        solveWith(spd, "cg", "chebyshev", chebyshev, 1, {{"chebyshev_degree", degree}});
    EXPECT_TRUE(report.converged) << report.reason;
    EXPECT_LT(report.iterations, previous) << "degree " << degree;
    previous = report.iterations;
  }
}

/// A preconditioner that is not a fixed operator: a few Jacobi-CG steps from 0, their
/// number alternating between 2 and 5 (CG is nonlinear in its right-hand side).
class InnerCg final : public Preconditioner<Space> {
 public:
  InnerCg() : Preconditioner<Space>("inner-cg"), cg_(makeKrylovMethod<Space>("cg", {})) {}
  void apply(const Vector<Space>& r, const Vector<Space>& z) const override {
    Blas::fill(z, Real(0));
    StoppingCriterion criterion;
    criterion.tolerance = 1e-30;
    criterion.absoluteTolerance = 1e-300;
    criterion.maxIterations = (++applications_ % 2) ? 2 : 5;
    cg_->solve(op(), *jacobi_, r, z, criterion);
  }

 private:
  void setupImpl(const LinearOperator<Space>& op, bool sizeChanged, bool) override {
    if (sizeChanged) cg_->allocate(op.size());
    jacobi_->setup(op);
  }
  std::unique_ptr<KrylovMethod<Space>> cg_;
  std::unique_ptr<Preconditioner<Space>> jacobi_ = makePreconditioner<Space>("jacobi");
  mutable int applications_ = 0;
};

TEST(SolverStack, FlexibleMethodsConvergeWithAPreconditionerThatChanges) {
  const auto spd = spdSystem();
  MatrixOperator<Space> op(spd.matrix());
  InnerCg inner;
  inner.setup(op);
  const auto b = rightHandSide(spd.n);
  const auto direct = solveDense(spd.dense, b);
  for (const char* name : {"fgmres", "fcg"}) {
    auto method = makeKrylovMethod<Space>(name, {});
    EXPECT_TRUE(method->flexible());
    method->allocate(spd.n);
    auto x = toDevice(std::vector<double>(spd.n, 0.0));
    StoppingCriterion criterion;
    criterion.tolerance = solverTolerance(1e-12);
    const auto report = method->solve(op, inner, toDevice(b), x, criterion);
    EXPECT_TRUE(report.converged) << name << ": " << report.reason;
    EXPECT_LT(maxDifference(toHost(x), direct), tolerance(1e-9)) << name;
  }
  EXPECT_FALSE(makeKrylovMethod<Space>("gmres", {})->flexible());
}

/// values(c) = offset + sin(0.7 c).
void setWavy(const CellField<Space>& field, double offset) {
  std::vector<double> values(std::size_t(field.values().extent(0)));
  for (std::size_t c = 0; c < values.size(); ++c) values[c] = offset + std::sin(0.7 * c);
  Kokkos::deep_copy(field.values(), toDevice(values));
}

/// A diffusion-reaction step with a field coefficient (the stencil is not uniform) and
/// mixed conditions.
void setUpStep(Equation<Space>& equation, const Mesh<Space>& mesh) {
  CellField<Space> D(mesh, "D");
  setWavy(D, 1.5);
  equation.transient(1.0).diffusion(D).implicitSource(-0.2);
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
      .boundary(Patch::Right, BoundaryCondition::robin(1.0, 2.0, 0.5));
}

/// Matrix-free and matrix steps of equation from the same start: equal to 1e-10.
void expectMatrixFreeStepsEqual(const Equation<Space>& equation,
                                const std::string& method,
                                const std::string& preconditioner, TimeScheme scheme) {
  const auto& mesh = equation.mesh();
  const Parameters parameters{{"tolerance", solverToleranceText(1e-12)},
                              {"preconditioner", preconditioner}};
  CellField<Space> withMatrix(mesh, "phi"), matrixFree(mesh, "phi");
  setWavy(withMatrix, 0);
  setWavy(matrixFree, 0);
  ImplicitStepper<Space> assembled(equation, makeLinearSolver<Space>(method, parameters));
  ImplicitStepper<Space> stencil(equation, makeLinearSolver<Space>(method, parameters));
  // Sweeps (D(phi)) to a nonlinear residual the precision reaches.
  const Real sweepTolerance = sizeof(Real) == sizeof(double) ? Real(1e-10) : Real(1e-4);
  assembled.setSweeps(50, sweepTolerance);
  stencil.setSweeps(50, sweepTolerance);
  stencil.setMatrixFree(true);
  EXPECT_TRUE(stencil.matrixFree());
  EXPECT_FALSE(stencil.assembler().fillsMatrix());  // nothing reads the matrix
  for (int step = 0; step < 3; ++step) {
    const auto a = assembled.step(withMatrix, 0.05, scheme);
    const auto b = stencil.step(matrixFree, 0.05, scheme);
    ASSERT_TRUE(a.converged && b.converged)
        << method << "+" << preconditioner << ": " << a.reason << " / " << b.reason;
    EXPECT_EQ(a.sweeps, b.sweeps);
  }
  EXPECT_LT(maxDifference(toHost(withMatrix.values()), toHost(matrixFree.values())),
            tolerance(1e-10))
      << method << "+" << preconditioner;
}

// Constant D on a uniform grid: the stencil's uniform weights and interior diagonal,
// and CG's one-pass product and dot (applyAndDot). D(phi): sweeps whose nonlinear
// residual comes from the stencil (the matrix is not filled).
TEST(SolverStack, MatrixFreeStepsWithUniformStencilAndSweepsEqualMatrixSteps) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(9, 7, 17, 1.0, 0.8, 0.6));
  Equation<Space> constant(mesh), nonlinear(mesh);
  constant.transient(1.0).diffusion(1.3).implicitSource(-0.2);
  nonlinear.transient(1.0).diffusion(Polynomial{1, 0.5, 0.25});
  for (auto* equation : {&constant, &nonlinear})
    equation->boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::robin(1.0, 2.0, 0.5));
  for (const char* method : {"cg", "bicgstab"})
    for (const char* preconditioner : {"none", "jacobi"})
      for (const auto scheme : {TimeScheme::BackwardEuler, TimeScheme::CrankNicolson})
        expectMatrixFreeStepsEqual(constant, method, preconditioner, scheme);
  expectMatrixFreeStepsEqual(nonlinear, "cg", "jacobi", TimeScheme::BackwardEuler);
}

// The multiply-and-shift division equals integer division for every divisor from 1 to
// 2^31 - 1 tried, at the numerators around each multiple and at the top of the range,
// and a divisor below 1 is an error naming it.
TEST(SolverStack, FixedDivisorEqualsIntegerDivision) {
  std::vector<int> divisors;
  for (int d = 1; d <= 1100; ++d) divisors.push_back(d);
  for (const int d : {4095, 4096, 4097, 65535, 65536, 65537, 1 << 20, (1 << 20) + 1,
                      123456789, 1 << 30, (1 << 30) + 1, 2147483646, 2147483647})
    divisors.push_back(d);
  const int top = 2147483647;
  for (const int d : divisors) {
    const FixedDivisor divisor(d);
    ASSERT_EQ(divisor.divisor(), d);
    const auto expectQuotient = [&](long long n) {
      if (n < 0 || n > top) return;
      ASSERT_EQ(divisor.quotient(int(n)), int(n / d)) << n << " / " << d;
    };
    for (long long n = 0; n < 3000; ++n) expectQuotient(n);
    for (long long n = top; n > top - 3000; --n) expectQuotient(n);
    for (long long multiple = d; multiple <= top;
         multiple += std::max(d, top / 512 / d * d))
      for (long long n = multiple - 2; n <= multiple + 2; ++n) expectQuotient(n);
  }
  EXPECT_EQ(FixedDivisor().quotient(top), top);
  expectError([] { FixedDivisor(0); }, {"FixedDivisor", "not 0"});
  expectError([] { FixedDivisor(-3); }, {"not -3"});
}

// The entries whose Jacobi weight CG's fused iteration takes from one entry on devices:
// exactly the cells with all their neighbours, in 1D, 2D and 3D, and only where the
// stencil's interior diagonal is one number.
TEST(SolverStack, UniformDiagonalEntriesAreTheCellsWithAllTheirNeighbours) {
  for (const auto& grid :
       {CartesianGrid::uniform1D(7, 1.0), CartesianGrid::uniform2D(5, 4, 1.0, 1.0),
        CartesianGrid::uniform3D(4, 5, 3, 1.0, 1.0, 1.0)}) {
    Mesh<Space> mesh(grid);
    Equation<Space> equation(mesh);
    equation.transient(1.0).diffusion(0.5);
    Assembler<Space> assembler(equation);
    const MatrixFreeOperator<Space> stencil(assembler);
    const UniformInteriorEntries uniform = stencil.uniformDiagonal();
    ASSERT_EQ(uniform.representative, stencil.stencil().interiorCell());
    ASSERT_GE(uniform.representative, 0);
    const auto n = mesh.cellCounts();
    int covered = 0;
    for (Ordinal cell = 0; cell < mesh.numCells(); ++cell) {
      const int index[3] = {cell % n[0], (cell / n[0]) % n[1], cell / (n[0] * n[1])};
      bool inside = true;
      for (int a = 0; a < mesh.dimension(); ++a)
        inside = inside && index[a] > 0 && index[a] < n[a] - 1;
      EXPECT_EQ(uniform.covers(cell), inside) << "cell " << cell;
      EXPECT_EQ(uniform.valueEntry(cell), inside ? uniform.representative : cell);
      covered += inside;
    }
    EXPECT_GT(covered, 0);
  }
  // A transient coefficient field: no uniform diagonal, nothing covered.
  Mesh<Space> mesh(CartesianGrid::uniform3D(4, 4, 4, 1.0, 1.0, 1.0));
  CellField<Space> rho(mesh, "rho");
  setWavy(rho, 2.0);
  Equation<Space> equation(mesh);
  equation.transient(rho).diffusion(0.5);
  Assembler<Space> assembler(equation);
  const UniformInteriorEntries none =
      MatrixFreeOperator<Space>(assembler).uniformDiagonal();
  EXPECT_LT(none.representative, 0);
  EXPECT_FALSE(none.covers(21));
  EXPECT_EQ(MatrixOperator<Space>(assembler.matrix()).uniformDiagonal().representative,
            -1);
}

TEST(SolverStack, MatrixFreeStepsEqualMatrixSteps) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(9, 7, 5, 1.0, 0.8, 0.6));
  Equation<Space> equation(mesh);
  setUpStep(equation, mesh);
  for (const auto& method : methods) {
    for (const char* preconditioner : {"none", "jacobi", "chebyshev"}) {
      const Parameters parameters{{"tolerance", solverToleranceText(1e-12)},
                                  {"preconditioner", preconditioner}};
      CellField<Space> withMatrix(mesh, "phi"), matrixFree(mesh, "phi");
      setWavy(withMatrix, 0);
      setWavy(matrixFree, 0);
      ImplicitStepper<Space> assembled(equation,
                                       makeLinearSolver<Space>(method, parameters));
      ImplicitStepper<Space> stencil(equation,
                                     makeLinearSolver<Space>(method, parameters));
      stencil.setMatrixFree(true);
      EXPECT_TRUE(stencil.matrixFree());
      for (int step = 0; step < 3; ++step) {
        const auto a = assembled.step(withMatrix, 0.05, TimeScheme::CrankNicolson);
        const auto b = stencil.step(matrixFree, 0.05, TimeScheme::CrankNicolson);
        ASSERT_TRUE(a.converged && b.converged) << method << "+" << preconditioner;
      }
      EXPECT_LT(maxDifference(toHost(withMatrix.values()), toHost(matrixFree.values())),
                tolerance(1e-10))
          << method << "+" << preconditioner;
    }
  }
  // A preconditioner that factorizes the matrix is refused when matrix-free is asked
  // for, and, given a matrix-free operator anyway, when it is set up.
  ImplicitStepper<Space> ilu(equation,
                             makeLinearSolver<Space>("cg", {{"preconditioner", "ilu0"}}));
  expectError([&] { ilu.setMatrixFree(true); },
              {"solver 'cg' with preconditioner 'ilu0' needs an assembled matrix"});
  EXPECT_FALSE(ilu.matrixFree());
  Assembler<Space> assembler(equation);
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", mesh.numCells());
  assembler.assemble(10, 1, old, rhs);
  const MatrixFreeOperator<Space> stencil(assembler);
  auto factorizing = makeLinearSolver<Space>("cg", {{"preconditioner", "ilu0"}});
  EXPECT_TRUE(factorizing->needsMatrix());
  EXPECT_FALSE(
      makeLinearSolver<Space>("cg", {{"preconditioner", "chebyshev"}})->needsMatrix());
  expectError([&] { factorizing->setOperator(stencil); },
              {"preconditioner 'ilu0' needs an assembled matrix", "matrix-free stencil"});
}

TEST(SolverStack, BadNamesAndValuesAreErrorsNamingThem) {
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"preconditioner", "amg"}});
      },
      {"unknown preconditioner 'amg'", "chebyshev", "block-jacobi"});
  expectError([] { makePreconditioner<Space>("amg"); }, {"unknown preconditioner 'amg'"});
  expectError([] { makeKrylovMethod<Space>("minres", {}); },
              {"unknown Krylov method 'minres'", "fgmres"});
  expectError(
      [] {
        makeLinearSolver<Space>(
            "cg", {{"preconditioner", "chebyshev"}, {"chebyshev_degree", "0"}});
      },
      {"chebyshev_degree must be in [1, 64], got 0"});
  expectError(
      [] {
        makeLinearSolver<Space>(
            "cg", {{"preconditioner", "jacobi"}, {"chebyshev_degree", "2"}});
      },
      {"chebyshev_degree"});  // a key for another preconditioner
  expectError(
      [] {
        makeLinearSolver<Space>("fgmres", {{"restart", "0"}});
      },
      {"restart must be in [1, 1000], got 0"});
  const auto spd = spdSystem();
  auto solver = makeLinearSolver<Space>("gmres", {});
  expectError([&] { solver->setMatrix(spd.matrix(), 3); },
              {"block size 3 does not divide the 64 rows"});
  auto unset = makeLinearSolver<Space>("cg", {});
  auto x = toDevice(std::vector<double>(4, 0.0));
  expectError([&] { unset->solve(x, x); }, {"setOperator() must come before solve()"});
}

}  // namespace
}  // namespace kfvm::Test
