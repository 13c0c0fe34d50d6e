// The direct solver ("lu"): against dense solves and exact solutions (non-symmetric,
// ill-conditioned, fourth-order at a dt where ILU(0)-GMRES stalls, a coupled system,
// Dirichlet constraints and a periodic axis), its analysis kept while the structure
// holds, a singular matrix reported as such, and its parameters checked; a Krylov method
// that falls back to it where it stalls.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestSystems.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_CoupledSystem.hpp>
#include <kfvm_DirectSolver.hpp>
#include <kfvm_FallbackSolver.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>

#include <cmath>
#include <random>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

bool haveDirectSolver() {
  return !Details::sparseLUPackages().empty();
}

/// Without SuiteSparse "lu" is an error naming the package to install.
#define KFVM_REQUIRE_DIRECT_SOLVER()                                                 \
  if (!haveDirectSolver()) {                                                         \
    expectError([] { makeLinearSolver<Space>("lu"); }, {"libsuitesparse-dev"});      \
    GTEST_SKIP() << "kfvm is built without SuiteSparse: 'lu' is an error naming it"; \
  }

/// x with A x = b, solved by "lu" with the parameters given (from x = 0).
std::vector<double> solveDirect(const CrsMatrix<Space>& A, const std::vector<double>& b,
                                const Parameters& parameters = {},
                                SolverReport* reportOut = nullptr) {
  auto solver = makeLinearSolver<Space>("lu", parameters);
  solver->setMatrix(A);
  auto x = toDevice(std::vector<double>(b.size(), 0.0));
  const auto report = solver->solve(toDevice(b), x);
  EXPECT_TRUE(report.converged) << report.reason;
  if (reportOut) *reportOut = report;
  return toHost(x);
}

/// A x for the dense host copy.
std::vector<double> times(const std::vector<std::vector<double>>& A,
                          const std::vector<double>& x) {
  std::vector<double> y(A.size(), 0.0);
  for (std::size_t i = 0; i < A.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) y[i] += A[i][j] * x[j];
  return y;
}

std::vector<double> randomVector(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<double> x(n);
  for (auto& v : x) v = value(random);
  return x;
}

TEST(DirectSolver, EveryPackageMatchesTheDenseSolveInOneSolve) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  for (const auto& system : {spdSystem(), nonSymmetricSystem()}) {
    const auto b = rightHandSide(system.n);
    const auto expected = solveDense(system.dense, b);
    for (const std::string package : {"auto", "klu", "umfpack"}) {
      SolverReport report;
      const auto x = solveDirect(system.matrix(), b, {{"package", package}}, &report);
      EXPECT_LT(maxDifference(x, expected), tolerance(1e-12)) << package;
      EXPECT_EQ(report.iterations, 1) << package << ": " << report.reason;
      EXPECT_LT(report.finalResidual, tolerance(1e-13) * report.initialResidual);
      EXPECT_NE(report.solver.find(package == "auto" ? "klu" : package),
                std::string::npos)
          << report.solver;
    }
  }
}

// 1D diffusion whose coefficient jumps by 1e8 across the domain (condition number about
// 1e10): the backward error is round-off, and in double the forward error is within
// the condition number times it.
TEST(DirectSolver, IllConditionedSystemToRoundOff) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  const int n = 200;
  HostSystem system(n);
  for (int i = 0; i < n; ++i) {
    const double left = std::pow(10.0, 8.0 * i / n),
                 right = std::pow(10.0, 8.0 * (i + 1) / n);
    if (i > 0) system.add(i, i - 1, -left);
    system.add(i, i, left + right + (i == 0 ? 1e-3 : 0));
    if (i < n - 1) system.add(i, i + 1, -right);
    system.endRow();
  }
  const auto exact = randomVector(std::size_t(n), 3);
  const auto b = times(system.dense, exact);
  SolverReport report;
  const auto x = solveDirect(system.matrix(), b, {{"tolerance", "1e-14"}}, &report);
  EXPECT_LE(report.finalResidual, 1e-14 * largestMagnitude(b) * std::sqrt(double(n)));
  if (sizeof(Real) == sizeof(double))
    EXPECT_LT(maxDifference(x, exact), 1e-4) << "forward error beyond cond(A) eps";
}

