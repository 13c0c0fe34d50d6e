// The steps of a deck's run (kfvm_RunLoop.hpp), on one process and across MPI ranks.
#include "kfvm_RunLoop.hpp"
#include <kfvm_Checkpoint.hpp>
#include "kfvm_DeckSetup.hpp"
#include "kfvm_ExitStatus.hpp"
#include "kfvm_Log.hpp"

#include <kfvm_AdaptiveStepper.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

/// Where a cell is, for a message: its index on one process, its centre (and the rank)
/// across ranks, where local indices mean nothing to the user.
std::string cellText(Ordinal cell, const std::array<double, 3>& p,
                     const RunRanks* ranks) {
  const std::string centre =
      Details::concatenate("(x = ", p[0], ", y = ", p[1], ", z = ", p[2], ")");
  return ranks ? Details::concatenate("the cell at ", centre, " on rank ", ranks->rank)
               : Details::concatenate("cell ", cell, " ", centre);
}

/// Throws when a field holds NaN or inf: the message names the variable, the cell, its
/// centre and `when` ("initially", "in checkpoint '...'"). Across ranks, on every rank.
void requireFinite(const Deck& deck, const std::vector<CellField<Space>>& fields,
                   const RunParts& parts, const std::string& when) {
  onEveryRank(parts.ranks, [&] {
    for (std::size_t v = 0; v < fields.size(); ++v) {
      const NonFinite bad = firstNonFinite(fields[v]);
      if (bad.cell < 0) continue;
      fail(deck.path, ": ", deck.variables[v].name, " is ", bad.value, " ", when, " at ",
           cellText(bad.cell, parts.centres[std::size_t(bad.cell)], parts.ranks));
    }
  });
}

/// The checkpoint after `step` at `time`, with the next step's dt and the adaptive
/// controller's error history; across ranks without values (each rank writes its block).
CheckpointState checkpointOf(const Deck& deck,
                             const std::vector<CellField<Space>>& fields,
                             const RunRanks* ranks, int step, double time, double dt,
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
    if (ranks) continue;
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields[v].values());
    state.values.emplace_back(values.data(), values.data() + values.extent(0));
  }
  return state;
}

/// Checks that a checkpoint belongs to this deck: the same mesh and variables, a step
/// within the run, and the time and dt the deck's schedule has at that step, bit for bit
/// (an adaptive run's: a time within the run).
void checkRestart(const CheckpointState& state, const std::string& path, const Deck& deck,
                  TimeSchedule& schedule) {
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
}

/// Takes the fields of a checkpoint after checking it belongs to this deck. Across
/// ranks the checkpoint may come from any number of ranks, one process included.
/// Returns the checkpoint (its step, time, dt, controller history and CSV sizes).
CheckpointState restartFrom(const std::string& path, const Deck& deck,
                            std::vector<CellField<Space>>& fields, const RunParts& parts,
                            TimeSchedule& schedule) {
  require(!deck.steady, deck.path, ": a steady run has no steps to restart");
  CheckpointState state;
  onEveryRank(parts.ranks, [&] {
    state = parts.ranks ? parts.ranks->readCheckpoint(path) : readCheckpoint(path);
    checkRestart(state, path, deck, schedule);
  });
  for (std::size_t v = 0; v < fields.size() && !parts.ranks; ++v)
    fields[v].fromHost(state.values[v]);
  requireFinite(deck, fields, parts, "in checkpoint '" + path + "'");
  log::info("restart           from %s: step %d, t = %.10g", path.c_str(), state.step,
            state.time);
  return state;
}

/// A step's failure: the variable that became NaN or inf if one did, else the solver's
/// reason with the range of every variable (a diverging run shows there). Across ranks
/// every rank calls it (the reductions), rank 0 prints.
int stepFailed(const Deck& deck, const std::vector<CellField<Space>>& fields,
               const RunParts& parts, const RunOutput& output, int step, double time,
               const std::string& reason, bool newLine) {
  const bool prints = !parts.ranks || parts.ranks->rank == 0;
  if (newLine && prints) std::printf("\n");
  const auto statistics = output.statistics();
  std::string ranges;
  for (std::size_t v = 0; v < fields.size(); ++v) {
    if (std::isfinite(statistics[v].integral)) {
      ranges +=
          Details::concatenate(v ? ", " : "; ", deck.variables[v].name, " in [",
                               statistics[v].minimum, ", ", statistics[v].maximum, "]");
      continue;
    }
    std::string where;  // one process: the first cell, NaN or inf
    const NonFinite bad = parts.ranks ? NonFinite{} : firstNonFinite(fields[v]);
    if (bad.cell >= 0)
      where = Details::concatenate(
          std::isnan(bad.value) ? " NaN" : " inf", ", first at ",
          cellText(bad.cell, parts.centres[std::size_t(bad.cell)], nullptr));
    if (prints)
      log::error("kfvm run: %s became%s at step %d (t = %.10g)%s%s%s",
                 deck.variables[v].name.c_str(), where.empty() ? " NaN or inf" : "", step,
                 time, where.c_str(),
                 reason.empty() ? "" : "; the solver said: ", reason.c_str());
    return exitSolveFailed;
  }
  if (prints)
    log::error("kfvm run: step %d (t = %.10g) failed: %s%s", step, time, reason.c_str(),
               ranges.c_str());
  return exitSolveFailed;
}

}  // namespace

