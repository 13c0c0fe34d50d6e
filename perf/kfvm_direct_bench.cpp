// kfvm-direct-bench: the direct solver ("lu") by package against ILU(0)-GMRES, on the
// systems FiPy's phase-field and diffusion scripts solve: what decides the direct
// solver's default package (perf/RESULTS.md) and where it is the default.
//
//   kfvm-direct-bench                                   # every case, KLU and UMFPACK
//   kfvm-direct-bench --cases cahn-hilliard2d-200,diffusion3d-32 --repeat 5
//   kfvm-direct-bench --json perf/results/direct.json
//
// Cases (dx = 1; one backward-Euler step, dt given; from 0.5 plus noise for
// Cahn-Hilliard): diffusion2d-N (5-point, Dirichlet on the left), cahn-hilliard2d-N
// (FiPy's fourth-order form, periodic, dt = 1), cahn-hilliard2d-bounded-N (zero flux),
// coupled2d-N (FiPy's coupled form of (phi, mu), dt = 1), diffusion3d-N (7-point).
// "first" is the first solve (analysis, factorization, solve); "step" a later one after
// the values were refilled (a factorization and a solve: what a sweep pays). Medians of
// --repeat runs. The device backend copies the matrix values to the host each step.
#include "kfvm_BenchTiming.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_CoupledSystem.hpp>
#include <kfvm_DirectSolver.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_LinearSolver.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef KFVM_GIT_REVISION
#define KFVM_GIT_REVISION "unknown"
#endif

namespace kfvm_direct_bench {

using kfvm::Real;
using Space = Kokkos::DefaultExecutionSpace;

using kfvm_bench::median;
using kfvm_bench::seconds;

/// An assembled system of a case: the matrix (refilled by refill()) and b.
struct System {
  std::string name;
  kfvm::Ordinal cells = 0;
  std::unique_ptr<kfvm::Mesh<Space>> mesh;
  std::unique_ptr<kfvm::Equation<Space>> equation;
  std::unique_ptr<kfvm::Assembler<Space>> assembler;
  std::unique_ptr<kfvm::CoupledSystem<Space>> coupled;
  std::unique_ptr<kfvm::CellField<Space>> phi;
  kfvm::Vector<Space> previous, rhs;
  double invDt = 1;

  const kfvm::CrsMatrix<Space>& matrix() const {
    return coupled ? coupled->matrix() : assembler->matrix();
  }
  void refill() {
    if (coupled)
      coupled->assemble(Real(invDt), previous, previous, rhs);
    else
      assembler->assemble(Real(invDt), Real(1), *phi, *phi, rhs);
  }
};

std::vector<double> noisy(std::size_t n, double mean, double amplitude) {
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-amplitude, amplitude);
  std::vector<double> values(n);
  for (auto& v : values) v = mean + noise(random);
  return values;
}

System makeSystem(const std::string& name) {
  System s;
  s.name = name;
  const auto dash = name.rfind('-');
  kfvm::require(dash != std::string::npos, "case '", name, "' lacks its size (name-N)");
  const int n = std::stoi(name.substr(dash + 1));
  const std::string kind = name.substr(0, dash);
  const bool threeD = kind == "diffusion3d";
  const bool periodic = kind == "cahn-hilliard2d" || kind == "coupled2d";
  const auto grid = threeD ? kfvm::CartesianGrid::uniform3D(n, n, n, n, n, n)
                           : kfvm::CartesianGrid::uniform2D(n, n, n, n);
  s.mesh = std::make_unique<kfvm::Mesh<Space>>(
      grid,
      kfvm::GridGeometry(kfvm::Coordinates::Cartesian, {periodic, periodic, false}));
  s.cells = s.mesh->numCells();
  s.phi = std::make_unique<kfvm::CellField<Space>>(*s.mesh, "kfvm::DirectBench::phi");
  if (kind == "coupled2d") {
    s.coupled = std::make_unique<kfvm::CoupledSystem<Space>>(*s.mesh, 2);
    s.coupled->transient(0, 0)
        .diffusion(0, 1, 1.0)
        .diffusion(1, 0, 1.0)
        .implicitSource(1, 1, 1.0)
        .source(1, 0, kfvm::Polynomial{0, 1, 0, -1});
    std::vector<kfvm::CellField<Space>> fields{
        kfvm::CellField<Space>(*s.mesh, "kfvm::DirectBench::phi"),
        kfvm::CellField<Space>(*s.mesh, "kfvm::DirectBench::mu")};
    fields[0].fromHost(noisy(std::size_t(s.cells), 0.0, 0.05));
    s.previous =
        kfvm::Vector<Space>("kfvm::DirectBench::previous", 2 * std::size_t(s.cells));
    s.rhs = kfvm::Vector<Space>("kfvm::DirectBench::rhs", 2 * std::size_t(s.cells));
    s.coupled->pack(fields, s.previous);
  } else {
    s.equation = std::make_unique<kfvm::Equation<Space>>(*s.mesh);
    if (kind == "diffusion2d" || kind == "diffusion3d") {
      s.equation->transient().diffusion(Real(1)).boundary(
          "left", kfvm::BoundaryCondition::dirichlet(1.0));
      s.invDt = 1.0;
    } else if (kind == "cahn-hilliard2d" || kind == "cahn-hilliard2d-bounded") {
      s.equation->transient().higherOrderDiffusion(1.0, 1.0,
                                                   kfvm::Polynomial{0, 1, -3, 2});
      s.phi->fromHost(noisy(std::size_t(s.cells), 0.5, 0.05));
    } else {
      kfvm::fail("unknown case '", name,
                 "' (known: diffusion2d-N, cahn-hilliard2d-N, cahn-hilliard2d-bounded-N, "
                 "coupled2d-N, diffusion3d-N)");
    }
    s.assembler = std::make_unique<kfvm::Assembler<Space>>(*s.equation);
    s.rhs = kfvm::Vector<Space>("kfvm::DirectBench::rhs", std::size_t(s.cells));
  }
  s.refill();
  return s;
}

