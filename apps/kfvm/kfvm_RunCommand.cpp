// `kfvm run DECK` and `kfvm check DECK`: a whole run from a TOML deck (kfvm_Deck.hpp).
#include "kfvm_Checkpoint.hpp"
#include "kfvm_Deck.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_Expression.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_ProblemCommands.hpp"
#include "kfvm_RunOutput.hpp"

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

/// The [check] of the checked variable: largest difference from the exact expression,
/// and the integral's drift per unit volume.
int checkResult(const Deck& deck, const CellField<Space>& field,
                const std::vector<std::array<double, 3>>& centres, double time,
                double integral0, double integral) {
  if (!deck.hasCheck) return 0;
  const std::string& name = deck.variables[std::size_t(deck.checkVariable)].name;
  bool ok = true;
  if (!deck.exact.empty()) {
    const Expression exact(deck.exact);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.values());
    double worst = 0;
    for (std::size_t c = 0; c < centres.size(); ++c) {
      const auto& p = centres[c];
      worst =
          std::max(worst, std::abs(double(values(c)) - exact(p[0], p[1], p[2], time)));
    }
    const bool met = worst <= deck.checkTolerance;
    std::printf("check             max |%s - exact| = %.3e, tolerance %.3e: %s\n",
                name.c_str(), worst, deck.checkTolerance, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  if (deck.integralDrift >= 0) {
    double volume = 1;
    for (int a = 0; a < deck.dimension; ++a) volume *= deck.length[a];
    const double drift = std::abs(integral - integral0) / volume;
    const bool met = drift <= deck.integralDrift;
    std::printf(
        "check             integral of %s drifts %.3e per unit volume, tolerance %.3e: "
        "%s\n",
        name.c_str(), drift, deck.integralDrift, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  return ok ? 0 : 4;
}

CheckpointState checkpointOf(const Deck& deck,
                             const std::vector<CellField<Space>>& fields, int step,
                             double time, double nextDt) {
  CheckpointState state;
  state.step = step;
  state.time = time;
  state.dt = nextDt;
  state.cells = deck.cells;
  for (std::size_t v = 0; v < fields.size(); ++v) {
    state.variables.push_back(deck.variables[v].name);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields[v].values());
    state.values.emplace_back(values.data(), values.data() + values.extent(0));
  }
  return state;
}

/// Takes the fields, step, time and dt of a checkpoint; returns the step it holds.
int restartFrom(const std::string& path, const Deck& deck,
                std::vector<CellField<Space>>& fields, double& time, double& dt) {
  require(!deck.steady, deck.path, ": a steady run has no steps to restart");
  const CheckpointState state = readCheckpoint(path);
  require(state.cells == deck.cells, "checkpoint '", path, "' holds ", state.cells[0],
          " x ", state.cells[1], " x ", state.cells[2], " cells, the deck's mesh ",
          deck.cells[0], " x ", deck.cells[1], " x ", deck.cells[2]);
  std::string names;
  for (const auto& name : state.variables) names += (names.empty() ? "" : ", ") + name;
  bool same = state.variables.size() == deck.variables.size();
  for (std::size_t v = 0; same && v < state.variables.size(); ++v)
    same = state.variables[v] == deck.variables[v].name;
  require(same, "checkpoint '", path, "' holds variables (", names, "), the deck's are (",
          deck.runName(), ")");
  for (std::size_t v = 0; v < fields.size(); ++v) fields[v].fromHost(state.values[v]);
  time = state.time;
  dt = state.dt;
  log::info("restart           from %s: step %d, t = %.10g", path.c_str(), state.step,
            time);
  return state.step;
}

int runDeck(const Deck& deck, const RunOptions& options) {
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  log::setLevel(options.quiet     ? log::Level::Quiet
                : options.verbose ? log::Level::Verbose
                                  : log::Level::Normal);
  log::info("kfvm run %s: %dD, %d cells, %d variable%s, backend %s", deck.path.c_str(),
            deck.dimension, deck.numCells(), deck.numVariables(),
            deck.numVariables() > 1 ? "s (coupled)" : "", Space::name());
  log::info("%s", reportMemory(deck, true).c_str());
  log::debug("solver            %s, preconditioner %s; sweeps at most %d to %g",
             deck.solver.c_str(),
             deck.solverParameters.getString("preconditioner", "jacobi").c_str(),
             deck.maxSweeps, deck.sweepTolerance);
  const CartesianGrid grid = gridOf(deck);
  Mesh<Space> mesh(grid);
  const auto centres = cellCentres(grid);
  const auto problem = DeckProblem::create(deck, mesh, centres);
  auto& fields = problem->fields();
  double time = 0, dt = deck.dt;
  int firstStep = 1;
  if (!options.restart.empty())
    firstStep = restartFrom(options.restart, deck, fields, time, dt) + 1;
  const bool restarted = firstStep > 1;
  RunOutput output(deck, directory, mesh, fields, restarted ? time : -1.0);
  const auto& checked = fields[std::size_t(deck.checkVariable)];
  const double integral0 = double(integrate(checked, mesh));
  double integral = integral0;
  int lastStep = firstStep - 1;
  if (!restarted) {
    output.writeVtk(0, 0);
    output.writePng(0);
  }
  if (deck.steady) {
    const auto report = problem->solveSteady();
    if (!report.converged) {
      log::error("kfvm run: steady solve failed: %s", report.reason.c_str());
      return 2;
    }
    integral =
        output.record(0, 0, 0, report, 1)[std::size_t(deck.checkVariable)].integral;
  } else {
    const auto scheme = timeSchemeFromName(deck.timeScheme);
    for (int step = firstStep;
         deck.steps > 0 ? step <= deck.steps : time < deck.end * (1 - 1e-12); ++step) {
      const double thisDt = deck.steps > 0 ? dt : std::min(dt, deck.end - time);
      const auto report = problem->step(thisDt, scheme);
      if (!report.converged) {
        if (output.rewritesInPlace()) std::printf("\n");
        log::error("kfvm run: step %d failed: %s", step, report.reason.c_str());
        return 2;
      }
      time += thisDt;
      integral = output
                     .record(step, time, thisDt, report,
                             deck.steps)[std::size_t(deck.checkVariable)]
                     .integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, time);
      if (deck.pngEvery > 0 && step % deck.pngEvery == 0) output.writePng(step);
      dt = std::min(dt * deck.dtGrowth, deck.dtMax);
      lastStep = step;
      if (deck.checkpointEvery > 0 && step % deck.checkpointEvery == 0) {
        writeCheckpoint(directory + "/checkpoint.h5",
                        checkpointOf(deck, fields, step, time, dt));
        log::debug("checkpoint        %s/checkpoint.h5: step %d, t = %.10g",
                   directory.c_str(), step, time);
      }
    }
  }
  if (deck.vtkEvery == 0 || lastStep % deck.vtkEvery != 0)
    output.writeVtk(lastStep, time);
  if (deck.pngEvery == 0 || lastStep % deck.pngEvery != 0) output.writePng(lastStep);
  output.finish();
  return checkResult(deck, checked, centres, time, integral0, integral);
}

int checkDeck(const Deck& deck) {
  std::printf("%s: ok\n  mesh %dD, %d cells; variables %s%s; %s; solver %s; %s\n",
              deck.path.c_str(), deck.dimension, deck.numCells(), deck.runName().c_str(),
              deck.isCoupled() ? " (coupled)" : "",
              deck.steady ? "steady" : ("time " + deck.timeScheme).c_str(),
              deck.solver.c_str(),
              !deck.hasCheck       ? "no check"
              : deck.exact.empty() ? "integral checked"
                                   : "checked against an exact solution");
  std::printf("%s\n", reportMemory(deck, false).c_str());
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
  auto* quiet = run->add_flag("-q,--quiet", options->quiet,
                              "Warnings, errors and the results only (no progress)");
  run->add_flag("-v,--verbose", options->verbose,
                "Debug messages too: a progress line every step, sweep residuals, the "
                "files and checkpoints written")
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