std::string deckFingerprint(const Deck& deck) {
  if (!deck.isCartesian())
    return Details::concatenate("mesh ", deck.dimension, "D '", deck.meshFile, "', ",
                                deck.numCells(), " cells; variables ", deck.runName());
  std::string text = Details::concatenate("mesh ", deck.dimension, "D");
  for (int a = 0; a < deck.dimension; ++a)
    text += Details::concatenate(a ? " x " : " ", deck.cells[a]);
  text += " cells, length";
  for (int a = 0; a < deck.dimension; ++a)
    text += Details::concatenate(a ? " x " : " ", deck.length[a]);
  return text + "; variables " + deck.runName();
}

int runProblem(const Deck& deck, const RunOptions& options, const RunParts& parts) {
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  const RunRanks* ranks = parts.ranks;
  const bool prints = !ranks || ranks->rank == 0;
  DeckProblem& problem = parts.problem;
  auto& fields = problem.fields();
  requireFinite(deck, fields, parts, "initially");
  TimeSchedule schedule(deck);
  int firstStep = 1;
  OutputResume resume;
  // An adaptive run's clock: the time, the next step's first try and the controller.
  double now = 0, nextDt = deck.dt;
  std::array<double, 2> errorHistory{1, 1};
  if (!options.restart.empty()) {
    const CheckpointState state =
        restartFrom(options.restart, deck, fields, parts, schedule);
    firstStep = state.step + 1;
    resume = {state.time, state.seriesBytes, state.probesBytes};
    now = state.time;
    nextDt = state.dt;
    errorHistory = state.errorHistory;
  }
  const bool restarted = !options.restart.empty();
  RunOutput output(deck, directory, parts.mesh, fields, resume, ranks);
  const auto& checked = fields[std::size_t(deck.checkVariable)];
  const double integral0 = output.statistics()[std::size_t(deck.checkVariable)].integral;
  double integral = integral0;
  int lastStep = firstStep - 1;
  bool cut = false;  // --max-steps ended the run before its end
  if (!restarted) {
    output.writeVtk(0, 0);
    output.writePng(0);
  }
  const auto failed = [&](int step, double time, const std::string& reason) {
    return stepFailed(deck, fields, parts, output, step, time, reason,
                      output.rewritesInPlace());
  };
  if (deck.steady) {
    const auto report = problem.solveSteady();
    if (!report.converged) return failed(0, 0, "steady solve: " + report.reason);
    const auto statistics = output.record(0, 0, 0, report, 1);
    for (const auto& s : statistics)
      if (!std::isfinite(s.integral)) return failed(0, 0, "");
    integral = statistics[std::size_t(deck.checkVariable)].integral;
  } else {
    std::unique_ptr<AdaptiveStepper<Space>> adaptive;
    if (deck.adaptive) {
      const auto scheme = timeSchemeFromName(deck.timeScheme);  // implicit (readDeck)
      adaptive = std::make_unique<AdaptiveStepper<Space>>(
          parts.mesh,
          [&problem, scheme](std::vector<CellField<Space>>& trial, Real dt) {
            return problem.step(trial, dt, scheme);
          },
          scheme == TimeScheme::CrankNicolson ? 2 : 1, deck.adaptiveOptions);
      adaptive->setErrorHistory(errorHistory);
      if (ranks)  // every rank accepts, rejects and proposes alike
        adaptive->setMaxOverProcesses(
            [ranks](double* values, int count) { ranks->reduce(values, count, true); });
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
        if (!taken.accepted) return failed(step, now + taken.dt, taken.reason);
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
        report = problem.step(thisDt, scheme);
        if (!report.converged)
          return failed(step, schedule.time() + thisDt, report.reason);
        schedule.advance();
        now = schedule.time();
      }
      const auto statistics = output.record(step, now, thisDt, report, deck.steps);
      for (const auto& s : statistics)
        if (!std::isfinite(s.integral)) return failed(step, now, "");
      integral = statistics[std::size_t(deck.checkVariable)].integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, now);
      if (deck.pngEvery > 0 && step % deck.pngEvery == 0) output.writePng(step);
      lastStep = step;
      if (deck.checkpointEvery > 0 && step % deck.checkpointEvery == 0) {
        const std::string path = directory + "/checkpoint.h5";
        const CheckpointState state = checkpointOf(
            deck, fields, ranks, step, now, adaptive ? nextDt : schedule.dt(),
            adaptive ? adaptive->errorHistory() : std::array<double, 2>{1, 1},
            output.sync());
        if (ranks)
          ranks->writeCheckpoint(path, state);
        else
          writeCheckpoint(path, state);
        log::debug("checkpoint        %s: step %d, t = %.10g", path.c_str(), step, now);
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
    if (prints)
      std::printf(
          "stopped           after %lld steps (--max-steps), at step %d, t = %.10g; "
          "no [check] before the run's end\n",
          options.maxSteps, lastStep, now);
    return exitOk;
  }
  return checkResult(deck, checked, parts.centres, now, integral0, integral, ranks);
}

}  // namespace kfvm::app
