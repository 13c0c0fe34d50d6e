#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestSystems.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_LinearSolver.hpp>

#include <cmath>
#include <random>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

void expectSolvesLikeDirect(const HostSystem& system, const std::string& name,
                            const std::string& preconditioner) {
  auto solver = makeLinearSolver<Space>(name, {{"tolerance", solverToleranceText(1e-12)},
                                               {"preconditioner", preconditioner},
                                               {"max_iterations", "2000"}});
  solver->setMatrix(system.matrix());
  const auto b = rightHandSide(system.n);
  auto x = toDevice(std::vector<double>(system.n, 0.0));
  const auto report = solver->solve(toDevice(b), x);
  EXPECT_TRUE(report.converged) << name << ": " << report.reason;
  EXPECT_GT(report.iterations, 0);
  EXPECT_LE(report.finalResidual,
            solverTolerance(1e-12) * report.initialResidual * 1.0001 + 1e-300);
  const auto direct = solveDense(system.dense, b);
  EXPECT_LT(maxDifference(toHost(x), direct), tolerance(1e-9))
      << name << " + " << preconditioner;
}

const std::vector<std::string> nativeSolvers = {"cg", "bicgstab", "gmres"};

TEST(Solvers, EverySolverMatchesDirectSolutionOnSpdSystem) {
  const auto system = spdSystem();
  for (const auto& name : nativeSolvers) {
    for (const char* preconditioner : {"jacobi", "none"}) {
      expectSolvesLikeDirect(system, name, preconditioner);
    }
  }
}

TEST(Solvers, NonSymmetricSolversMatchDirectSolution) {
  const auto system = nonSymmetricSystem();
  for (const char* name : {"bicgstab", "gmres"}) {
    for (const char* preconditioner : {"jacobi", "none"}) {
      expectSolvesLikeDirect(system, name, preconditioner);
    }
  }
}

TEST(Solvers, GmresWithShortRestartStillConverges) {
  const auto system = nonSymmetricSystem();
  auto solver = makeLinearSolver<Space>(
      "gmres", {{"tolerance", solverToleranceText(1e-10)}, {"restart", "5"}});
  solver->setMatrix(system.matrix());
  const auto b = rightHandSide(system.n);
  auto x = toDevice(std::vector<double>(system.n, 1.0));
  const auto report = solver->solve(toDevice(b), x);
  ASSERT_TRUE(report.converged) << report.reason;
  EXPECT_GT(report.iterations, 5);
  EXPECT_LT(maxDifference(toHost(x), solveDense(system.dense, b)), tolerance(1e-7));
}

// The "initial" criterion (FiPy's and Belos'): from a guess far from the answer (the
// initial residual 100 times ||b||) the tolerance is relative to ||b - A x0||, and the
// solve stops well before the "rhs" criterion would; an unknown criterion is an error.
TEST(Solvers, InitialCriterionIsRelativeToTheInitialResidual) {
  const auto system = spdSystem();
  const auto b = rightHandSide(system.n);
  const auto far = solveDense(system.dense, b);
  for (const auto& name : nativeSolvers) {
    int iterations[2] = {0, 0};
    for (int initial = 0; initial < 2; ++initial) {
      auto solver = makeLinearSolver<Space>(
          name, {{"tolerance", "1e-4"}, {"criterion", initial ? "initial" : "rhs"}});
      solver->setMatrix(system.matrix());
      std::vector<double> guess(system.n);
      for (Ordinal i = 0; i < system.n; ++i)
        guess[i] = far[i] + 300.0 * std::cos(1.7 * i);
      auto x = toDevice(guess);
      const auto report = solver->solve(toDevice(b), x);
      ASSERT_TRUE(report.converged) << name << ": " << report.reason;
      double normB = 0;
      for (double v : b) normB += v * v;
      normB = std::sqrt(normB);
      EXPECT_GT(report.initialResidual, 100 * normB) << name;
      EXPECT_LE(report.finalResidual, 1e-4 * (initial ? report.initialResidual : normB))
          << name;
      iterations[initial] = report.iterations;
    }
    EXPECT_LT(iterations[1], iterations[0]) << name;
  }
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"criterion", "matrix"}});
      },
      {"unknown criterion 'matrix'", "rhs, initial"});
}

