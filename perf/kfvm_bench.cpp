// kfvm-bench: memory-bound kernels of kfvm timed against the copy bandwidth measured in
// the same run. Each timing is fenced, repeated, and reported as the median.
//
//   kfvm-bench                              # 64^3 and 128^3, 20 repeats
//   kfvm-bench --sizes 128,256,512 --repeat 30 --json results.json
//   kfvm-bench --backend OpenMP             # another backend of the same build
//   kfvm-bench --sizes 512 --kernels-only   # no CG solves (slow on a host at 512^3)
//   kfvm-bench --mesh tetrahedra --sizes 120 # 6 n^3 tetrahedra: the general-mesh path
//
// For each size: device copy (the ceiling), matrix-free 7-point apply with constant D
// (uniform weights: x, diagonal, y) and with variable D (face coefficient arrays too), in
// each loop that suits the backend, CRS SpMV (kfvm's and, when built with it, Kokkos
// Kernels' spmv on the same matrix), the generic face-gather operator, CRS value refill
// (assembly), dot, axpby, and a CG solve of one backward-Euler diffusion step (time per
// iteration and per step). Bandwidth is
// bytes that must move (each array read or written once) over the median time; efficiency
// is that over the copy bandwidth. With --mesh tetrahedra the unit cube is n^3 cubes
// each cut into 6 tetrahedra around its diagonal (a general mesh from a MeshTopology,
// cells in lattice order: cubes x fastest, a cube's 6 tetrahedra together), and the rows
// that need a Cartesian grid (the matrix-free ones) are left out.
#include <detail/kfvm_StreamingStores.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_MeshGenerators.hpp>
#include <kfvm_StencilOperator.hpp>
#include <kfvm_SystemInfo.hpp>

#ifdef KFVM_HAVE_KOKKOSKERNELS
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#ifndef KFVM_GIT_REVISION
#define KFVM_GIT_REVISION "unknown"
#endif

namespace kfvm_bench {

using kfvm::Ordinal;
using kfvm::Real;

struct Result {
  std::string kernel;
  int n;
  double seconds;
  double bytes;
  double bandwidth() const { return bytes / seconds; }
};

double medianSeconds(int repeat, const std::function<void()>& body) {
  body();  // warm-up
  Kokkos::fence();
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    Kokkos::fence();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

template <class Space>
void copyKernel(const kfvm::Vector<Space>& from, const kfvm::Vector<Space>& to) {
  kfvm::forEachIndex(
      "kfvm::bench::copy", Space(), Ordinal(from.extent(0)),
      KOKKOS_LAMBDA(Ordinal i) { to(i) = from(i); });
}

/// The copy with streaming stores (x86-64 hosts; a plain copy elsewhere), in blocks of
/// 4096 entries: how much of the gap between the copy loop and deep_copy is the read of
/// each destination line before it is written.
template <class Space>
void streamingCopyKernel(const kfvm::Vector<Space>& from, const kfvm::Vector<Space>& to) {
  const Ordinal n = Ordinal(from.extent(0)), block = 4096;
  kfvm::forEachIndex(
      "kfvm::bench::streamingCopy", Space(), (n + block - 1) / block,
      KOKKOS_LAMBDA(Ordinal b) {
        const Ordinal first = b * block;
        const Real* KOKKOS_RESTRICT xs = from.data() + first;
        const int count = int(n - first < block ? n - first : block);
        kfvm::Details::storeRange(to.data() + first, 0, count, true,
                                  [&](int begin, int end, Real* KOKKOS_RESTRICT out) {
                                    for (int i = begin; i < end; ++i)
                                      out[i - begin] = xs[i];
                                  });
      });
}

template <class Space>
void fillWavy(kfvm::CellField<Space>& phi, const kfvm::Mesh<Space>& mesh) {
  kfvm::setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return kfvm::Compat::sin(Real(3) * x) * kfvm::Compat::sin(Real(2) * y + z);
      });
}

