// `kfvm run DECK` and `kfvm check DECK`: a whole run from a TOML deck (kfvm_Deck.hpp).
#include "kfvm_Checkpoint.hpp"
#include "kfvm_CommandContext.hpp"
#include "kfvm_Deck.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_Expression.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_ProblemCommands.hpp"
#include "kfvm_RunOutput.hpp"

#ifdef KFVM_DECKS_WITH_MPI
#include "kfvm_DistributedRun.hpp"

#include <mpi.h>
#endif

#include <kfvm_AdaptiveStepper.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

/// The deck's mesh and variables, as a checkpoint records them and a restart compares.
std::string deckFingerprint(const Deck& deck) {
  std::string text = Details::concatenate("mesh ", deck.dimension, "D");
  for (int a = 0; a < deck.dimension; ++a)
    text += Details::concatenate(a ? " x " : " ", deck.cells[a]);
  text += " cells, length";
  for (int a = 0; a < deck.dimension; ++a)
    text += Details::concatenate(a ? " x " : " ", deck.length[a]);
  return text + "; variables " + deck.runName();
}

/// Throws when a field holds NaN or inf: the message names the variable, the cell, its
/// centre and `when` ("initially", "in checkpoint '...'").
void requireFinite(const Deck& deck, const std::vector<CellField<Space>>& fields,
                   const std::vector<std::array<double, 3>>& centres,
                   const std::string& when) {
  for (std::size_t v = 0; v < fields.size(); ++v) {
    const NonFinite bad = firstNonFinite(fields[v]);
    if (bad.cell < 0) continue;
    const auto& p = centres[std::size_t(bad.cell)];
    fail(deck.path, ": ", deck.variables[v].name, " is ", bad.value, " ", when,
         " at cell ", bad.cell, " (x = ", p[0], ", y = ", p[1], ", z = ", p[2], ")");
  }
}

/// The checkpoint after `step` at `time`, with the next step's dt and the adaptive
/// controller's error history.
CheckpointState checkpointOf(const Deck& deck,
                             const std::vector<CellField<Space>>& fields, int step,
                             double time, double dt,
                             const std::array<double, 2>& errorHistory,
                             const OutputSizes& sizes) {
  CheckpointState state;
  state.step = step;
  state.time = time;
  state.dt = dt;
  state.errorHistory = errorHistory;
  state.cells = deck.cells;
  state.fingerprint = deckFingerprint(deck);
  state.seriesBytes = sizes.seriesBytes;
  state.probesBytes = sizes.probesBytes;
  for (std::size_t v = 0; v < fields.size(); ++v) {
    state.variables.push_back(deck.variables[v].name);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields[v].values());
    state.values.emplace_back(values.data(), values.data() + values.extent(0));
  }
  return state;
}

/// Takes the fields of a checkpoint after checking it belongs to this deck: the same
/// mesh and variables, a step within the run, and the time and dt the deck's schedule
/// has at that step, bit for bit (an adaptive run's: a time within the run). Returns the
/// checkpoint (its step, time, dt, controller history and CSV sizes).
CheckpointState restartFrom(const std::string& path, const Deck& deck,
                            std::vector<CellField<Space>>& fields,
                            const std::vector<std::array<double, 3>>& centres,
                            TimeSchedule& schedule) {
  require(!deck.steady, deck.path, ": a steady run has no steps to restart");
  CheckpointState state = readCheckpoint(path);
  const std::string fingerprint = deckFingerprint(deck);
  require(state.fingerprint == fingerprint, "checkpoint '", path,
          "' belongs to another deck: it holds ", state.fingerprint, "; ", deck.path,
          " has ", fingerprint);
  require(deck.steps == 0 || state.step <= deck.steps, "checkpoint '", path,
          "' is at step ", state.step, ", past the deck's last step ", deck.steps);
  if (deck.adaptive) {
    require(state.time <= deck.end, "checkpoint '", path, "' is at t = ", state.time,
            ", past the deck's end ", deck.end);
  } else {
    const TimeSchedule expected = TimeSchedule::after(deck, state.step);
    require(state.time == expected.time() && state.dt == expected.dt(), "checkpoint '",
            path, "' holds t = ", state.time, " and dt = ", state.dt, " at step ",
            state.step, ", but the deck's time steps give t = ", expected.time(),
            " and dt = ", expected.dt(),
            " there ([time] changed, or the file is damaged)");
    schedule = expected;
  }
  for (std::size_t v = 0; v < fields.size(); ++v) fields[v].fromHost(state.values[v]);
  requireFinite(deck, fields, centres, "in checkpoint '" + path + "'");
  log::info("restart           from %s: step %d, t = %.10g", path.c_str(), state.step,
            state.time);
  return state;
}

