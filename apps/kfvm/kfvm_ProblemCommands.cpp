#include "kfvm_ProblemCommands.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

namespace kfvm::app {

namespace {

using Space = Kokkos::DefaultExecutionSpace;

CartesianGrid unitGrid(int dimension, int n, double length) {
  require(dimension >= 1 && dimension <= 3, "--dim must be 1, 2 or 3, got ", dimension);
  require(n >= 2, "--n must be at least 2, got ", n);
  if (dimension == 1) return CartesianGrid::uniform1D(n, length);
  if (dimension == 2) return CartesianGrid::uniform2D(n, n, length, length);
  return CartesianGrid::uniform3D(n, n, n, length, length, length);
}

struct ConvectionOptions {
  int dimension = 2, n = 64;
  double peclet = 20;
  std::string scheme = "van-leer", solver = "gmres";
  double tolerance = 1e-10;
  int maxIterations = 2000, maxSweeps = 200;
};

/// 0 = div(grad phi) - div(u phi), u = (Pe, 0, 0), phi(0) = 0, phi(1) = 1, zero flux on
/// the other sides: phi = (exp(Pe x) - 1) / (exp(Pe) - 1) in every dimension.
int runConvection(const ConvectionOptions& o) {
  const auto scheme = convectionSchemeFromName(o.scheme);
  require(o.peclet > 0 && o.peclet < 700, "--peclet must be in (0, 700), got ", o.peclet);
  Mesh<Space> mesh(unitGrid(o.dimension, o.n, 1.0));
  std::printf(
      "kfvm convection: %dD, %d cells, Pe = %g, scheme %s, solver %s, backend %s\n",
      o.dimension, mesh.numCells(), o.peclet, o.scheme.c_str(), o.solver.c_str(),
      Space::name());
  Equation<Space> equation(mesh);
  equation.diffusion(1.0)
      .convection(Real(o.peclet), 0, 0, scheme)
      .boundary(Patch::Left, BoundaryCondition::dirichlet(0.0))
      .boundary(Patch::Right, BoundaryCondition::dirichlet(1.0));
  CellField<Space> phi(mesh, "phi");
  Parameters parameters;
  parameters.set("tolerance", o.tolerance).set("max_iterations", o.maxIterations);
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>(o.solver, parameters));
  stepper.setSweeps(o.maxSweeps, Real(o.tolerance), Real(0.8));
  const auto start = std::chrono::steady_clock::now();
  const auto report = stepper.solveSteady(phi);
  const double seconds = secondsSince(start);
  for (std::size_t s = 0; s < report.sweepResiduals.size(); ++s)
    std::printf("sweep %3zu  nonlinear residual %.3e\n", s + 1, report.sweepResiduals[s]);

  auto values = phi.values();
  auto centres = mesh.cellCentres();
  const double pe = o.peclet;
  double maxError = 0, minimum = 0, maximum = 0;
  Kokkos::parallel_reduce(
      "kfvm::app::convection::error", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& worst) {
        const double exact =
            (Compat::exp(pe * centres(c, 0)) - 1) / (Compat::exp(pe) - 1);
        const double error = Compat::abs(double(values(c)) - exact);
        if (error > worst) worst = error;
      },
      Kokkos::Max<double>(maxError));
  Kokkos::parallel_reduce(
      "kfvm::app::convection::range", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& low) {
        if (values(c) < low) low = values(c);
      },
      Kokkos::Min<double>(minimum));
  Kokkos::parallel_reduce(
      "kfvm::app::convection::rangeMax", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& high) {
        if (values(c) > high) high = values(c);
      },
      Kokkos::Max<double>(maximum));
  std::printf("\nsweeps            %d\n", report.sweeps);
  std::printf("solver iterations %d total\n", report.totalIterations);
  std::printf("last residual     %.3e (%s)\n", report.finalResidual,
              report.reason.c_str());
  std::printf("phi range         [%.6f, %.6f]\n", minimum, maximum);
  std::printf("max error         %.3e against the exact profile\n", maxError);
  std::printf("wall time         %.3f s\n", seconds);
  if (!report.converged) {
    std::fprintf(stderr, "kfvm convection: not converged: %s\n", report.reason.c_str());
    return 2;
  }
  return 0;
}

struct AllenCahnOptions {
  int dimension = 1, n = 200, steps = 100, every = 10;
  double length = 40, epsilon = 1, dt = 0.5, tolerance = 1e-10;
};