template <class Space>
std::vector<Result> benchmarkSize(int n, int repeat, bool solves, bool tets) {
  using namespace kfvm;
  std::vector<Result> results;
  const double S = sizeof(Real);
  const auto start = std::chrono::steady_clock::now();
  Mesh<Space> mesh = tets ? Mesh<Space>(cutCubeMesh(n, CubeCut::Tetrahedra))
                          : Mesh<Space>(CartesianGrid::uniform3D(n, n, n, 1, 1, 1));
  if (tets)
    std::printf(
        "%lld tetrahedra, %lld faces: mesh built in %.2f s (host connectivity, "
        "device geometry)\n",
        (long long)mesh.numCells(), (long long)mesh.numFaces(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const double cells = mesh.numCells();
  Equation<Space> equation(mesh);
  equation.transient().diffusion(1.0);
  for (const auto& patch : mesh.patchNames())
    if (mesh.findPatch(patch) >= 0)
      equation.boundary(patch, BoundaryCondition::dirichlet(0));
  CellField<Space> phi(mesh, "phi");
  fillWavy<Space>(phi, mesh);
  Vector<Space> x = phi.values(), y("kfvm::bench::y", mesh.numCells()),
                rhs("kfvm::bench::rhs", mesh.numCells());
  Assembler<Space> assembler(equation);
  const Real invDt = Real(n) * Real(n);  // dt = h^2
  assembler.assemble(invDt, 1, phi, rhs);
  const auto& A = assembler.matrix();
  const double nnz = double(A.numEntries());
  const double faces = mesh.numFaces();

  auto time = [&](const std::string& name, double bytes,
                  const std::function<void()>& body) {
    results.push_back({name, n, medianSeconds(repeat, body), bytes});
  };
  time("copy (deep_copy)", 2 * cells * S, [&] { Kokkos::deep_copy(Space(), y, x); });
  time("copy (RangePolicy)", 2 * cells * S, [&] { copyKernel<Space>(x, y); });
  const bool onHost =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename Space::memory_space>::accessible;
  if (onHost && kfvm::Details::hostHasStreamingStores())
    time("copy (RangePolicy, streaming stores)", 2 * cells * S,
         [&] { streamingCopyKernel<Space>(x, y); });
  // Variable D = 1 + x + y z: the same operator shape with face coefficient arrays (its
  // assembler freed after these rows: at 512^3 every matrix is 11 GiB).
  if (mesh.isCartesian()) {
    CellField<Space> D(mesh, "kfvm::bench::D");
    setFromCellCentres(
        D, mesh, KOKKOS_LAMBDA(Real px, Real py, Real pz) { return 1 + px + py * pz; });
    Equation<Space> variable(mesh);
    variable.transient().diffusion(D);
    for (Patch patch : allPatches)
      variable.boundary(patch, BoundaryCondition::dirichlet(0));
    Assembler<Space> variableAssembler(variable);
    variableAssembler.assemble(invDt, 1, phi, rhs);
    const std::vector<std::pair<StencilLoop, std::string>> loops =
        onHost ? std::vector<
                     std::pair<StencilLoop, std::string>>{{StencilLoop::Rows, "rows"},
                                                          {StencilLoop::StreamingRows,
                                                           "rows, streaming stores"},
                                                          {StencilLoop::Cells, "cells"}}
               : std::vector<std::pair<StencilLoop, std::string>>{
                     {StencilLoop::Cells, "cells"},
                     {StencilLoop::Teams, "teams"},
                     {StencilLoop::Columns, "columns of 8"}};
    const DeviceScalar<Space> dot("kfvm::bench::dot");
    for (const auto& [loop, name] : loops) {
      StencilOperator<Space> constant(assembler, loop), varying(variableAssembler, loop);
      // Constant D: x and y once each, and the diagonal unless it is one number inside
      // the grid (uniformInteriorDiagonal(): constant transient coefficient, as here).
      // Variable D: x, the diagonal and y, and the face coefficients.
      time("matrix-free 7-point, constant D (" + name + ")",
           (constant.uniformInteriorDiagonal() ? 2 : 3) * cells * S,
           [&] { constant.apply(x, y); });
      time("matrix-free 7-point, variable D (" + name + ")", (3 * cells + faces) * S,
           [&] { varying.apply(x, y); });
      // With x . y in the same pass (CG's product and p.q; a reduction after the loops
      // that do not sum as they go).
      time("matrix-free 7-point with x.y, constant D (" + name + ")",
           (constant.uniformInteriorDiagonal() ? 2 : 3) * cells * S,
           [&] { constant.applyAndDot(x, y, dot); });
    }
  }
  const double spmvBytes =
      nnz * (S + sizeof(Ordinal)) + (cells + 1) * sizeof(Offset) + 2 * cells * S;
  time("CRS SpMV (kfvm)", spmvBytes, [&] { multiply(A, x, y); });
#ifdef KFVM_HAVE_KOKKOSKERNELS
  {  // the same arrays, viewed as a Kokkos Kernels matrix
    using Matrix =
        KokkosSparse::CrsMatrix<Real, Ordinal, typename Space::device_type, void, Offset>;
    const typename Matrix::staticcrsgraph_type graph(A.columns(), A.rowOffsets());
    const Matrix kk("kfvm::bench::kkMatrix", A.numColumns(), A.values(), graph);
    time("CRS SpMV (Kokkos Kernels)", spmvBytes,
         [&] { KokkosSparse::spmv("N", Real(1), kk, x, Real(0), y); });
  }
#endif
  // generic face path: x, y, coefficients, plus the connectivity it gathers through.
  const double connectivity = double(mesh.cellFaces().extent(0)) * sizeof(Ordinal) +
                              (cells + 1) * sizeof(Offset) + faces * 3 * sizeof(Ordinal);
  time("face-gather operator", (2 * cells + faces) * S + connectivity + faces * S,
       [&] { assembler.applySpatialOperator(x, y); });
  time("CRS refill (assembly)",
       (nnz + 3 * cells + 2 * faces) * S + connectivity +
           double(mesh.cellFaces().extent(0)) * sizeof(Offset),
       [&] { assembler.assemble(invDt, 1, phi, rhs); });
  Real sink = 0;
  time("dot", 2 * cells * S, [&] { sink += Blas::dot(x, y); });
  time("axpby", 3 * cells * S, [&] { Blas::axpby(Real(1e-9), x, Real(1), y); });
  if (sink == Real(12345.678)) std::printf(" ");  // keep the dots alive
  if (!solves) return results;

  // One backward-Euler step to rtol 1e-8 with Jacobi-CG, from the same initial field.
  // The stepper (its own assembler and matrix) is freed before the matrix-free one.
  CellField<Space> work(mesh, "work");
  int iterations = 0;
  double stepSeconds = 0;
  {
    ImplicitStepper<Space> stepper(
        equation, makeLinearSolver<Space>("cg", {{"tolerance", "1e-8"}}));
    stepSeconds = medianSeconds(std::max(3, repeat / 4), [&] {
      Kokkos::deep_copy(work.values(), phi.values());
      iterations = stepper.step(work, Real(1) / invDt).iterations;
    });
  }
  // Per fused CG iteration (solvers/krylov/kfvm_ConjugateGradient.cpp), the bytes it must
  // move: q = A p with p.q (the matrix, p, q); r -= alpha q with r.z and r.r (reads r,
  // q, 1/diag; writes r); x += alpha p, p = r / diag + beta p (reads r, 1/diag, p, x;
  // writes p, x): the matrix and 12 vectors. (13 vectors from 2026-12-01 to 2026-12-03,
  // with z stored and x updated in the second kernel; 20 before the fusion.)
  const double iterationBytes = nnz * (S + sizeof(Ordinal)) +
                                (cells + 1) * sizeof(Offset) + cells * S * (2 + 4 + 6);
  results.push_back({"CG iteration (Jacobi)", n, stepSeconds / std::max(iterations, 1),
                     iterationBytes});
  // The iteration alone: two solves of the step's matrix from x = 0 that cannot converge
  // (rtol 1e-300), stopped at 10 and at 30 iterations; their time difference over their
  // iteration difference leaves out the step's assembly, the solver's setup and start.
  const auto iterationAlone = [&](const std::string& name,
                                  const LinearOperator<Space>& op, double bytes) {
    std::vector<std::pair<double, int>> solves;
    for (const int limit : {10, 30}) {
      auto cg = makeLinearSolver<Space>(
          "cg", {{"tolerance", "1e-300"}, {"max_iterations", std::to_string(limit)}});
      cg->setOperator(op);
      int done = 0;
      const double seconds = medianSeconds(std::max(3, repeat / 2), [&] {
        Kokkos::deep_copy(y, Real(0));
        done = cg->solve(rhs, y).iterations;
      });
      solves.emplace_back(seconds, done);
    }
    const int extra = solves[1].second - solves[0].second;
    if (extra > 0)
      results.push_back({name, n, (solves[1].first - solves[0].first) / extra, bytes});
  };
  iterationAlone("CG iteration (Jacobi, 30 - 10 iterations)", MatrixOperator<Space>(A),
                 iterationBytes);
  results.push_back(
      {"backward-Euler step, rtol 1e-8 (" + std::to_string(iterations) + " it)", n,
       stepSeconds, iterationBytes * iterations});
  if (!mesh.isCartesian()) return results;
  // The same step solved matrix-free (MatrixFreeOperator: the stencil, constant D). Per
  // iteration: q = A p with p.q in one pass (reads p, and the diagonal unless it is
  // uniform inside the grid; writes q), then the update and the next direction as
  // above, where 1/diag is read at the grid's boundary cells only when the diagonal is
  // uniform inside: 10 vectors (12 or 13 otherwise), no matrix. The assembly refills the
  // face coefficients, diagonal and right-hand side, not the matrix (counted in the
  // time, not the bytes).
  {
    const MatrixFreeOperator<Space> stencil(assembler);
    const bool uniformDiagonal = stencil.stencil().uniformInteriorDiagonal();
    const double freeBytes = cells * S * (uniformDiagonal ? 10 : 13);
    iterationAlone("CG iteration matrix-free (Jacobi, 30 - 10 iterations)", stencil,
                   freeBytes);
    ImplicitStepper<Space> matrixFree(
        equation, makeLinearSolver<Space>("cg", {{"tolerance", "1e-8"}}));
    matrixFree.setMatrixFree(true);
    int freeIterations = 0;
    const double freeSeconds = medianSeconds(std::max(3, repeat / 4), [&] {
      Kokkos::deep_copy(work.values(), phi.values());
      freeIterations = matrixFree.step(work, Real(1) / invDt).iterations;
    });
    results.push_back({"backward-Euler step, matrix-free, rtol 1e-8 (" +
                           std::to_string(freeIterations) + " it)",
                       n, freeSeconds, freeBytes * freeIterations});
  }
  return results;
}

/// Runs every size on Space and prints (and writes, with json) the results.
template <class Space>
void run(const std::vector<int>& sizes, int repeat, bool solves, bool tets,
         const std::string& json) {
  std::string device = "host";
  for (const auto& memory : kfvm::systemInfo().memories)
    if (memory.backend == Space::name()) device = memory.where;
  std::ostringstream out;
  out << "{\n  \"device\": \"" << device << "\",\n  \"backend\": \"" << Space::name()
      << "\",\n  \"kokkos_version\": \"" << kfvm::Compat::kokkosVersion()
      << "\",\n  \"git_revision\": \"" << KFVM_GIT_REVISION << "\",\n  \"real\": \""
      << (sizeof(Real) == 8 ? "double" : "float")
      << "\",\n  \"concurrency\": " << Space().concurrency() << ",\n  \"results\": [";
  std::printf("kfvm-bench: %s, backend %s, Kokkos %s, revision %s, %s, median of %d\n",
              device.c_str(), Space::name(), kfvm::Compat::kokkosVersion().c_str(),
              KFVM_GIT_REVISION, sizeof(Real) == 8 ? "double" : "float", repeat);
  bool first = true;
  for (int n : sizes) {
    const auto results = benchmarkSize<Space>(n, repeat, solves, tets);
    const double copy = results.front().bandwidth();
    std::printf("\n%d^3 %s\n%-44s %12s %10s %8s\n", n,
                tets ? "cubes of 6 tetrahedra" : "cells", "kernel", "time [ms]", "GB/s",
                "of copy");
    for (const auto& r : results) {
      std::printf("%-44s %12.4f %10.1f %8.2f\n", r.kernel.c_str(), r.seconds * 1e3,
                  r.bandwidth() / 1e9, r.bandwidth() / copy);
      out << (first ? "\n" : ",\n") << "    {\"kernel\": \"" << r.kernel
          << "\", \"mesh\": \"" << (tets ? "tetrahedra" : "cartesian")
          << "\", \"n\": " << n << ", \"seconds\": " << r.seconds
          << ", \"bytes\": " << r.bytes << ", \"GBps\": " << r.bandwidth() / 1e9
          << ", \"of_copy\": " << r.bandwidth() / copy << "}";
      first = false;
    }
  }
  out << "\n  ]\n}\n";
  if (!json.empty()) std::ofstream(json) << out.str();
}

}  // namespace kfvm_bench

int main(int argc, char* argv[]) {
  std::vector<int> sizes = {64, 128};
  int repeat = 20;
  std::string json, backend = Kokkos::DefaultExecutionSpace::name();
  CLI::App app{"kfvm-bench: kfvm's memory-bound kernels against the copy bandwidth"};
  app.add_option("--sizes", sizes, "cells per side of the 3D grids")->delimiter(',');
  app.add_option("--repeat", repeat, "timed repetitions per kernel (median reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--backend", backend,
                 "execution space to run on (default: Kokkos' default one)");
  app.add_option("--json", json, "write the results to this JSON file");
  bool kernelsOnly = false;
  app.add_flag("--kernels-only", kernelsOnly,
               "skip the CG solves (the CG iteration and backward-Euler step rows)");
  std::string meshKind = "cartesian";
  app.add_option(
         "--mesh", meshKind,
         "cartesian (n^3 cells) or tetrahedra (6 n^3 cells, the general-mesh path)")
      ->check(CLI::IsMember({"cartesian", "tetrahedra"}));
  CLI11_PARSE(app, argc, argv);
  const bool tets = meshKind == "tetrahedra";
  const auto backends = kfvm::enabledBackends();
  if (std::find(backends.begin(), backends.end(), backend) == backends.end()) {
    std::string known;
    for (const auto& name : backends) known += " " + name;
    std::fprintf(stderr, "kfvm-bench: unknown backend '%s'; this build has:%s\n",
                 backend.c_str(), known.c_str());
    return 1;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
#define KFVM_BENCH_RUN(Space)   \
  if (backend == Space::name()) \
    kfvm_bench::run<Space>(sizes, repeat, !kernelsOnly, tets, json);
  KFVM_FOR_EACH_BACKEND(KFVM_BENCH_RUN)
#undef KFVM_BENCH_RUN
  return 0;
}
