// `kfvm cahn-hilliard`: 2D Cahn-Hilliard from random data, in the coupled (phi, mu) form
// or the higher-order form.
#include "kfvm_ProblemCommands.hpp"

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace kfvm::app {

namespace {

using Space = Kokkos::DefaultExecutionSpace;

struct CahnHilliardOptions {
  int n = 64, steps = 200, every = 20;
  double length = 32, epsilon = 1, mobility = 1, dt = 0.1, noise = 0.05,
         tolerance = 1e-11;
  unsigned seed = 2026;
  std::string form = "coupled", preconditioner = "jacobi";
};

/// Free energy sum_c V (phi^2 - 1)^2 / 4 + sum_interior eps^2 / 2 (A / d) (jump)^2.
double freeEnergy(const Mesh<Space>& mesh, const CellField<Space>& phi, double epsilon) {
  auto values = phi.values();
  auto volumes = mesh.cellVolumes();
  auto faceCells = mesh.faceCells();
  auto areas = mesh.faceAreas();
  auto distances = mesh.faceDistances();
  double bulk = 0, gradient = 0;
  Kokkos::parallel_reduce(
      "kfvm::app::cahnHilliard::bulkEnergy", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, double& sum) {
        const double w = double(values(c)) * values(c) - 1;
        sum += volumes(c) * w * w / 4;
      },
      bulk);
  const double half = epsilon * epsilon / 2;
  Kokkos::parallel_reduce(
      "kfvm::app::cahnHilliard::gradientEnergy", indexRange(Space(), mesh.numFaces()),
      KOKKOS_LAMBDA(Ordinal f, double& sum) {
        if (faceCells(f, 1) < 0) return;
        const double jump = double(values(faceCells(f, 1))) - values(faceCells(f, 0));
        sum += half * areas(f) / distances(f) * jump * jump;
      },
      gradient);
  return bulk + gradient;
}

/// One backward-Euler step of whichever form; phi() is the phase field after it.
struct CahnHilliardStepper {
  std::function<StepReport(Real)> step;
  std::function<const CellField<Space>&()> phi;
};

/// (phi, mu) as one block system: dphi/dt = div(M grad mu), mu = f'(phi) - eps^2 lap phi.
CahnHilliardStepper coupledForm(const Mesh<Space>& mesh, const CahnHilliardOptions& o,
                                const std::vector<double>& initial,
                                const Parameters& parameters) {
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0)
      .diffusion(0, 1, Real(o.mobility))
      .diffusion(1, 0, Real(o.epsilon * o.epsilon))
      .implicitSource(1, 1, 1)
      .source(1, 0, Polynomial{0, 1, 0, -1});
  auto fields =
      std::make_shared<std::vector<CellField<Space>>>(std::vector<CellField<Space>>{
          CellField<Space>(mesh, "phi"), CellField<Space>(mesh, "mu")});
  (*fields)[0].fromHost(initial);
  auto stepper = std::make_shared<CoupledStepper<Space>>(
      system, makeLinearSolver<Space>("gmres", parameters));
  stepper->setSweeps(30, Real(o.tolerance));
  return {[stepper, fields](Real dt) { return stepper->step(*fields, dt); },
          [fields]() -> const CellField<Space>& {
            return (*fields)[0];
          }};
}

/// phi alone: dphi/dt = div(M grad(f'(phi) - div(eps^2 grad phi))), the fourth-order
/// term assembled as one matrix.
CahnHilliardStepper higherOrderForm(const Mesh<Space>& mesh, const CahnHilliardOptions& o,
                                    const std::vector<double>& initial,
                                    const Parameters& parameters) {
  Equation<Space> equation(mesh);
  equation.transient().higherOrderDiffusion(Real(o.mobility), Real(o.epsilon * o.epsilon),
                                            Polynomial{0, -1, 0, 1});
  auto phi = std::make_shared<CellField<Space>>(mesh, "phi");
  phi->fromHost(initial);
  auto stepper = std::make_shared<ImplicitStepper<Space>>(
      equation, makeLinearSolver<Space>("gmres", parameters));
  stepper->setSweeps(30, Real(o.tolerance));
  return {[stepper, phi](Real dt) { return stepper->step(*phi, dt); },
          [phi]() -> const CellField<Space>& {
            return *phi;
          }};
}

