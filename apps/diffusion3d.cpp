// kfvm-diffusion3d: transient 3D diffusion on the unit cube, checked against its exact
// solution.
//
//   d(phi)/dt = D lap(phi),  phi = 0 on all six faces,  phi(t=0) = sin(pi x) sin(pi y)
//   sin(pi z) exact:    phi = exp(-3 pi^2 D t) sin(pi x) sin(pi y) sin(pi z)
//
// Sample runs (64^3 cells and 10 backward-Euler steps by default):
// clang-format off
//   kfvm-diffusion3d
//   kfvm-diffusion3d --n 128 --steps 20 --dt 5e-4 --scheme cn --solver cg --tol 1e-10
//   kfvm-diffusion3d --solver gmres --preconditioner none --max-iterations 500
// clang-format on
//
// Prints a progress line per step and the final figures: wall time, solver iterations,
// last residual, L2 norm of the field and its error against the exact solution. Exits
// non-zero if a solve does not converge or an input is invalid.
#include <kfvm_Field.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace kfvm_diffusion3d {

struct Options {
  int n = 64;
  int steps = 10;
  double dt = 1e-3;
  double diffusivity = 1.0;
  std::string solver = "cg";
  std::string preconditioner = "jacobi";
  std::string scheme = "be";
  double tolerance = 1e-8;
  int maxIterations = 1000;
  int every = 1;
};

int run(const Options& options) {
  using ExecSpace = Kokkos::DefaultExecutionSpace;
  using namespace kfvm;
  const double pi = 3.14159265358979323846;
  std::printf(
      "kfvm-diffusion3d: %d^3 cells, %d steps of dt = %g, D = %g, scheme %s, "
      "solver %s + %s, tol %g, backend %s\n",
      options.n, options.steps, options.dt, options.diffusivity, options.scheme.c_str(),
      options.solver.c_str(), options.preconditioner.c_str(), options.tolerance,
      ExecSpace::name());
  const auto scheme = timeSchemeFromName(options.scheme);
  require(options.steps > 0, "--steps must be positive, got ", options.steps);
  require(options.every > 0, "--every must be positive, got ", options.every);
  Mesh<ExecSpace> mesh(
      CartesianGrid::uniform3D(options.n, options.n, options.n, 1, 1, 1));

  Equation<ExecSpace> equation(mesh);
  equation.transient().diffusion(Real(options.diffusivity));
  for (Patch patch : allPatches)
    equation.boundary(patch, BoundaryCondition::dirichlet(0));

  CellField<ExecSpace> phi(mesh, "phi");
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(Compat::sin(pi * x) * Compat::sin(pi * y) * Compat::sin(pi * z));
      });

  Parameters parameters;
  parameters.set("tolerance", options.tolerance)
      .set("max_iterations", options.maxIterations)
      .set("preconditioner", options.preconditioner);
  ImplicitStepper<ExecSpace> stepper(
      equation, makeLinearSolver<ExecSpace>(options.solver, parameters));

  const auto start = std::chrono::steady_clock::now();
  long totalIterations = 0;
  SolverReport report;
  double time = 0;
  for (int step = 1; step <= options.steps; ++step) {
    report = stepper.step(phi, Real(options.dt), scheme);
    time += options.dt;
    totalIterations += report.iterations;
    if (step % options.every == 0 || step == options.steps || !report.converged) {
      std::printf("step %4d  t = %-10.4g iterations %4d  residual %.3e  %s\n", step, time,
                  report.iterations, report.finalResidual,
                  report.converged ? "converged" : "NOT CONVERGED");
    }
    if (!report.converged) {
      std::fprintf(stderr, "kfvm error: kfvm-diffusion3d: step %d failed: %s\n", step,
                   report.reason.c_str());
      return 2;
    }
  }
  Kokkos::fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Norm of the field and its error against the exact solution.
  auto values = phi.values();
  auto centres = mesh.cellCentres();
  auto volumes = mesh.cellVolumes();
  const double decay = std::exp(-3 * pi * pi * options.diffusivity * time);
  double sumSquares = 0, sumErrors = 0, maxError = 0;
  Kokkos::parallel_reduce(
      "kfvm::diffusion3d::norm", indexRange(ExecSpace(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& squares) {
        squares += double(values(c)) * values(c) * volumes(c);
      },
      sumSquares);
  Kokkos::parallel_reduce(
      "kfvm::diffusion3d::error", indexRange(ExecSpace(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& errors) {
        const double exact = decay * Compat::sin(pi * centres(c, 0)) *
                             Compat::sin(pi * centres(c, 1)) *
                             Compat::sin(pi * centres(c, 2));
        const double error = values(c) - exact;
        errors += error * error * volumes(c);
      },
      sumErrors);
  Kokkos::parallel_reduce(
      "kfvm::diffusion3d::maxError", indexRange(ExecSpace(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& worst) {
        const double exact = decay * Compat::sin(pi * centres(c, 0)) *
                             Compat::sin(pi * centres(c, 1)) *
                             Compat::sin(pi * centres(c, 2));
        const double error = Compat::abs(values(c) - exact);
        if (error > worst) worst = error;
      },
      Kokkos::Max<double>(maxError));

  const double norm = std::sqrt(sumSquares);
  std::printf("\nfinal time        %g\n", time);
  std::printf("wall time         %.3f s (%.3f s per step)\n", seconds,
              seconds / options.steps);
  std::printf("solver iterations %ld total, %.1f per step\n", totalIterations,
              double(totalIterations) / options.steps);
  std::printf("last residual     %.3e (%s)\n", report.finalResidual,
              report.reason.c_str());
  std::printf("L2 norm of phi    %.6e (exact %.6e)\n", norm,
              decay * 0.125 * std::sqrt(8.0));
  std::printf("error vs exact    L2 %.3e, max %.3e, relative L2 %.3e\n",
              std::sqrt(sumErrors), maxError, std::sqrt(sumErrors) / (decay * 0.5));
  return 0;
}

}  // namespace kfvm_diffusion3d

int main(int argc, char* argv[]) {
  kfvm_diffusion3d::Options options;
  CLI::App app{
      "kfvm-diffusion3d: transient 3D diffusion on the unit cube, with its exact "
      "solution as a check"};
  app.add_option("-n,--n", options.n, "cells per side")->check(CLI::PositiveNumber);
  app.add_option("-s,--steps", options.steps, "time steps")->check(CLI::PositiveNumber);
  app.add_option("--dt", options.dt, "time step")->check(CLI::PositiveNumber);
  app.add_option("-D,--diffusivity", options.diffusivity, "diffusion coefficient");
  app.add_option("--solver", options.solver,
                 "linear solver: cg, fcg, bicgstab, gmres, fgmres");
  app.add_option("--preconditioner", options.preconditioner, "jacobi or none");
  app.add_option("--scheme", options.scheme,
                 "be (backward Euler) or cn (Crank-Nicolson)");
  app.add_option("--tol", options.tolerance, "relative residual tolerance");
  app.add_option("--max-iterations", options.maxIterations, "solver iteration limit");
  app.add_option("--every", options.every, "print progress every N steps");
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("kfvm error: ") + error.what() +
           "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 64;  // --help, or a usage error (README)
  }

  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return kfvm_diffusion3d::run(options);
  } catch (const std::exception& error) {
    const auto* own = dynamic_cast<const kfvm::Error*>(&error);
    std::fprintf(stderr, "kfvm error: kfvm-diffusion3d: %s\n",
                 own ? own->message().c_str() : error.what());
    return 1;
  }
}