/// A step's failure: the variable that became NaN or inf if one did, else the solver's
/// reason with the range of every variable (a diverging run shows there).
int stepFailed(const Deck& deck, const std::vector<CellField<Space>>& fields,
               const Mesh<Space>& mesh, const std::vector<std::array<double, 3>>& centres,
               int step, double time, const std::string& reason, bool newLine) {
  if (newLine) std::printf("\n");
  std::string ranges;
  for (std::size_t v = 0; v < fields.size(); ++v) {
    const NonFinite bad = firstNonFinite(fields[v]);
    if (bad.cell >= 0) {
      const auto& p = centres[std::size_t(bad.cell)];
      log::error(
          "kfvm run: %s became %s at step %d (t = %.10g), first at cell %d (x = "
          "%g, y = %g, z = %g)%s%s",
          deck.variables[v].name.c_str(), std::isnan(bad.value) ? "NaN" : "inf", step,
          time, int(bad.cell), p[0], p[1], p[2],
          reason.empty() ? "" : "; the solver said: ", reason.c_str());
      return exitSolveFailed;
    }
    const Statistics s = statisticsOf(fields[v], mesh);
    ranges += Details::concatenate(v ? ", " : "; ", deck.variables[v].name, " in [",
                                   s.minimum, ", ", s.maximum, "]");
  }
  log::error("kfvm run: step %d (t = %.10g) failed: %s%s", step, time, reason.c_str(),
             ranges.c_str());
  return exitSolveFailed;
}

}  // namespace

