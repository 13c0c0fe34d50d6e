// kfvm-mpi-bench: one backward-Euler diffusion step across MPI ranks (DistributedSystem,
// Jacobi-CG to rtol 1e-8), for strong and weak scaling. Run it under mpirun:
//
//   mpirun -np 2 kfvm-mpi-bench --cells 128,128,128 --steps 5
//   mpirun -np 2 kfvm-mpi-bench --solver belos:cg --preconditioner muelu  (Trilinos)
//   kfvm-mpi-bench --plan 2,4,8 --cells 512,512,512   (no run: the exchange's sizes)
//   kfvm-mpi-bench --plan 2,4,8 --cells 512,512,512 --measured runs.jsonl  (and costs)
//
// Prints, on rank 0: ranks, process grid, cells, the median step time, solver
// iterations, and kfvm's halo-exchange time per step (fenced: packing, messages,
// unpacking), apart from the rest; --json appends the same as one JSON object per line
// (every write checked: a file that cannot be written is an error naming it, found
// before the run). A preconditioner the native solvers do not have is an error.
// A Trilinos solver makes its own exchanges (Tpetra imports), inside the step time.
#include "kfvm_exchange_plan.hpp"

#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_Config.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>
#ifdef KFVM_HAVE_TRILINOS
#include <kfvm_TrilinosSolver.hpp>
#endif

#include <mpi.h>
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <vector>

#ifndef KFVM_GIT_REVISION
#define KFVM_GIT_REVISION "unknown"
#endif