TEST(Solvers, IterationLimitIsReportedAsNotConverged) {
  const auto system = spdSystem();
  for (const auto& name : nativeSolvers) {
    auto solver = makeLinearSolver<Space>(
        name, {{"tolerance", solverToleranceText(1e-12)}, {"max_iterations", "2"}});
    solver->setMatrix(system.matrix());
    auto x = toDevice(std::vector<double>(system.n, 0.0));
    const auto report = solver->solve(toDevice(rightHandSide(system.n)), x);
    EXPECT_FALSE(report.converged) << name;
    EXPECT_LE(report.iterations, 2) << name;
    EXPECT_NE(report.reason.find("not converged"), std::string::npos) << report.reason;
    EXPECT_NE(report.reason.find("iteration limit"), std::string::npos) << report.reason;
    EXPECT_GT(report.finalResidual, 0);
  }
}

/// Kernel launches seen by Kokkos Tools: all of them, and those of the CG iteration:
/// labelled kfvm::ConjugateGradient, or the operator's one-pass product and dot.
struct Launches {
  int all = 0, cg = 0;
};
Launches launches;

void countLaunch(const char* name, const uint32_t, uint64_t*) {
  ++launches.all;
  const std::string label = name;
  if (label.rfind("kfvm::ConjugateGradient::", 0) == 0 ||
      label == "kfvm::MatrixOperator::productAndDot")
    ++launches.cg;
}

/// Launches of a Jacobi- or un-preconditioned CG solve stopped at maxIterations.
Launches cgLaunches(const HostSystem& system, const std::string& preconditioner,
                    int maxIterations) {
  auto solver =
      makeLinearSolver<Space>("cg", {{"tolerance", "1e-30"},
                                     {"absolute_tolerance", "1e-300"},
                                     {"max_iterations", std::to_string(maxIterations)},
                                     {"preconditioner", preconditioner}});
  solver->setMatrix(system.matrix());
  auto x = toDevice(std::vector<double>(system.n, 0.0));
  const auto b = toDevice(rightHandSide(system.n));
  launches = Launches();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(countLaunch);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(countLaunch);
  const auto report = solver->solve(b, x);
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  EXPECT_EQ(report.iterations, maxIterations) << report.reason;
  return launches;
}

// The fused CG (Jacobi or no preconditioner): each iteration is the product with p.q
// (the operator's applyAndDot), the update with r.z and r.r, the one-thread publication
// of the sums the host reads, and the next direction. Four kernels and no host-returning
// dot: the
// launches of a 12-iteration solve exceed a 5-iteration one's by exactly 4 x 7.
TEST(Solvers, FusedCgIterationIsFourKernelsWithOneScalarForTheHost) {
  const auto system = spdSystem();
  for (const std::string preconditioner : {"jacobi", "none"}) {
    const Launches five = cgLaunches(system, preconditioner, 5);
    const Launches twelve = cgLaunches(system, preconditioner, 12);
    EXPECT_EQ(twelve.all - five.all, 4 * 7) << preconditioner;
    EXPECT_EQ(twelve.cg - five.cg, 4 * 7) << preconditioner;
  }
}

// A NaN or inf in b is said to be the right-hand side's, not "residual became nan".
TEST(Solvers, NonFiniteRightHandSideIsNamed) {
  const auto system = spdSystem();
  for (const auto& name : nativeSolvers)
    for (double bad : {std::nan(""), HUGE_VAL}) {
      auto solver = makeLinearSolver<Space>(name);
      solver->setMatrix(system.matrix());
      auto b = rightHandSide(system.n);
      b[1] = bad;
      auto x = toDevice(std::vector<double>(system.n, 0.0));
      const auto report = solver->solve(toDevice(b), x);
      EXPECT_FALSE(report.converged) << name;
      EXPECT_NE(report.reason.find("the right-hand side's norm is not finite"),
                std::string::npos)
          << name << ": " << report.reason;
    }
}

TEST(Solvers, ZeroRightHandSideConvergesAtOnce) {
  const auto system = spdSystem();
  auto solver = makeLinearSolver<Space>("cg");
  solver->setMatrix(system.matrix());
  auto x = toDevice(std::vector<double>(system.n, 0.0));
  const auto report = solver->solve(toDevice(std::vector<double>(system.n, 0.0)), x);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.iterations, 0);
}