int runDeck(const Deck& deck, const RunOptions& options) {
#ifdef KFVM_DECKS_WITH_MPI
  if (mpiWorldSize() > 1) return runDeckAcrossRanks(deck, options);
#endif
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  log::setLevel(options.quiet     ? log::Level::Quiet
                : options.verbose ? log::Level::Verbose
                                  : log::Level::Normal);
  log::info("kfvm run %s: %dD, %lld cells, %d variable%s, backend %s", deck.path.c_str(),
            deck.dimension, deck.numCells(), deck.numVariables(),
            deck.numVariables() > 1 ? "s (coupled)" : "", Space::name());
  log::info("%s", validateDeck(deck).c_str());
  log::debug("solver            %s, preconditioner %s; sweeps at most %d to %g",
             deck.solver.c_str(),
             deck.solverParameters.getString("preconditioner", "jacobi").c_str(),
             deck.maxSweeps, deck.sweepTolerance);
  const CartesianGrid grid = gridOf(deck);
  Mesh<Space> mesh(grid);
  const auto centres = cellCentres(grid);
  const auto problem = DeckProblem::create(deck, mesh, centres);
  auto& fields = problem->fields();
  requireFinite(deck, fields, centres, "initially");
  TimeSchedule schedule(deck);
  int firstStep = 1;
  OutputResume resume;
  // An adaptive run's clock: the time, the next step's first try and the controller.
  double now = 0, nextDt = deck.dt;
  std::array<double, 2> errorHistory{1, 1};
  if (!options.restart.empty()) {
    const CheckpointState state =
        restartFrom(options.restart, deck, fields, centres, schedule);
    firstStep = state.step + 1;
    resume = {state.time, state.seriesBytes, state.probesBytes};
    now = state.time;
    nextDt = state.dt;
    errorHistory = state.errorHistory;
  }
  const bool restarted = !options.restart.empty();
  RunOutput output(deck, directory, mesh, fields, resume);
  const auto& checked = fields[std::size_t(deck.checkVariable)];
  const double integral0 = double(integrate(checked, mesh));
  double integral = integral0;
  int lastStep = firstStep - 1;
  bool cut = false;  // --max-steps ended the run before its end
  if (!restarted) {
    output.writeVtk(0, 0);
    output.writePng(0);
  }
  if (deck.steady) {
    const auto report = problem->solveSteady();
    if (!report.converged)
      return stepFailed(deck, fields, mesh, centres, 0, 0,
                        "steady solve: " + report.reason, false);
    const auto statistics = output.record(0, 0, 0, report, 1);
    for (const auto& s : statistics)
      if (!std::isfinite(s.integral))
        return stepFailed(deck, fields, mesh, centres, 0, 0, "", false);
    integral = statistics[std::size_t(deck.checkVariable)].integral;
  } else {
    std::unique_ptr<AdaptiveStepper<Space>> adaptive;
    if (deck.adaptive) {
      const auto scheme = timeSchemeFromName(deck.timeScheme);  // implicit (readDeck)
      adaptive = std::make_unique<AdaptiveStepper<Space>>(
          mesh,
          [&problem, scheme](std::vector<CellField<Space>>& trial, Real dt) {
            return problem->step(trial, dt, scheme);
          },
          scheme == TimeScheme::CrankNicolson ? 2 : 1, deck.adaptiveOptions);
      adaptive->setErrorHistory(errorHistory);
    }
    AdaptiveRunReport tally;  // an adaptive run's steps, rejected tries and dt range
    const double landing = deck.end * (1 - 1e-12);
    for (int step = firstStep; adaptive ? now < landing : !schedule.finished(step);
         ++step) {
      if (options.maxSteps > 0 && step - firstStep >= options.maxSteps) {
        cut = true;
        break;
      }
      double thisDt = 0;
      StepReport report;
      if (adaptive) {
        require(step <= maxSteps, deck.path, ": the adaptive run reached ", maxSteps,
                " steps at t = ", now, " of ", deck.end, " (dt ", nextDt, ")");
        const double left = deck.end - now;  // the last step lands on end
        const AdaptiveStepReport taken = adaptive->stepTowards(fields, left, nextDt);
        tally.rejected += taken.rejected;
        if (!taken.accepted)
          return stepFailed(deck, fields, mesh, centres, step, now + taken.dt,
                            taken.reason, output.rewritesInPlace());
        if (!taken.reason.empty()) log::info("step %d: %s", step, taken.reason.c_str());
        if (taken.rejected > 0)
          log::debug("step %d: %d tries rejected before dt = %.6g (error %.3g)", step,
                     taken.rejected, taken.dt, taken.error);
        thisDt = taken.dt;
        now = taken.dt >= left ? deck.end : now + taken.dt;
        tally.smallestDt = tally.steps == 0 ? thisDt : std::min(tally.smallestDt, thisDt);
        tally.largestDt = std::max(tally.largestDt, thisDt);
        ++tally.steps;
        report = taken.last;
        report.totalIterations = int(taken.linearIterations);
      } else {
        thisDt = schedule.stepDt();
        const std::string& scheme = deck.schemeOf(step);
        if (!deck.schedule.empty() &&
            (step == firstStep || scheme != deck.schemeOf(step - 1)))
          log::info("step %d: %s steps from here (schedule)", step, scheme.c_str());
        report = problem->step(thisDt, scheme);
        if (!report.converged)
          return stepFailed(deck, fields, mesh, centres, step, schedule.time() + thisDt,
                            report.reason, output.rewritesInPlace());
        schedule.advance();
        now = schedule.time();
      }
      const auto statistics = output.record(step, now, thisDt, report, deck.steps);
      for (const auto& s : statistics)
        if (!std::isfinite(s.integral))
          return stepFailed(deck, fields, mesh, centres, step, now, "",
                            output.rewritesInPlace());
      integral = statistics[std::size_t(deck.checkVariable)].integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, now);
      if (deck.pngEvery > 0 && step % deck.pngEvery == 0) output.writePng(step);
      lastStep = step;
      if (deck.checkpointEvery > 0 && step % deck.checkpointEvery == 0) {
        writeCheckpoint(
            directory + "/checkpoint.h5",
            checkpointOf(
                deck, fields, step, now, adaptive ? nextDt : schedule.dt(),
                adaptive ? adaptive->errorHistory() : std::array<double, 2>{1, 1},
                output.sync()));
        log::debug("checkpoint        %s/checkpoint.h5: step %d, t = %.10g",
                   directory.c_str(), step, now);
      }
    }
    if (adaptive && tally.steps > 0)
      log::info("adaptive          %d steps, %d tries rejected, dt from %.6g to %.6g",
                tally.steps, tally.rejected, tally.smallestDt, tally.largestDt);
  }
  if (deck.vtkEvery == 0 || lastStep % deck.vtkEvery != 0) output.writeVtk(lastStep, now);
  if (deck.pngEvery == 0 || lastStep % deck.pngEvery != 0) output.writePng(lastStep);
  output.finish();
  if (cut) {
    std::printf(
        "stopped           after %lld steps (--max-steps), at step %d, t = %.10g; "
        "no [check] before the run's end\n",
        options.maxSteps, lastStep, now);
    return 0;
  }
  return checkResult(deck, checked, centres, now, integral0, integral);
}