// FiPy's Cahn-Hilliard in the fourth-order form on a periodic 24 x 24 grid (dx = 1) from
// c = 0.5 + noise, where f''(c) = 1 - 6 c + 6 c^2 is negative (the spinodal region);
// assemble(dt) makes its matrix at dt and b = A exact for a random exact.
Equation<Space> spinodalEquation(const Mesh<Space>& mesh) {
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(1.0, 1.0, Polynomial{0, 1, -3, 2});
  return equation;
}

struct SpinodalSystem {
  Mesh<Space> mesh{CartesianGrid::uniform2D(24, 24, 24, 24),
                   GridGeometry(Coordinates::Cartesian, {true, true, false})};
  Equation<Space> equation = spinodalEquation(mesh);
  Assembler<Space> assembler{equation};
  CellField<Space> phi{mesh, "phi"};
  Vector<Space> rhs{"rhs", std::size_t(mesh.numCells())};
  std::vector<double> exact, b;

  SpinodalSystem() {
    std::vector<double> start(std::size_t(mesh.numCells()));
    std::mt19937 random(5);
    std::uniform_real_distribution<double> noise(-0.1, 0.1);
    for (auto& v : start) v = 0.5 + noise(random);
    phi.fromHost(start);
  }
  void assemble(double dt) {
    assembler.assemble(Real(1.0 / dt), Real(1.0), phi, phi, rhs);
    const auto A = assembler.matrix().toDenseHost();
    std::vector<std::vector<double>> dense(A.size());
    for (std::size_t i = 0; i < A.size(); ++i) dense[i].assign(A[i].begin(), A[i].end());
    exact = randomVector(A.size(), 9);
    b = times(dense, exact);
  }
};

// FiPy's Cahn-Hilliard in the fourth-order form on a periodic 2D grid at dt = 1 (dx = 1),
// where ILU(0)-GMRES stalls: the direct solve meets a manufactured solution, and UMFPACK
// (auto's choice for fourth-order fill) and KLU agree.
TEST(DirectSolver, FourthOrderPeriodicCahnHilliardAtLargeDt) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  SpinodalSystem system;
  system.assemble(1.0);
  const auto& exact = system.exact;
  const auto& b = system.b;
  std::vector<double> answers[2];
  int k = 0;
  for (const std::string package : {"auto", "klu"}) {
    auto solver = makeLinearSolver<Space>("lu", {{"package", package}});
    solver->setMatrix(system.assembler.matrix());
    auto x = toDevice(std::vector<double>(b.size(), 0.0));
    const auto report = solver->solve(toDevice(b), x);
    EXPECT_TRUE(report.converged) << report.reason;
    answers[k++] = toHost(x);
    const auto& direct = dynamic_cast<const DirectSolver<Space>&>(*solver);
    EXPECT_EQ(direct.package(), package == "auto" ? "umfpack" : "klu");
  }
  for (const auto& x : answers)
    EXPECT_LT(maxDifference(x, exact), tolerance(1e-9) * largestMagnitude(exact));
}