struct Row {
  std::string system, solver;
  long long unknowns = 0;
  double first = 0, step = 0, fill = 0;
  int iterations = 0;
  bool converged = false;
  double residual = 0;
};

Row measure(System& s, const std::string& solverName, const kfvm::Parameters& parameters,
            int repeat) {
  Row row;
  row.system = s.name;
  row.unknowns = s.matrix().numRows();
  auto solver = kfvm::makeLinearSolver<Space>(solverName, parameters);
  kfvm::Vector<Space> x("kfvm::DirectBench::x", std::size_t(row.unknowns));
  auto start = std::chrono::steady_clock::now();
  solver->setMatrix(s.matrix());
  auto report = solver->solve(s.rhs, x);
  row.first = seconds(start);
  std::vector<double> steps;
  for (int r = 0; r < repeat; ++r) {
    s.refill();  // new values of the same structure
    Kokkos::deep_copy(x, Real(0));
    start = std::chrono::steady_clock::now();
    solver->setMatrix(s.matrix());
    report = solver->solve(s.rhs, x);
    steps.push_back(seconds(start));
  }
  row.step = median(steps);
  row.iterations = report.iterations;
  row.converged = report.converged;
  row.residual = report.finalResidual / std::max(report.initialResidual, 1e-300);
  row.solver = solverName == "lu" ? report.solver
                                  : solverName + "+" + solver->preconditionerName();
  if (const auto* direct = dynamic_cast<const kfvm::DirectSolver<Space>*>(solver.get()))
    row.fill = direct->factorEntries() / double(s.matrix().numEntries());
  return row;
}

int run(int argc, char* argv[]) {
  CLI::App app{"kfvm-direct-bench: the direct solver's packages against ILU(0)-GMRES"};
  std::vector<std::string> cases = {"diffusion2d-100",     "diffusion2d-200",
                                    "diffusion2d-400",     "cahn-hilliard2d-100",
                                    "cahn-hilliard2d-200", "cahn-hilliard2d-bounded-200",
                                    "coupled2d-100",       "coupled2d-200",
                                    "diffusion3d-20",      "diffusion3d-32"};
  int repeat = 3;
  std::string json;
  bool noKrylov = false;
  app.add_option("--cases", cases, "cases (name-N)")->delimiter(',');
  app.add_option("--repeat", repeat, "timed steps per case")->check(CLI::Range(1, 1000));
  app.add_option("--json", json, "write the rows here (JSON)");
  app.add_flag("--no-krylov", noKrylov, "leave out the ILU(0)-GMRES reference");
  CLI11_PARSE(app, argc, argv);
  std::vector<Row> rows;
  std::printf("%-28s %9s %-20s %10s %10s %7s %6s %10s\n", "system", "unknowns", "solver",
              "first s", "step s", "fill", "iters", "residual");
  for (const auto& name : cases) {
    auto system = makeSystem(name);
    std::vector<std::pair<std::string, kfvm::Parameters>> solvers;
    for (const auto& package : kfvm::Details::sparseLUPackages())
      solvers.push_back({"lu", {{"package", package}, {"tolerance", "1e-12"}}});
    if (!noKrylov)
      solvers.push_back({"gmres",
                         {{"preconditioner", "ilu0"},
                          {"restart", "50"},
                          {"tolerance", "1e-10"},
                          {"max_iterations", "2000"}}});
    for (const auto& [solverName, parameters] : solvers) {
      const Row row = measure(system, solverName, parameters, repeat);
      std::printf("%-28s %9lld %-20s %10.4f %10.4f %7.1f %6d %10.2e%s\n",
                  row.system.c_str(), row.unknowns, row.solver.c_str(), row.first,
                  row.step, row.fill, row.iterations, row.residual,
                  row.converged ? "" : "  NOT CONVERGED");
      std::fflush(stdout);
      rows.push_back(row);
    }
  }
  if (!json.empty()) {
    std::ostringstream out;
    out << "{\"benchmark\": \"kfvm-direct-bench\", \"revision\": \"" << KFVM_GIT_REVISION
        << "\", \"backend\": \"" << Space::name() << "\", \"kokkos\": " << KOKKOS_VERSION
        << ", \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << (i ? ",\n  " : "\n  ") << "{\"system\": \"" << r.system
          << "\", \"solver\": \"" << r.solver << "\", \"unknowns\": " << r.unknowns
          << ", \"first_s\": " << r.first << ", \"step_s\": " << r.step
          << ", \"fill\": " << r.fill << ", \"iterations\": " << r.iterations
          << ", \"converged\": " << (r.converged ? "true" : "false")
          << ", \"relative_residual\": " << r.residual << "}";
    }
    out << "\n]}\n";
    std::ofstream file(json);
    file << out.str();
    file.close();
    kfvm::require(bool(file), "cannot write '", json, "'");
  }
  return 0;
}

}  // namespace kfvm_direct_bench

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return kfvm_direct_bench::run(argc, argv);
  } catch (const kfvm::Error& error) {
    std::fprintf(stderr, "kfvm-direct-bench: %s\n", error.what());
    return 1;
  }
}