/// "crank-nicolson", or a schedule's stages: "crank-nicolson x 99, backward-euler x 1".
std::string schemeText(const Deck& deck) {
  if (deck.schedule.empty()) return deck.timeScheme;
  std::string text;
  for (const auto& stage : deck.schedule)
    text +=
        (text.empty() ? "" : ", ") + stage.scheme + " x " + std::to_string(stage.steps);
  return text;
}

int checkDeck(const Deck& deck) {
  const std::string memory = validateDeck(deck);
  bool printing = true;
#ifdef KFVM_DECKS_WITH_MPI
  if (mpiWorldSize() > 1) {  // every rank checks; rank 0 prints
    checkAcrossRanks(deck);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printing = rank == 0;
  }
#endif
  if (!printing) return exitOk;
  std::printf("%s: ok\n  mesh %dD, %lld cells; variables %s%s; %s; solver %s; %s\n",
              deck.path.c_str(), deck.dimension, deck.numCells(), deck.runName().c_str(),
              deck.isCoupled() ? " (coupled)" : "",
              deck.steady ? "steady" : ("time " + schemeText(deck)).c_str(),
              deck.solver.c_str(),
              !deck.hasCheck       ? "no check"
              : deck.exact.empty() ? "integral checked"
                                   : "checked against an exact solution");
  std::printf("%s\n", memory.c_str());
  return 0;
}

void addDeckCommands(CLI::App& app, CommandContext& context) {
  auto deckPath = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run the problem a TOML deck describes");
  run->add_option("deck", *deckPath, "Deck file (see apps/decks/README.md)")->required();
  run->add_option("--output", options->output,
                  "Output folder (replaces [output] directory)");
  run->add_option("--restart", options->restart,
                  "Go on from a checkpoint ([output] checkpoint_every writes them)");
  run->add_option("--max-steps", options->maxSteps,
                  "Stop after this many steps (a short run; its [check] is not made)")
      ->check(CLI::Range(1LL, maxSteps));
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
