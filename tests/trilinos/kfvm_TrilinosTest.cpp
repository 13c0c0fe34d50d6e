// Native and Trilinos solvers behind one interface: same answers, same reports, same
// errors. Runs on the backend Trilinos is built for (Serial with Debian's packages).
#include "../kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_TrilinosSolver.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <fstream>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

Parameters withTolerance(Parameters parameters, const char* tolerance = "1e-10") {
  parameters.set("tolerance", tolerance).set("max_iterations", 2000);
  return parameters;
}

void setLayeredDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(1) + Real(4) * x * y + z; });
}

/// Steady 3D diffusion with variable D, a source and mixed conditions: an SPD system.
std::vector<double> solveDiffusion3D(const std::string& solver,
                                     const Parameters& parameters, int n = 16) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(n, n, n, 1, 1, 1));
  CellField<Space> D(mesh, "D"), phi(mesh, "phi");
  setLayeredDiffusivity(D, mesh);
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(1.0).implicitSource(-0.5);
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
      .boundary(Patch::Right, BoundaryCondition::dirichlet(0.0))
      .boundary(Patch::Top, BoundaryCondition::robin(1.0, 0.1, 0.3));
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>(solver, parameters));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << solver << ": " << report.reason;
  return toHost(phi.values());
}

TEST(Trilinos, SolverPairsAgreeOnSpdDiffusion3D) {
  const auto native = solveDiffusion3D("cg", withTolerance({}));
  const std::vector<std::pair<std::string, std::string>> trilinos = {
      {"belos:cg", "muelu"},
      {"belos:cg", "ifpack2:relaxation"},
      {"belos:cg", "ifpack2:chebyshev"},
      {"belos:gmres", "ifpack2:ilut"},
      {"belos:bicgstab", "none"},
      {"belos:tfqmr", "ifpack2:relaxation"},
      {"amesos2:klu2", "none"}};
  for (const auto& [solver, preconditioner] : trilinos) {
    const auto answer =
        solveDiffusion3D(solver, withTolerance({{"preconditioner", preconditioner}}));
    EXPECT_LT(maxDifference(answer, native), 1e-7) << solver << " + " << preconditioner;
  }
  EXPECT_LT(maxDifference(solveDiffusion3D("gmres", withTolerance({})), native), 1e-7);
  EXPECT_LT(maxDifference(solveDiffusion3D("bicgstab", withTolerance({})), native), 1e-7);
}

/// Upwinded convection-diffusion on an m x m grid (cell Peclet 2 along x, 1 along y),
/// with Dirichlet-like boundary rows folded in: non-symmetric, diagonally dominant.
CrsMatrix<Space> convectionDiffusionMatrix(int m) {
  std::vector<Offset> offsets{0};
  std::vector<Ordinal> columns;
  std::vector<Real> values;
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < m; ++i) {
      const int row = i + m * j;
      auto add = [&](int column, double value) {
        columns.push_back(column);
        values.push_back(Real(value));
      };
      if (j > 0) add(row - m, -1 - 1);
      if (i > 0) add(row - 1, -1 - 2);
      add(row, 4 + 2 + 1);
      if (i < m - 1) add(row + 1, -1);
      if (j < m - 1) add(row + m, -1);
      offsets.push_back(columns.size());
    }
  }
  return CrsMatrix<Space>::fromHost(m * m, m * m, offsets, columns, values);
}

std::vector<double> solveNonSymmetric(const std::string& solver,
                                      const Parameters& parameters) {
  const int m = 24;
  auto A = convectionDiffusionMatrix(m);
  auto linear = makeLinearSolver<Space>(solver, parameters);
  linear->setMatrix(A);
  std::vector<double> b(m * m);
  for (int i = 0; i < m * m; ++i) b[i] = std::sin(0.1 * i) + 1.0;
  auto x = toDevice(std::vector<double>(m * m, 0.0));
  const auto report = linear->solve(toDevice(b), x);
  EXPECT_TRUE(report.converged) << solver << ": " << report.reason;
  EXPECT_GT(report.initialResidual, 0) << solver;
  return toHost(x);
}

TEST(Trilinos, SolverPairsAgreeOnNonSymmetricSystem) {
  const auto direct = solveNonSymmetric("amesos2:klu2", {});
  for (const auto& [solver, preconditioner] :
       std::vector<std::pair<std::string, std::string>>{
           {"bicgstab", "jacobi"},
           {"gmres", "jacobi"},
           {"belos:bicgstab", "ifpack2:ilut"},
           {"belos:gmres", "ifpack2:relaxation"},
           {"belos:gmres", "muelu"},
           {"belos:tfqmr", "ifpack2:ilut"}}) {
    const auto answer =
        solveNonSymmetric(solver, withTolerance({{"preconditioner", preconditioner}}));
    EXPECT_LT(maxDifference(answer, direct), 1e-8) << solver << " + " << preconditioner;
  }
}

/// Iterations of CG on 3D Poisson (unit cube, Dirichlet all round, source 1) at n^3.
int poissonIterations(int n, const std::string& solver,
                      const std::string& preconditioner) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(n, n, n, 1, 1, 1));
  CellField<Space> phi(mesh, "phi");
  Equation<Space> equation(mesh);
  equation.diffusion(1.0).source(1.0);
  for (Patch patch : allPatches)
    equation.boundary(patch, BoundaryCondition::dirichlet(0));
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(solver, {{"tolerance", "1e-8"},
                                                 {"max_iterations", "5000"},
                                                 {"preconditioner", preconditioner}}));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return report.iterations;
}