// Two species coupled through sources, steady: the block matrix of the coupled system
// solved directly equals its dense solve.
TEST(DirectSolver, CoupledSystemEqualsTheDenseSolve) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  Mesh<Space> mesh(CartesianGrid::uniform2D(6, 5, 1.0, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  system.diffusion(0, 0, 1.0).implicitSource(0, 1, 2.0).diffusion(1, 1, 0.3);
  system.implicitSource(1, 0, -0.5).implicitSource(1, 1, -1.0).source(0, 1.0);
  system.boundary(0, "left", BoundaryCondition::dirichlet(1.0));
  system.boundary(1, "right", BoundaryCondition::dirichlet(0.0));
  const Ordinal size = system.size();
  Vector<Space> previous("previous", std::size_t(size)), rhs("rhs", std::size_t(size));
  system.assemble(Real(0), previous, previous, rhs);
  const auto A = system.matrix().toDenseHost();
  std::vector<std::vector<double>> dense(A.size());
  for (std::size_t i = 0; i < A.size(); ++i) dense[i].assign(A[i].begin(), A[i].end());
  const auto b = toHost(rhs);
  const auto x = solveDirect(system.matrix(), b);
  EXPECT_LT(maxDifference(x, solveDense(dense, b)), tolerance(1e-11));
}

// Steady diffusion, phi = 0 on the left and 1 on the right, periodic along y: the exact
// solution is linear in x, which the finite volumes reproduce; the stepper's solve is
// the direct one.
TEST(DirectSolver, ConstraintsAndAPeriodicAxisGiveTheExactLinearProfile) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  const int nx = 10, ny = 6;
  Mesh<Space> mesh(CartesianGrid::uniform2D(nx, ny, 1.0, 0.6),
                   GridGeometry(Coordinates::Cartesian, {false, true, false}));
  Equation<Space> equation(mesh);
  equation.diffusion(Real(2.0))
      .boundary("left", BoundaryCondition::dirichlet(0.0))
      .boundary("right", BoundaryCondition::dirichlet(1.0));
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>("lu"));
  CellField<Space> phi(mesh, "phi");
  const auto report = stepper.solveSteady(phi);
  ASSERT_TRUE(report.converged) << report.reason;
  const auto values = toHost(phi.values());
  std::vector<double> exact(values.size());
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) exact[std::size_t(i + nx * j)] = (i + 0.5) / nx;
  EXPECT_LT(maxDifference(values, exact), tolerance(1e-12));
}

// Refilled values of one structure are factored again without a new analysis; another
// matrix is analyzed anew.
TEST(DirectSolver, KeepsItsAnalysisWhileTheStructureHolds) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  Mesh<Space> mesh(CartesianGrid::uniform2D(12, 10, 1.0, 1.0));
  Equation<Space> equation(mesh);
  CellField<Space> D(mesh, "D"), phi(mesh, "phi");
  equation.transient().diffusion(D).boundary("left", BoundaryCondition::dirichlet(1.0));
  Assembler<Space> assembler(equation);
  Vector<Space> rhs("rhs", std::size_t(mesh.numCells()));
  DirectSolver<Space> solver("lu", {});
  auto x = toDevice(std::vector<double>(std::size_t(mesh.numCells()), 0.0));
  for (int refill = 0; refill < 3; ++refill) {
    D.fill(Real(1 + refill));
    assembler.assemble(Real(10.0), Real(1.0), phi, rhs);
    solver.setMatrix(assembler.matrix());
    const auto A = assembler.matrix().toDenseHost();
    std::vector<std::vector<double>> dense(A.size());
    for (std::size_t i = 0; i < A.size(); ++i) dense[i].assign(A[i].begin(), A[i].end());
    // The report's first residual is the refilled matrix's at the last answer.
    const auto b = toHost(rhs);
    const auto x0 = toHost(x);
    double initial = 0;
    for (std::size_t i = 0; i < dense.size(); ++i) {
      double r = b[i];
      for (std::size_t j = 0; j < dense.size(); ++j) r -= dense[i][j] * x0[j];
      initial += r * r;
    }
    initial = std::sqrt(initial);
    const auto report = solver.solve(rhs, x);
    ASSERT_TRUE(report.converged) << report.reason;
    EXPECT_GT(initial, 1e-3) << "refill " << refill;
    EXPECT_NEAR(report.initialResidual, initial, tolerance(1e-12) * (1 + initial))
        << "refill " << refill;
    EXPECT_LT(maxDifference(toHost(x), solveDense(dense, b)), tolerance(1e-12))
        << "refill " << refill;
  }
  EXPECT_EQ(solver.analyses(), 1);
  EXPECT_EQ(solver.factorizations(), 3);
  const auto other = spdSystem();
  solver.setMatrix(other.matrix());
  auto y = toDevice(std::vector<double>(std::size_t(other.n), 0.0));
  ASSERT_TRUE(solver.solve(toDevice(rightHandSide(other.n)), y).converged);
  EXPECT_EQ(solver.analyses(), 2);
  EXPECT_EQ(solver.factorizations(), 4);
}