/// dphi/dt = eps^2 lap(phi) + phi - phi^3. 1D: a front at the centre of [0, L] with
/// phi = -1 / +1 at the ends, against tanh((x - L/2) / (sqrt(2) eps)). 2D: a disc of
/// radius L/4 in an L x L box (zero flux), against R^2 = R0^2 - 2 eps^2 t.
int runAllenCahn(const AllenCahnOptions& o) {
  require(o.dimension == 1 || o.dimension == 2, "--dim must be 1 or 2, got ",
          o.dimension);
  require(o.steps > 0 && o.every > 0, "--steps and --every must be positive");
  require(o.epsilon > 0 && o.length > 0, "--epsilon and --length must be positive");
  Mesh<Space> mesh(unitGrid(o.dimension, o.n, o.length));
  std::printf(
      "kfvm allen-cahn: %dD, %d cells, L = %g, eps = %g, %d steps of dt = %g, "
      "backend %s\n",
      o.dimension, mesh.numCells(), o.length, o.epsilon, o.steps, o.dt, Space::name());
  Equation<Space> equation(mesh);
  equation.transient()
      .diffusion(Real(o.epsilon * o.epsilon))
      .source(Polynomial{0, 1, 0, -1});
  if (o.dimension == 1) {
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(-1.0))
        .boundary(Patch::Right, BoundaryCondition::dirichlet(1.0));
  }
  CellField<Space> phi(mesh, "phi");
  const Real half = Real(o.length / 2), radius0 = Real(o.length / 4);
  const bool disc = o.dimension == 2;
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) {
        if (!disc) return x < half ? Real(-1) : Real(1);
        const Real r = Compat::sqrt((x - half) * (x - half) + (y - half) * (y - half));
        return r < radius0 ? Real(1) : Real(-1);
      });
  Parameters parameters;
  parameters.set("tolerance", o.tolerance).set("max_iterations", 5000);
  ImplicitStepper<Space> stepper(equation, makeLinearSolver<Space>("cg", parameters));
  stepper.setSweeps(50, Real(o.tolerance));
  const auto start = std::chrono::steady_clock::now();
  double time = 0;
  for (int step = 1; step <= o.steps; ++step) {
    const auto report = stepper.step(phi, Real(o.dt));
    time += o.dt;
    if (step % o.every == 0 || step == o.steps || !report.converged)
      std::printf("step %5d  t = %-9.4g sweeps %2d  iterations %4d  residual %.3e  %s\n",
                  step, time, report.sweeps, report.totalIterations,
                  report.sweepResiduals.empty() ? 0.0 : report.sweepResiduals.back(),
                  report.converged ? "converged" : "NOT CONVERGED");
    if (!report.converged) {
      std::fprintf(stderr, "kfvm allen-cahn: step %d failed: %s\n", step,
                   report.reason.c_str());
      return 2;
    }
  }
  const double seconds = secondsSince(start);
  auto values = phi.values();
  auto centres = mesh.cellCentres();
  auto volumes = mesh.cellVolumes();
  std::printf("\nfinal time        %g\nwall time         %.3f s\n", time, seconds);
  if (!disc) {
    const double width = std::sqrt(2.0) * o.epsilon;
    double maxError = 0;
    Kokkos::parallel_reduce(
        "kfvm::app::allenCahn::error", indexRange(Space(), mesh.numCells()),
        KOKKOS_LAMBDA(Ordinal c, double& worst) {
          const double exact = std::tanh((centres(c, 0) - half) / width);
          const double error = Compat::abs(double(values(c)) - exact);
          if (error > worst) worst = error;
        },
        Kokkos::Max<double>(maxError));
    std::printf("max error         %.3e against tanh((x - L/2) / (sqrt(2) eps))\n",
                maxError);
    return 0;
  }
  double area = 0;
  Kokkos::parallel_reduce(
      "kfvm::app::allenCahn::area", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& sum) {
        sum += 0.5 * (1 + values(c)) * volumes(c);
      },
      area);
  const double measured = std::sqrt(area / 3.14159265358979323846);
  const double squared = double(radius0) * radius0 - 2 * o.epsilon * o.epsilon * time;
  std::printf("disc radius       %.4f (sharp-interface theory %.4f, R0 = %.4f)\n",
              measured, squared > 0 ? std::sqrt(squared) : 0.0, double(radius0));
  return 0;
}

}  // namespace

void addConvectionCommand(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<ConvectionOptions>();
  auto* command = app.add_subcommand(
      "convection", "Steady convection-diffusion (1D/2D/3D) against the exact profile");
  command->add_option("--dim", o->dimension, "Dimension: 1, 2 or 3")
      ->capture_default_str();
  command->add_option("--n", o->n, "Cells per direction")->capture_default_str();
  command->add_option("--peclet", o->peclet, "Peclet number u L / D")
      ->capture_default_str();
  command
      ->add_option("--scheme", o->scheme,
                   "central, upwind, power-law, exponential, hybrid, "
                   "van-leer, minmod, superbee")
      ->capture_default_str();
  command->add_option("--solver", o->solver, "Linear solver by name")
      ->capture_default_str();
  command->add_option("--tol", o->tolerance, "Solver and sweep tolerance")
      ->capture_default_str();
  command->add_option("--max-iterations", o->maxIterations, "Linear iterations per solve")
      ->capture_default_str();
  command->add_option("--max-sweeps", o->maxSweeps, "Sweeps (TVD schemes)")
      ->capture_default_str();
  command->callback(
      [o, &context] { context.runWithKokkos([&] { return runConvection(*o); }); });
}

void addAllenCahnCommand(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<AllenCahnOptions>();
  auto* command = app.add_subcommand(
      "allen-cahn", "Allen-Cahn phase field: 1D front (vs tanh) or 2D shrinking disc");
  command->add_option("--dim", o->dimension, "Dimension: 1 or 2")->capture_default_str();
  command->add_option("--n", o->n, "Cells per direction")->capture_default_str();
  command->add_option("--length", o->length, "Domain length L")->capture_default_str();
  command->add_option("--epsilon", o->epsilon, "Interface width eps")
      ->capture_default_str();
  command->add_option("--steps", o->steps, "Backward-Euler steps")->capture_default_str();
  command->add_option("--dt", o->dt, "Time step")->capture_default_str();
  command->add_option("--every", o->every, "Progress line every N steps")
      ->capture_default_str();
  command->add_option("--tol", o->tolerance, "Solver and sweep tolerance")
      ->capture_default_str();
  command->callback(
      [o, &context] { context.runWithKokkos([&] { return runAllenCahn(*o); }); });
}

}  // namespace kfvm::app