namespace {

using Space = Kokkos::DefaultExecutionSpace;

struct Run {
  double stepSeconds = 0, haloSeconds = 0;
  int iterations = 0;
  long long exchanges = 0;  // halo exchanges in the median step
  double faceBytes = 0;     // bytes one exchange sends, the largest over the ranks
  int messages = 0;         // and the messages of the rank that sends them
  bool direct = true;       // GPU-aware MPI (or host memory): no host staging
};

/// "cg" or "bicgstab" (kfvm's own), or a Trilinos solver name with a preconditioner.
struct SolverChoice {
  std::string name = "cg", preconditioner;
  bool matrixFree = false;  // native solvers: products by the stencil
};

/// The native solvers are Jacobi-preconditioned, and know no other preconditioner.
void checkPreconditioner(SolverChoice& solver) {
  if (solver.name != "cg" && solver.name != "bicgstab") return;
  kfvm::require(solver.preconditioner.empty() || solver.preconditioner == "jacobi",
                "unknown preconditioner '", solver.preconditioner,
                "' for the native solver '", solver.name,
                "': known: jacobi (the default; others are Trilinos', with a Trilinos "
                "solver such as belos:cg)");
  solver.preconditioner
      .clear();  // runs of "cg" with or without "--preconditioner jacobi"
}

/// --json's file with line added, replaced whole (kfvm::writeFileAtomically: every
/// write checked, nothing changed when one fails). An empty line: a check, before the
/// run, that the file can be written.
void appendRun(const std::string& path, const std::string& line) {
  std::error_code error;
  const bool there = std::filesystem::exists(path, error);
  kfvm::writeFileAtomically(path, (there ? kfvm::readFile(path) : std::string()) + line);
}

Run benchmark(const kfvm::CartesianGrid& grid, const kfvm::Decomposition& decomposition,
              int steps, const SolverChoice& solver) {
  using namespace kfvm;
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  Equation<Space> equation(system.localMesh());
  equation.transient(1.0).diffusion(1.0);
  for (Patch patch : {Patch::Left, Patch::Right})
    if (system.isPhysical(patch))
      equation.boundary(patch,
                        BoundaryCondition::dirichlet(patch == Patch::Left ? 1 : 0));
  system.setEquation(equation);
  if (solver.name == "cg" || solver.name == "bicgstab") {
    system.setSolver(solver.name, 1e-8, 100000);
    system.setMatrixFree(solver.matrixFree);
  } else {
#ifdef KFVM_HAVE_TRILINOS
    kfvm::Parameters parameters{{"tolerance", "1e-8"}, {"max_iterations", "100000"}};
    if (!solver.preconditioner.empty())
      parameters.set("preconditioner", solver.preconditioner);
    system.setSolver(kfvm::makeTrilinosSolver<Space>(
        solver.name, parameters, MPI_COMM_WORLD, system.ownedGlobalIds(),
        system.columnGlobalIds()));
#else
    kfvm::fail("solver '", solver.name, "': this kfvm is built without Trilinos");
#endif
  }
  CellField<Space> phi(system.localMesh(), "phi");
  const double h = 1.0 / grid.cells(0);
  std::vector<double> times, halo;
  std::vector<long long> exchanges;
  Run run;
  for (int step = 0; step <= steps; ++step) {  // step 0 warms up
    const double haloBefore = system.gridBlocks().halo().seconds();
    const long long callsBefore = system.gridBlocks().halo().calls();
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    const auto report = system.step(phi, kfvm::Real(h * h * 10));
    Kokkos::fence();
    MPI_Barrier(MPI_COMM_WORLD);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report.converged) {
      std::fprintf(stderr, "kfvm-mpi-bench: step %d did not converge: %s\n", step,
                   report.reason.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (step == 0) continue;
    times.push_back(seconds);
    halo.push_back(system.gridBlocks().halo().seconds() - haloBefore);
    exchanges.push_back(system.gridBlocks().halo().calls() - callsBefore);
    run.iterations = report.iterations;
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  std::nth_element(halo.begin(), halo.begin() + halo.size() / 2, halo.end());
  std::nth_element(exchanges.begin(), exchanges.begin() + exchanges.size() / 2,
                   exchanges.end());
  run.stepSeconds = times[times.size() / 2];
  run.haloSeconds = halo[halo.size() / 2];
  run.exchanges = exchanges[exchanges.size() / 2];
  run.direct = system.gridBlocks().halo().direct();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct {
    double bytes;
    int rank;
  } mine{double(system.gridBlocks().halo().faceBytes()), rank}, busiest{};
  MPI_Allreduce(&mine, &busiest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  run.faceBytes = busiest.bytes;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      run.messages += decomposition.neighbour(rank, a, side) >= 0;
  MPI_Bcast(&run.messages, 1, MPI_INT, busiest.rank, MPI_COMM_WORLD);
  return run;
}

/// For each rank count, the balanced split of cells and what one face exchange sends
/// from its busiest rank (messages and bytes); with --measured, what that costs.
void printPlan(const std::vector<int>& cells, const std::vector<int>& rankCounts,
               const std::string& measured, const std::string& solver) {
  const auto rows = kfvm_bench::planRows({cells[0], cells[1], cells[2]}, rankCounts);
  std::printf("ranks  process grid  largest block     messages  bytes per exchange\n");
  for (const auto& row : rows) {
    const auto& g = row.processGrid;
    const auto& b = row.largestBlock;
    std::printf("%5d  %3d x %2d x %2d  %4d x %4d x %4d  %8d  %18lld\n", row.ranks, g[0],
                g[1], g[2], b[0], b[1], b[2], row.messages, row.bytes);
  }
  if (measured.empty()) return;
  const auto model = kfvm_bench::fitExchangeModel(measured, solver);
  printEstimate(rows, model, (long long)cells[0] * cells[1] * cells[2]);
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  std::vector<int> cells = {64, 64, 64};
  std::vector<int> processGrid;
  int steps = 5;
  std::string json;
  SolverChoice solver;
  std::vector<int> plan;
  std::string measured;
  CLI::App app{"kfvm-mpi-bench: one implicit diffusion step across MPI ranks"};
  app.add_option("--cells", cells, "global cells per axis (3)")
      ->expected(3)
      ->delimiter(',');
  app.add_option("--grid", processGrid, "process grid (3; default: balanced)")
      ->expected(3)
      ->delimiter(',');
  app.add_option("--steps", steps, "timed steps (median reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--solver", solver.name,
                 "cg, bicgstab, or a Trilinos solver (belos:cg, belos:gmres...)");
  app.add_option("--preconditioner", solver.preconditioner,
                 "the Trilinos solver's preconditioner (muelu, ifpack2:relaxation...)");
  app.add_flag("--matrix-free", solver.matrixFree,
               "native solvers: matrix-free products (interior, then rim)");
  app.add_option("--plan", plan,
                 "print the split and exchange sizes at these rank counts, run nothing")
      ->delimiter(',');
  app.add_option("--measured", measured,
                 "with --plan: kfvm-mpi-bench --json lines of this solver (1 rank, and "
                 "several ranks at two sizes) to estimate each plan row's costs");
  app.add_option("--json", json,
                 "append the result to this file (one JSON object a line)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    MPI_Finalize();
    return status;
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (!plan.empty()) {
    int status = 0;
    try {
      if (rank == 0)
        printPlan(cells, plan, measured,
                  solver.name + (solver.matrixFree ? " matrix-free" : ""));
    } catch (const std::exception& error) {
      std::fflush(stdout);
      std::fprintf(stderr, "kfvm-mpi-bench: %s\n", error.what());
      status = 1;
    }
    MPI_Finalize();
    return status;
  }
  int status = 0;
  Kokkos::initialize(argc, argv);
  try {
    // Refused on every rank before the run: a preconditioner the native solvers do not
    // have, a --json file that cannot be written.
    kfvm::Details::agreeOnFailure(MPI_COMM_WORLD, kfvm::Details::failureOf([&] {
                                    checkPreconditioner(solver);
                                    if (rank == 0 && !json.empty()) appendRun(json, "");
                                  }),
                                  "before the run");
    const auto grid = kfvm::CartesianGrid::uniform3D(cells[0], cells[1], cells[2], 1.0,
                                                     double(cells[1]) / cells[0],
                                                     double(cells[2]) / cells[0]);
    const std::array<int, 3> counts{cells[0], cells[1], cells[2]};
    const auto decomposition =
        processGrid.empty()
            ? kfvm::Decomposition::balanced(3, counts, ranks)
            : kfvm::Decomposition::withProcessGrid(
                  3, counts, ranks, {processGrid[0], processGrid[1], processGrid[2]});
    const Run run = benchmark(grid, decomposition, steps, solver);
    const auto p = decomposition.processGrid();
    if (rank == 0) {
      std::printf(
          "kfvm-mpi-bench %s, %s, %s%s%s: %d ranks (%d x %d x %d), %d x %d x %d cells: "
          "step %.2f ms, %d iterations, halo exchange %.2f ms (%.0f%%): %lld exchanges "
          "of %.3g "
          "MB a rank, %s\n",
          KFVM_GIT_REVISION, Space::name(), solver.name.c_str(),
          solver.matrixFree               ? " (matrix-free)"
          : solver.preconditioner.empty() ? ""
                                          : "+",
          solver.preconditioner.c_str(), ranks, p[0], p[1], p[2], cells[0], cells[1],
          cells[2], run.stepSeconds * 1e3, run.iterations, run.haloSeconds * 1e3,
          100 * run.haloSeconds / run.stepSeconds, run.exchanges, run.faceBytes / 1e6,
          run.direct ? "direct" : "staged through host memory");
      if (!json.empty()) {
        std::ostringstream line;
        line << "{\"revision\": \"" << KFVM_GIT_REVISION << "\", \"backend\": \""
             << Space::name() << "\", \"solver\": \"" << solver.name
             << (solver.preconditioner.empty() ? "" : "+" + solver.preconditioner)
             << (solver.matrixFree ? " matrix-free" : "") << "\", \"ranks\": " << ranks
             << ", \"grid\": [" << p[0] << ", " << p[1] << ", " << p[2]
             << "], \"cells\": [" << cells[0] << ", " << cells[1] << ", " << cells[2]
             << "], \"step_seconds\": " << run.stepSeconds
             << ", \"halo_seconds\": " << run.haloSeconds
             << ", \"iterations\": " << run.iterations
             << ", \"exchanges\": " << run.exchanges
             << ", \"face_bytes\": " << run.faceBytes
             << ", \"messages\": " << run.messages
             << ", \"direct\": " << (run.direct ? "true" : "false") << "}\n";
        appendRun(json, line.str());
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kfvm-mpi-bench: rank %d: %s\n", rank, error.what());
    status = 1;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