TEST(Solvers, BadNamesParametersAndSizesAreErrors) {
  expectError([] { makeLinearSolver<Space>("lu-decomposition"); },
              {"unknown solver 'lu-decomposition'"});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"tolerence", "1e-6"}});
      },
      {"unknown parameter 'tolerence'"});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"restart", "10"}});
      },
      {"unknown parameter 'restart'"});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"tolerance", "abc"}});
      },
      {"tolerance", "abc"});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"tolerance", "-1"}});
      },
      {"tolerance", "-1"});
  expectError(
      [] {
        makeLinearSolver<Space>("bicgstab", {{"max_iterations", "0"}});
      },
      {"max_iterations", "0"});
  expectError(
      [] {
        makeLinearSolver<Space>("gmres", {{"restart", "0"}});
      },
      {"restart", "0"});
  expectError(
      [] {
        makeLinearSolver<Space>("cg", {{"preconditioner", "ilu"}});
      },
      {"'ilu'"});
  auto solver = makeLinearSolver<Space>("cg");
  expectError(
      [&] {
        solver->solve(toDevice({1.0, 2.0}), toDevice({0.0, 0.0}));
      },
      {"setMatrix"});
  solver->setMatrix(spdSystem().matrix());
  expectError(
      [&] {
        solver->solve(toDevice({1.0, 2.0}), toDevice({0.0, 0.0}));
      },
      {"64 rows", "2"});
  expectError(
      [] {
        CrsMatrix<Space>::fromHost(2, 2, {0, 1, 2}, {0, 5}, {1.0, 1.0});
      },
      {"column 5", "row 1"});
}

// rho dphi/dt = c phi alone (no diffusion) is well posed for any dt with 1/dt != c, but
// its matrix (1/dt - c) V vanishes at dt = 1 when c = 1: the steppers must set their
// solver up on the real step's matrix, not on a trial one. The exact discrete solutions
// per step: phi_n+1 = phi_n / (1 - c dt) (backward Euler), phi_n (1 + c dt / 2) /
// (1 - c dt / 2) (Crank-Nicolson).
TEST(Solvers, ReactionWithoutDiffusionStepsWhereTheTrialMatrixWouldBeSingular) {
  const double c = 1.0, dt = 0.1;
  Mesh<Space> mesh(CartesianGrid::uniform2D(5, 4, 1.0, 0.8));
  std::vector<double> initial(std::size_t(mesh.numCells()));
  for (std::size_t i = 0; i < initial.size(); ++i) initial[i] = 1 + 0.1 * double(i);
  for (const auto& name : nativeSolvers) {
    for (const char* preconditioner : {"jacobi", "ilu0", "none"}) {
      for (const TimeScheme scheme :
           {TimeScheme::BackwardEuler, TimeScheme::CrankNicolson}) {
        Equation<Space> equation(mesh);
        equation.transient(1.0).implicitSource(c);
        ImplicitStepper<Space> stepper(
            equation,
            makeLinearSolver<Space>(name, {{"tolerance", solverToleranceText(1e-12)},
                                           {"preconditioner", preconditioner}}));
        CellField<Space> phi(mesh, "phi");
        phi.fromHost(std::vector<Real>(initial.begin(), initial.end()));
        const double factor = scheme == TimeScheme::BackwardEuler
                                  ? 1 / (1 - c * dt)
                                  : (1 + c * dt / 2) / (1 - c * dt / 2);
        std::vector<double> exact = initial;
        for (int step = 1; step <= 5; ++step) {
          const auto report = stepper.step(phi, dt, scheme);
          ASSERT_TRUE(report.converged)
              << name << " + " << preconditioner << ": " << report.reason;
          for (auto& value : exact) value *= factor;
          EXPECT_LT(maxDifference(toHost(phi.values()), exact), tolerance(1e-10))
              << name << " + " << preconditioner << ", step " << step;
        }
      }
    }
  }
}

// The same in a coupled system of two such equations (backward Euler, c = 1 and 0.5).
TEST(Solvers, CoupledReactionWithoutDiffusionStepsWhereTheTrialMatrixWouldBeSingular) {
  const double c[2] = {1.0, 0.5}, dt = 0.1;
  Mesh<Space> mesh(CartesianGrid::uniform1D(6, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  for (int v = 0; v < 2; ++v) system.transient(v, v, 1.0).implicitSource(v, v, c[v]);
  for (const char* preconditioner : {"jacobi", "ilu0"}) {
    CoupledStepper<Space> stepper(
        system,
        makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-12)},
                                          {"preconditioner", preconditioner}}));
    std::vector<CellField<Space>> fields = {CellField<Space>(mesh, "u", 1.0),
                                            CellField<Space>(mesh, "v", 2.0)};
    double exact[2] = {1.0, 2.0};
    for (int step = 1; step <= 5; ++step) {
      const auto report = stepper.step(fields, dt);
      ASSERT_TRUE(report.converged) << preconditioner << ": " << report.reason;
      for (int v = 0; v < 2; ++v) {
        exact[v] /= 1 - c[v] * dt;
        EXPECT_LT(maxDifference(toHost(fields[std::size_t(v)].values()),
                                std::vector<double>(6, exact[v])),
                  tolerance(1e-10))
            << preconditioner << ", variable " << v << ", step " << step;
      }
    }
  }
}

}  // namespace
}  // namespace kfvm::Test