// A row of zeros: the factorization finds no pivot, and the report says so without
// touching x.
TEST(DirectSolver, ASingularMatrixIsAReportNamingIt) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  HostSystem system(3);
  system.add(0, 0, 2);
  system.add(0, 1, 1);
  system.endRow();
  system.add(1, 0, 0);
  system.add(1, 1, 0);
  system.endRow();
  system.add(2, 1, 1);
  system.add(2, 2, 3);
  system.endRow();
  for (const std::string package : {"klu", "umfpack"}) {
    auto solver = makeLinearSolver<Space>("lu", {{"package", package}});
    solver->setMatrix(system.matrix());
    auto x = toDevice({7, 7, 7});
    const auto report = solver->solve(toDevice({1, 2, 3}), x);
    EXPECT_FALSE(report.converged) << package;
    EXPECT_NE(report.reason.find("singular matrix"), std::string::npos) << report.reason;
    EXPECT_EQ(toHost(x), std::vector<double>({7, 7, 7}));
  }
}

// The spinodal system at dt = 1e-3, 1e3 and 1e-3 again: ILU(0)-GMRES (300 iterations to
// 1e-10, 1e-6 in float) converges at the small dt and misses at the large one (it needs
// 200-odd at dt = 1). A fallback to "lu" solves where it misses, and only there, from
// the same start.
TEST(DirectSolver, AKrylovMethodFallsBackToItWhereItDoesNotConverge) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  SpinodalSystem system;
  Parameters parameters{
      {"preconditioner", "ilu0"}, {"max_iterations", "300"}, {"fallback", "lu"}};
  parameters.set("tolerance", solverTolerance(1e-10));
  auto solver = makeLinearSolver<Space>("gmres", parameters);
  const auto& fallback = dynamic_cast<const FallbackSolver<Space>&>(*solver);
  EXPECT_EQ(solver->preconditionerName(), "ilu0");
  int fallbacks = 0;
  for (const double dt : {1e-3, 1e3, 1e-3}) {
    system.assemble(dt);
    const auto& exact = system.exact;
    solver->setMatrix(system.assembler.matrix());
    auto x = toDevice(std::vector<double>(exact.size(), 0.0));
    const auto report = solver->solve(toDevice(system.b), x);
    EXPECT_TRUE(report.converged) << "dt " << dt << ": " << report.reason;
    EXPECT_LT(maxDifference(toHost(x), exact), tolerance(1e-8) * largestMagnitude(exact));
    const bool stalls = dt == 1e3;
    if (stalls) ++fallbacks;
    EXPECT_EQ(fallback.fallbacks(), fallbacks) << "dt " << dt;
    EXPECT_EQ(report.solver.find(", then lu") != std::string::npos, stalls)
        << report.solver;
    if (stalls)
      EXPECT_NE(report.reason.find("gmres+ilu0 did not converge"), std::string::npos)
          << report.reason;
  }
  expectError(
      [] {
        makeLinearSolver<Space>("gmres", {{"fallback", "qr"}});
      },
      {"parameter fallback names an unknown solver 'qr'", "known: none, "});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"fallback", "cg"}});
      },
      {"cannot fall back to itself"});
}

TEST(DirectSolver, BadParametersAreErrorsNamingThem) {
  KFVM_REQUIRE_DIRECT_SOLVER();
  expectError(
      [] {
        makeLinearSolver<Space>("lu", {{"preconditioner", "jacobi"}});
      },
      {"unknown preconditioner 'jacobi'", "known: none"});
  expectError(
      [] {
        makeLinearSolver<Space>("direct", {{"package", "mumps"}});
      },
      {"'mumps'", "klu, umfpack"});
  expectError([] { makeLinearSolver<Space>("lu", {{"restart", "30"}}); }, {"restart"});
  const auto names = linearSolverNames();
  for (const char* name : {"lu", "direct"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

}  // namespace
}  // namespace kfvm::Test
