// kfvm-solver-bench: time to solution of native and Trilinos solvers on the same systems,
// setup and solve timed separately.
//
//   kfvm-solver-bench                         # 32^3 and 64^3, every solver built in
//   kfvm-solver-bench --sizes 64,96 --solvers cg,belos:cg+muelu --repeat 5
//
// System: one backward-Euler step (dt = h^2) of 3D diffusion with variable D on the unit
// cube, Dirichlet on two faces, solved to rtol 1e-8 from a zero guess. "first setup" is
// the first setMatrix() (allocation, preconditioner or factorization from scratch);
// "setup" a later setMatrix() after a value refill (what every time step pays); "solve"
// one solve(). Medians of --repeat runs.
#include <kfvm_Assembler.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_LinearSolver.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace kfvm_solver_bench {

using Space = Kokkos::DefaultExecutionSpace;
using kfvm::Real;

double seconds(const std::chrono::steady_clock::time_point& start) {
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

void setDiffusivity(kfvm::CellField<Space>& D, const kfvm::Mesh<Space>& mesh) {
  kfvm::setFromCellCentres(
      D, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(1) + Real(3) * x * y + z; });
}

int run(const std::vector<int>& sizes, const std::vector<std::string>& solvers,
        int repeat) {
  using namespace kfvm;
  std::printf("kfvm-solver-bench: backend %s, Kokkos %s, median of %d\n", Space::name(),
              Compat::kokkosVersion().c_str(), repeat);
  std::printf("%-6s %-32s %12s %10s %10s %6s  %s\n", "n", "solver + preconditioner",
              "first setup", "setup", "solve", "iters", "status");
  for (int n : sizes) {
    Mesh<Space> mesh(CartesianGrid::uniform3D(n, n, n, 1, 1, 1));
    CellField<Space> D(mesh, "D"), old(mesh, "old", 1.0);
    setDiffusivity(D, mesh);
    Equation<Space> equation(mesh);
    equation.transient().diffusion(D);
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::dirichlet(0.0));
    Assembler<Space> assembler(equation);
    Vector<Space> rhs("rhs", mesh.numCells()), x("x", mesh.numCells());
    assembler.assemble(Real(n) * Real(n), 1, old, rhs);
    for (const auto& entry : solvers) {
      const auto plus = entry.find('+');
      const std::string name = entry.substr(0, plus);
      Parameters parameters{{"tolerance", "1e-8"}, {"max_iterations", "5000"}};
      if (plus != std::string::npos)
        parameters.set("preconditioner", entry.substr(plus + 1));
      if (name == "amesos2:klu2" && n > 24) continue;  // 3D fill-in: small systems only
      auto solver = makeLinearSolver<Space>(name, parameters);
      auto start = std::chrono::steady_clock::now();
      solver->setMatrix(assembler.matrix());
      const double firstSetup = seconds(start);
      std::vector<double> setups, solves;
      SolverReport report;
      for (int r = 0; r < repeat; ++r) {
        assembler.assemble(Real(n) * Real(n), 1, old,
                           rhs);  // a refill, as each step does
        start = std::chrono::steady_clock::now();
        solver->setMatrix(assembler.matrix());
        setups.push_back(seconds(start));
        Kokkos::deep_copy(x, Real(0));
        start = std::chrono::steady_clock::now();
        report = solver->solve(rhs, x);
        solves.push_back(seconds(start));
      }
      std::printf("%-6d %-32s %10.2fms %8.2fms %8.2fms %6d  %s\n", n, entry.c_str(),
                  firstSetup * 1e3, median(setups) * 1e3, median(solves) * 1e3,
                  report.iterations, report.converged ? "converged" : "NOT CONVERGED");
    }
  }
  return 0;
}

}  // namespace kfvm_solver_bench

int main(int argc, char* argv[]) {
  std::vector<int> sizes = {32, 64};
  std::vector<std::string> solvers;
  for (const auto& name : kfvm::linearSolverNames()) {
    if (name == "belos:cg") {
      solvers.push_back("belos:cg+muelu");
      solvers.push_back("belos:cg+ifpack2:relaxation");
    } else if (name.rfind("belos:", 0) == 0) {
      solvers.push_back(name + "+ifpack2:ilut");
    } else if (name == "amesos2:klu2") {
      solvers.push_back(name);
    } else {
      solvers.push_back(name + "+jacobi");
    }
  }
  int repeat = 5;
  CLI::App app{"kfvm-solver-bench: setup and solve times of native and Trilinos solvers"};
  app.add_option("--sizes", sizes, "cells per side")->delimiter(',');
  app.add_option("--solvers", solvers, "name[+preconditioner] entries")->delimiter(',');
  app.add_option("--repeat", repeat, "timed repetitions (median)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return kfvm_solver_bench::run(sizes, solvers, repeat);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kfvm-solver-bench: %s\n", error.what());
    return 1;
  }
}