/// 2D Cahn-Hilliard from random data around phi = 0, zero flux: prints the free energy
/// (never rising) and the mass (conserved) as it goes.
int runCahnHilliard(const CahnHilliardOptions& o) {
  require(o.n >= 4 && o.steps > 0 && o.every > 0, "--n >= 4, --steps and --every > 0");
  require(o.epsilon > 0 && o.mobility > 0 && o.dt > 0 && o.length > 0,
          "--epsilon, --mobility, --dt and --length must be positive");
  require(o.form == "coupled" || o.form == "higher-order",
          "--form must be coupled or higher-order, got '", o.form, "'");
  Mesh<Space> mesh(CartesianGrid::uniform2D(o.n, o.n, o.length, o.length));
  std::printf(
      "kfvm cahn-hilliard: 2D, %s form, %d cells, L = %g, eps = %g, M = %g, %d steps "
      "of dt = %g, GMRES + %s, backend %s\n",
      o.form.c_str(), mesh.numCells(), o.length, o.epsilon, o.mobility, o.steps, o.dt,
      o.preconditioner.c_str(), Space::name());
  std::mt19937 random(o.seed);
  std::uniform_real_distribution<double> noise(-o.noise, o.noise);
  std::vector<double> initial(mesh.numCells());
  for (auto& value : initial) value = noise(random);
  Parameters parameters;
  parameters.set("tolerance", o.tolerance)
      .set("max_iterations", 20000)
      .set("restart", 60)
      .set("preconditioner", o.preconditioner);
  const auto stepper = o.form == "coupled"
                           ? coupledForm(mesh, o, initial, parameters)
                           : higherOrderForm(mesh, o, initial, parameters);
  const double mass0 = integrate(stepper.phi(), mesh);
  const double energy0 = freeEnergy(mesh, stepper.phi(), o.epsilon);
  double energy = energy0, worstDrift = 0;
  bool rose = false;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= o.steps; ++step) {
    const auto report = stepper.step(Real(o.dt));
    if (!report.converged) {
      std::fprintf(stderr, "kfvm cahn-hilliard: step %d failed: %s\n", step,
                   report.reason.c_str());
      return 2;
    }
    const double next = freeEnergy(mesh, stepper.phi(), o.epsilon);
    rose = rose || next > energy * (1 + 1e-12);
    energy = next;
    worstDrift = std::max(worstDrift, std::abs(integrate(stepper.phi(), mesh) - mass0));
    if (step % o.every == 0 || step == o.steps)
      std::printf(
          "step %5d  t = %-8.4g sweeps %d  iterations %5d  energy %.6f  mass drift "
          "%.2e\n",
          step, step * o.dt, report.sweeps, report.totalIterations, energy, worstDrift);
  }
  std::printf("\nwall time         %.3f s\n", secondsSince(start));
  std::printf("free energy       %.6f -> %.6f (%s)\n", energy0, energy,
              rose ? "ROSE at some step" : "never rose");
  std::printf("mass drift        %.3e of the area\n", worstDrift / (o.length * o.length));
  return rose ? 3 : 0;
}

}  // namespace

void addCahnHilliardCommand(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<CahnHilliardOptions>();
  auto* command = app.add_subcommand(
      "cahn-hilliard", "2D Cahn-Hilliard from random data: energy and mass per step");
  command->add_option("--form", o->form, "coupled (phi, mu) or higher-order (phi alone)")
      ->capture_default_str();
  command->add_option("--n", o->n, "Cells per direction")->capture_default_str();
  command->add_option("--length", o->length, "Domain length L")->capture_default_str();
  command->add_option("--epsilon", o->epsilon, "Interface width eps")
      ->capture_default_str();
  command->add_option("--mobility", o->mobility, "Mobility M")->capture_default_str();
  command->add_option("--steps", o->steps, "Backward-Euler steps")->capture_default_str();
  command->add_option("--dt", o->dt, "Time step")->capture_default_str();
  command->add_option("--noise", o->noise, "Amplitude of the initial noise")
      ->capture_default_str();
  command->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  command->add_option("--every", o->every, "Progress line every N steps")
      ->capture_default_str();
  command->add_option("--tol", o->tolerance, "Solver and sweep tolerance")
      ->capture_default_str();
  command
      ->add_option("--preconditioner", o->preconditioner,
                   "none, jacobi, ilu0, block-jacobi or chebyshev")
      ->capture_default_str();
  command->callback(
      [o, &context] { context.runWithKokkos([&] { return runCahnHilliard(*o); }); });
}

}  // namespace kfvm::app
