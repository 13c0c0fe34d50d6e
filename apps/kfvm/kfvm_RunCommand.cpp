// `kfvm run DECK` and `kfvm check DECK`: a whole run from a TOML deck (kfvm_Deck.hpp).
#include "kfvm_Checkpoint.hpp"
#include "kfvm_Deck.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_Expression.hpp"
#include "kfvm_ProblemCommands.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_ImplicitStepper.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

struct RunOptions {
  std::string output, restart;
  int cells = 0;
  bool quiet = false, verbose = false;
};

/// The [check]: largest difference from the exact expression, and the integral's drift
/// per unit volume.
int checkResult(const Deck& deck, const CellField<Space>& phi,
                const std::vector<std::array<double, 3>>& centres, double time,
                double integral0, double integral) {
  if (!deck.hasCheck) return 0;
  bool ok = true;
  if (!deck.exact.empty()) {
    const Expression exact(deck.exact);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
    double worst = 0;
    for (std::size_t c = 0; c < centres.size(); ++c) {
      const auto& p = centres[c];
      worst =
          std::max(worst, std::abs(double(values(c)) - exact(p[0], p[1], p[2], time)));
    }
    const bool met = worst <= deck.checkTolerance;
    std::printf("check             max |%s - exact| = %.3e, tolerance %.3e: %s\n",
                deck.variable.c_str(), worst, deck.checkTolerance, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  if (deck.integralDrift >= 0) {
    double volume = 1;
    for (int a = 0; a < deck.dimension; ++a) volume *= deck.length[a];
    const double drift = std::abs(integral - integral0) / volume;
    const bool met = drift <= deck.integralDrift;
    std::printf(
        "check             integral drift %.3e per unit volume, tolerance %.3e: %s\n",
        drift, deck.integralDrift, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  return ok ? 0 : 4;
}

CheckpointState checkpointOf(const Deck& deck, const CellField<Space>& phi, int step,
                             double time, double nextDt) {
  CheckpointState state;
  state.step = step;
  state.time = time;
  state.dt = nextDt;
  state.cells = deck.cells;
  state.variable = deck.variable;
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  state.values.assign(values.data(), values.data() + values.extent(0));
  return state;
}

int runDeck(const Deck& deck, const RunOptions& options) {
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  const Verbosity verbosity = options.quiet     ? Verbosity::Quiet
                              : options.verbose ? Verbosity::Verbose
                                                : Verbosity::Normal;
  std::printf("kfvm run %s: %dD, %d cells, backend %s\n", deck.path.c_str(),
              deck.dimension, deck.numCells(), Space::name());
  reportMemory(deck, true);
  const CartesianGrid grid = gridOf(deck);
  Mesh<Space> mesh(grid);
  const auto centres = cellCentres(grid);
  CellField<Space> phi(mesh, deck.variable);
  phi.fromHost(initialValues(deck, centres));
  Equation<Space> equation(mesh);
  buildEquation(deck, mesh, centres, equation);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(deck.solver, deck.solverParameters));
  stepper.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance), Real(deck.relaxation));
  double time = 0, dt = deck.dt;
  int firstStep = 1;
  if (!options.restart.empty()) {
    require(!deck.steady, deck.path, ": a steady run has no steps to restart");
    const CheckpointState state = readCheckpoint(options.restart);
    require(state.cells == deck.cells, "checkpoint '", options.restart, "' holds ",
            state.cells[0], " x ", state.cells[1], " x ", state.cells[2],
            " cells, the deck's mesh ", deck.cells[0], " x ", deck.cells[1], " x ",
            deck.cells[2]);
    require(state.variable == deck.variable, "checkpoint '", options.restart,
            "' holds variable '", state.variable, "', the deck's is '", deck.variable,
            "'");
    phi.fromHost(state.values);
    time = state.time;
    dt = state.dt;
    firstStep = state.step + 1;
    std::printf("restart           from %s: step %d, t = %.10g\n",
                options.restart.c_str(), state.step, time);
  }
  const bool restarted = firstStep > 1;
  RunOutput output(deck, directory, mesh, phi, verbosity, restarted ? time : -1.0);
  const double integral0 = double(integrate(phi, mesh));
  double integral = integral0;
  int lastStep = firstStep - 1;
  if (!restarted) {
    output.writeVtk(0, 0);
    output.writePng(0);
  }
  if (deck.steady) {
    const auto report = stepper.solveSteady(phi);
    if (!report.converged) {
      std::fprintf(stderr, "kfvm run: steady solve failed: %s\n", report.reason.c_str());
      return 2;
    }
    integral = output.record(0, 0, 0, report, 1).integral;
  } else {
    const auto scheme = timeSchemeFromName(deck.timeScheme);
    for (int step = firstStep;
         deck.steps > 0 ? step <= deck.steps : time < deck.end * (1 - 1e-12); ++step) {
      const double thisDt = deck.steps > 0 ? dt : std::min(dt, deck.end - time);
      const auto report = stepper.step(phi, Real(thisDt), scheme);
      if (!report.converged) {
        std::fprintf(stderr, "\nkfvm run: step %d failed: %s\n", step,
                     report.reason.c_str());
        return 2;
      }
      time += thisDt;
      integral = output.record(step, time, thisDt, report, deck.steps).integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, time);
      if (deck.pngEvery > 0 && step % deck.pngEvery == 0) output.writePng(step);
      dt = std::min(dt * deck.dtGrowth, deck.dtMax);
      lastStep = step;
      if (deck.checkpointEvery > 0 && step % deck.checkpointEvery == 0)
        writeCheckpoint(directory + "/checkpoint.h5",
                        checkpointOf(deck, phi, step, time, dt));
    }
  }
  if (deck.vtkEvery == 0 || lastStep % deck.vtkEvery != 0)
    output.writeVtk(lastStep, time);
  if (deck.pngEvery == 0 || lastStep % deck.pngEvery != 0) output.writePng(lastStep);
  output.finish();
  return checkResult(deck, phi, centres, time, integral0, integral);
}

