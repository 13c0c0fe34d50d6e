// kfvm-solver-bench: time to solution of native and Trilinos solvers on the same systems,
// setup and solve timed separately.
//
//   kfvm-solver-bench                         # 32^3 and 64^3, every solver built in
//   kfvm-solver-bench --sizes 64,96 --solvers cg+mg,belos:cg+muelu --repeat 5
//   kfvm-solver-bench --problem poisson --matrix-free --sizes 256 --solvers
//   cg+mg,cg+jacobi
//
// Systems on the unit cube, solved to rtol 1e-8 from a zero guess:
//  - "step" (the default): one backward-Euler step (dt = h^2) of 3D diffusion with
//    variable D, Dirichlet on two faces;
//  - "poisson": steady -div grad u = 1, Dirichlet 0 on every face (issue 20's problem).
// "first setup" is the first setup of the solver (allocation, preconditioner or
// factorization from scratch); "setup" a later one after a value refill (what every time
// step pays); "solve" one solve(); for the "mg" preconditioner, "cycle" is one
// application of it (one V-cycle by default). Medians of --repeat runs. The operator is
// the assembled matrix, or with --matrix-free the stencil (native solvers only).
#include "kfvm_BenchTiming.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kfvm_solver_bench {

using kfvm::Real;

using kfvm_bench::median;
using kfvm_bench::seconds;

template <class Space>
void setDiffusivity(kfvm::CellField<Space>& D, const kfvm::Mesh<Space>& mesh) {
  kfvm::setFromCellCentres(
      D, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(1) + Real(3) * x * y + z; });
}

struct Options {
  std::vector<int> sizes = {32, 64};
  std::vector<std::string> solvers;
  int repeat = 5;
  std::string problem = "step";
  bool matrixFree = false;
  std::vector<std::string> parameters;  // key=value, for every entry
};

/// Median seconds of one application of preconditioner (with its parameters) to b.
template <class Space>
double cycleSeconds(const kfvm::LinearOperator<Space>& op,
                    const kfvm::GridDiscretization<Space>& discretization,
                    const std::string& preconditioner, const kfvm::Parameters& parameters,
                    const kfvm::Vector<Space>& b, int repeat) {
  auto M = kfvm::makePreconditioner<Space>(preconditioner, parameters);
  M->setDiscretization(discretization);
  M->setup(op);
  kfvm::Vector<Space> z("kfvm::SolverBench::z", op.size());
  M->apply(b, z);  // warm
  std::vector<double> times;
  for (int r = 0; r < std::max(repeat, 5); ++r) {
    const auto start = std::chrono::steady_clock::now();
    M->apply(b, z);
    times.push_back(seconds(start));
  }
  return median(times);
}