TEST(Trilinos, MueLuKeepsIterationsBoundedWhileJacobiGrows) {
  std::vector<int> muelu, jacobi;
  for (int n : {16, 32, 64}) {
    muelu.push_back(poissonIterations(n, "belos:cg", "muelu"));
    jacobi.push_back(poissonIterations(n, "cg", "jacobi"));
    std::printf("  3D Poisson %d^3: belos:cg + muelu %d iterations, cg + jacobi %d\n", n,
                muelu.back(), jacobi.back());
  }
  EXPECT_LE(muelu[2], 1.5 * muelu[0]);
  EXPECT_LE(muelu[1], 1.5 * muelu[0]);
  EXPECT_GE(jacobi[2], 3 * jacobi[0]);  // about 2x per refinement
}

void setSineProduct(CellField<Space>& phi, const Mesh<Space>& mesh) {
  const double pi = 3.14159265358979323846;
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(Compat::sin(pi * x) * Compat::sin(pi * y) * Compat::sin(pi * z));
      });
}

/// The diffusion app's time loop (kfvm-diffusion3d) with a given solver.
std::vector<double> diffusionTimeLoop(const std::string& solver,
                                      const Parameters& parameters) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(20, 20, 20, 1, 1, 1));
  Equation<Space> equation(mesh);
  equation.transient().diffusion(1.0);
  for (Patch patch : allPatches)
    equation.boundary(patch, BoundaryCondition::dirichlet(0));
  CellField<Space> phi(mesh, "phi");
  setSineProduct(phi, mesh);
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>(solver, parameters));
  for (int step = 0; step < 6; ++step) {
    const auto report = stepper.step(
        phi, 2e-3, step % 2 ? TimeScheme::CrankNicolson : TimeScheme::BackwardEuler);
    EXPECT_TRUE(report.converged) << solver << ": " << report.reason;
  }
  return toHost(phi.values());
}

TEST(Trilinos, DiffusionTimeLoopWithBelosCgMueLuMatchesNativeCg) {
  const auto native = diffusionTimeLoop("cg", withTolerance({}, "1e-11"));
  for (const char* reuse : {"none", "RP", "full"}) {
    const auto trilinos = diffusionTimeLoop(
        "belos:cg",
        withTolerance({{"preconditioner", "muelu"}, {"preconditioner_reuse", reuse}},
                      "1e-11"));
    EXPECT_LT(maxDifference(trilinos, native), 1e-9) << "reuse " << reuse;
  }
}

TEST(Trilinos, XmlParameterFileReachesBelos) {
  const std::string path = "kfvm_trilinos_test_parameters.xml";
  std::ofstream(path)
      << "<ParameterList>\n"
         "  <ParameterList name=\"belos\">\n"
         "    <Parameter name=\"Maximum Iterations\" type=\"int\" value=\"3\"/>\n"
         "  </ParameterList>\n"
         "</ParameterList>\n";
  auto solver = makeLinearSolver<Space>(
      "belos:gmres", {{"tolerance", "1e-12"}, {"preconditioner", "none"}, {"xml", path}});
  solver->setMatrix(convectionDiffusionMatrix(16));
  auto x = toDevice(std::vector<double>(256, 0.0));
  const auto report = solver->solve(toDevice(std::vector<double>(256, 1.0)), x);
  EXPECT_FALSE(report.converged);
  EXPECT_EQ(report.iterations, 3);
  EXPECT_NE(report.reason.find("iteration limit"), std::string::npos) << report.reason;
}

TEST(Trilinos, BadNamesAndParametersAreClearErrorsBeforeAnySolve) {
  expectError([] { makeLinearSolver<Space>("belos:minres"); },
              {"unknown solver 'belos:minres'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"preconditioner", "ml"}});
      },
      {"unknown preconditioner 'ml'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"tolerence", "1e-3"}});
      },
      {"unknown parameter 'tolerence'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"belos.Maximum Iteratons", "9"}});
      },
      {"Maximum Iteratons"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"preconditioner", "ifpack2:relaxation"},
                                             {"preconditioner_reuse", "RP"}});
      },
      {"'RP'", "muelu"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"preconditioner_reuse", "some"}});
      },
      {"'some'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"relaxation", "SOR"}});
      },
      {"unknown parameter 'relaxation'", "preconditioner 'muelu'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"preconditioner", "ifpack2:relaxation"},
                                             {"relaxation", "SOR"}});
      },
      {"'SOR'"});
  expectError(
      [] {
        makeLinearSolver<Space>("belos:cg", {{"xml", "/nonexistent/kfvm.xml"}});
      },
      {"Trilinos error", "/nonexistent/kfvm.xml"});
  // A bad MueLu parameter surfaces at setMatrix(), still before any solve, with
  // Trilinos' own message.
  auto solver =
      makeLinearSolver<Space>("belos:cg", {{"muelu.smoother: typo", "RELAXATION"}});
  expectError([&] { solver->setMatrix(convectionDiffusionMatrix(8)); },
              {"Trilinos error", "smoother: typo"});
}

TEST(TrilinosMpi, EachRankSolvesItsOwnBlockOfADistributedSystem) {
  // Every rank owns the rows of its own copy of the system: the global matrix is block
  // diagonal, so every rank must get the one-process answer while Belos' reductions run
  // over all ranks.
  const auto direct = solveNonSymmetric("gmres", withTolerance({}));
  const auto distributed = solveNonSymmetric(
      "belos:gmres", withTolerance({{"preconditioner", "ifpack2:ilut"}}));
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::printf("  MPI ranks: %d\n", ranks);
  EXPECT_LT(maxDifference(distributed, direct), 1e-8);
  if (ranks > 1) {
    auto klu = makeLinearSolver<Space>("amesos2:klu2");
    expectError([&] { klu->setMatrix(convectionDiffusionMatrix(8)); },
                {"one MPI process only", std::to_string(ranks)});
  }
}

}  // namespace
}  // namespace kfvm::Test