int checkDeck(const Deck& deck) {
  std::printf("%s: ok\n  mesh %dD, %d cells; %s; solver %s; %s\n", deck.path.c_str(),
              deck.dimension, deck.numCells(),
              deck.steady ? "steady" : ("time " + deck.timeScheme).c_str(),
              deck.solver.c_str(),
              deck.hasCheck ? "checked against an exact solution" : "no check");
  reportMemory(deck, false);
  return 0;
}

}  // namespace

void addDeckCommands(CLI::App& app, CommandContext& context) {
  auto deckPath = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run the problem a TOML deck describes");
  run->add_option("deck", *deckPath, "Deck file (see apps/decks/README.md)")->required();
  run->add_option("--output", options->output,
                  "Output folder (replaces [output] directory)");
  run->add_option("--restart", options->restart,
                  "Go on from a checkpoint ([output] checkpoint_every writes them)");
  run->add_option(
         "--cells", options->cells,
         "Cells per direction, replacing the deck's (a small run of a large deck)")
      ->check(CLI::Range(1, 100000));
  auto* quiet = run->add_flag("-q,--quiet", options->quiet, "Print the summary only");
  run->add_flag("-v,--verbose", options->verbose, "A progress line every step")
      ->excludes(quiet);
  run->callback([deckPath, options, &context] {
    Deck deck = readDeck(
        *deckPath, convectionSchemeNames());  // a bad deck fails before Kokkos starts
    for (int a = 0; a < deck.dimension && options->cells > 0; ++a)
      deck.cells[a] = options->cells;
    context.runWithKokkos([&] { return runDeck(deck, *options); });
  });
  auto checkPath = std::make_shared<std::string>();
  auto* check = app.add_subcommand("check", "Validate a deck without running it");
  check->add_option("deck", *checkPath, "Deck file")->required();
  check->callback([checkPath, &context] {
    const Deck deck = readDeck(*checkPath, convectionSchemeNames());
    context.runWithKokkos([&] { return checkDeck(deck); });
  });
}

}  // namespace kfvm::app