template <class Space>
int run(const Options& options) {
  using namespace kfvm;
  std::printf("kfvm-solver-bench: backend %s, Kokkos %s, problem %s, %s, median of %d\n",
              Space::name(), Compat::kokkosVersion().c_str(), options.problem.c_str(),
              options.matrixFree ? "matrix-free" : "assembled matrix", options.repeat);
  std::printf("%-6s %-32s %12s %10s %10s %6s %10s  %s\n", "n", "solver + preconditioner",
              "first setup", "setup", "solve", "iters", "cycle", "status");
  const bool poisson = options.problem == "poisson";
  for (int n : options.sizes) {
    Mesh<Space> mesh(CartesianGrid::uniform3D(n, n, n, 1, 1, 1));
    CellField<Space> D(mesh, "D"), old(mesh, "old", 1.0);
    setDiffusivity(D, mesh);
    Equation<Space> equation(mesh);
    if (poisson) {
      equation.diffusion(1.0).source(1.0);
      for (const Patch patch : {Patch::Left, Patch::Right, Patch::Bottom, Patch::Top,
                                Patch::Back, Patch::Front})
        equation.boundary(patch, BoundaryCondition::dirichlet(0.0));
    } else {
      equation.transient().diffusion(D);
      equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
          .boundary(Patch::Right, BoundaryCondition::dirichlet(0.0));
    }
    Assembler<Space> assembler(equation);
    assembler.setFillsMatrix(!options.matrixFree);
    Vector<Space> rhs("rhs", mesh.numCells()), x("x", mesh.numCells());
    const Real invDt = poisson ? Real(0) : Real(n) * Real(n);  // dt = h^2 for "step"
    const auto refill = [&] {
      assembler.assemble(invDt, 1, old, rhs);
    };
    refill();
    std::unique_ptr<LinearOperator<Space>> op;
    if (options.matrixFree) {
      op = std::make_unique<MatrixFreeOperator<Space>>(assembler);
    } else {
      op = std::make_unique<MatrixOperator<Space>>(assembler.matrix());
    }
    const GridDiscretization<Space> discretization{&assembler, nullptr, nullptr};  // mg
    for (const auto& entry : options.solvers) {
      const auto plus = entry.find('+');
      const std::string name = entry.substr(0, plus);
      const std::string preconditioner =
          plus == std::string::npos ? std::string() : entry.substr(plus + 1);
      Parameters parameters{{"tolerance", "1e-8"}, {"max_iterations", "5000"}};
      Parameters extra;
      for (const auto& pair : options.parameters) {
        const auto equals = pair.find('=');
        require(equals != std::string::npos, "--parameters: '", pair,
                "' is not key=value");
        extra.set(pair.substr(0, equals), pair.substr(equals + 1));
      }
      for (const auto& [key, value] : extra.entries()) parameters.set(key, value);
      if (!preconditioner.empty()) parameters.set("preconditioner", preconditioner);
      if (name == "amesos2:klu2" && n > 24) continue;  // 3D fill-in: small systems only
      auto solver = makeLinearSolver<Space>(name, parameters);
      solver->setDiscretization(discretization);
      if (options.matrixFree && solver->needsMatrix()) {
        std::printf("%-6d %-32s needs the assembled matrix: skipped\n", n, entry.c_str());
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      solver->setOperator(*op);
      const double firstSetup = seconds(start);
      std::vector<double> setups, solves;
      SolverReport report;
      for (int r = 0; r < options.repeat; ++r) {
        refill();  // as each step does
        start = std::chrono::steady_clock::now();
        solver->setOperator(*op);
        setups.push_back(seconds(start));
        Kokkos::deep_copy(x, Real(0));
        start = std::chrono::steady_clock::now();
        report = solver->solve(rhs, x);
        solves.push_back(seconds(start));
      }
      char cycle[32] = "-";
      if (preconditioner == "mg")
        std::snprintf(cycle, sizeof cycle, "%8.3fms",
                      1e3 * cycleSeconds(*op, discretization, preconditioner, extra, rhs,
                                         options.repeat));
      std::printf("%-6d %-32s %10.2fms %8.2fms %8.2fms %6d %10s  %s\n", n, entry.c_str(),
                  firstSetup * 1e3, median(setups) * 1e3, median(solves) * 1e3,
                  report.iterations, cycle,
                  report.converged ? "converged" : "NOT CONVERGED");
    }
  }
  return 0;
}

}  // namespace kfvm_solver_bench

int main(int argc, char* argv[]) {
  kfvm_solver_bench::Options options;
  std::string backend = Kokkos::DefaultExecutionSpace::name();
  for (const auto& name : kfvm::linearSolverNames()) {
    if (name == "belos:cg") {
      options.solvers.push_back("belos:cg+muelu");
      options.solvers.push_back("belos:cg+ifpack2:relaxation");
    } else if (name.rfind("belos:", 0) == 0) {
      options.solvers.push_back(name + "+ifpack2:ilut");
    } else if (name == "amesos2:klu2" || name == "lu") {
      options.solvers.push_back(name);
    } else if (name == "direct") {
      continue;  // another name of "lu"
    } else if (name == "richardson") {
      options.solvers.push_back(name + "+mg");  // standalone multigrid
    } else {
      options.solvers.push_back(name + "+jacobi");
      if (name == "cg") options.solvers.push_back(name + "+mg");
    }
  }
  CLI::App app{"kfvm-solver-bench: setup and solve times of native and Trilinos solvers"};
  app.add_option("--sizes", options.sizes, "cells per side")->delimiter(',');
  app.add_option("--solvers", options.solvers, "name[+preconditioner] entries")
      ->delimiter(',');
  app.add_option("--repeat", options.repeat, "timed repetitions (median)")
      ->check(CLI::PositiveNumber);
  app.add_option("--problem", options.problem, "step or poisson")
      ->check(CLI::IsMember({"step", "poisson"}));
  app.add_option("--parameters", options.parameters,
                 "key=value solver and preconditioner parameters for every entry")
      ->delimiter(',');
  app.add_option("--backend", backend,
                 "execution space to run on (default: Kokkos' default one)");
  app.add_flag("--matrix-free", options.matrixFree,
               "the stencil instead of the assembled matrix (native solvers)");
  CLI11_PARSE(app, argc, argv);
  const auto backends = kfvm::enabledBackends();
  if (std::find(backends.begin(), backends.end(), backend) == backends.end()) {
    std::string known;
    for (const auto& name : backends) known += " " + name;
    std::fprintf(stderr, "kfvm-solver-bench: unknown backend '%s'; this build has:%s\n",
                 backend.c_str(), known.c_str());
    return 1;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
#define KFVM_SOLVER_BENCH_RUN(Space) \
  if (backend == Space::name()) return kfvm_solver_bench::run<Space>(options);
    KFVM_FOR_EACH_BACKEND(KFVM_SOLVER_BENCH_RUN)
#undef KFVM_SOLVER_BENCH_RUN
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kfvm-solver-bench: %s\n", error.what());
    return 1;
  }
  return 1;
}
