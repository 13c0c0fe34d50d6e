// A deck's [time] table (kfvm_Deck.hpp): steps or an end, dt and its growth, the scheme
// or a schedule of schemes, adaptive steps; and the schedule the run follows.
#include "kfvm_Deck.hpp"
#include "kfvm_DeckTableReader.hpp"

#include <kfvm_Error.hpp>
#include <kfvm_SchemeNames.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kfvm::app {

namespace {

/// [time] adaptive = { tolerance, absolute_tolerance, dt_min, max_growth, min_shrink,
/// proportional, integral, derivative, max_rejections }: AdaptiveOptions, with dt_max
/// from [time]. A run to `end`, dt its first try, without dt_growth.
void readAdaptive(TableReader adaptive, TableReader& time, Deck& deck) {
  if (deck.steps > 0)
    time.error(time.find("steps"), "steps",
               "an adaptive run goes to `end`; its steps are the controller's");
  if (deck.dtGrowth != 1)
    time.error(time.find("dt_growth"), "dt_growth",
               "an adaptive run's dt is the controller's: no dt_growth");
  AdaptiveOptions& o = deck.adaptiveOptions;
  o.tolerance = adaptive.number("tolerance", o.tolerance, 0, 1);
  o.absoluteTolerance = adaptive.number("absolute_tolerance", 0, 0, huge);
  o.dtMin = adaptive.number("dt_min", 0, 0, deck.dt);
  o.dtMax = deck.dtMax;
  o.maxGrowth = adaptive.number("max_growth", o.maxGrowth, 1, 100);
  o.minShrink = adaptive.number("min_shrink", o.minShrink, 1e-6, 0.99);
  o.proportional = adaptive.number("proportional", o.proportional, 0, 10);
  o.integral = adaptive.number("integral", o.integral, 0, 10);
  o.derivative = adaptive.number("derivative", o.derivative, 0, 10);
  o.maxRejections = adaptive.integer("max_rejections", o.maxRejections, 1, 1000);
  try {
    o.validate();
  } catch (const Error& e) {
    adaptive.error(nullptr, "adaptive", e.message());
  }
  adaptive.finish();
  deck.adaptive = true;
}

/// [time] schedule = [{ scheme = "...", steps = N }, ...]: at most one entry without
/// steps (it takes the steps the others leave, resolveSchedule()).
void readSchedule(TableReader& time, const toml::node& node,
                  const std::vector<std::string>& schemes, Deck& deck) {
  const toml::array* array = node.as_array();
  if (!array || array->empty() || !array->is_array_of_tables())
    time.error(&node, "schedule",
               "expected an array of tables like [{ scheme = \"crank-nicolson\", steps = "
               "9 }, { scheme = \"backward-euler\", steps = 1 }], got ",
               TableReader::show(node));
  bool rest = false;
  for (const toml::node& element : *array) {
    TableReader stage(deck.path, *element.as_table(), "time.schedule");
    SchemeStage entry;
    entry.scheme = stage.string("scheme", "", schemes, true);
    entry.steps = stage.integer("steps", 0, 1, int(maxSteps));
    if (entry.steps == 0) {
      if (rest)
        stage.error(nullptr, "steps",
                    "missing: only one entry of the schedule may leave out steps (it "
                    "takes the steps the others leave)");
      rest = true;
    }
    stage.finish();
    deck.schedule.push_back(entry);
  }
  deck.timeScheme = deck.schedule.front().scheme;
}

/// The schedule's steps against the run's: they must add up to totalSteps, the entry
/// without steps taking what the others leave (at least one).
void resolveSchedule(TableReader& time, Deck& deck) {
  long long given = 0;
  SchemeStage* rest = nullptr;
  for (auto& stage : deck.schedule) {
    given += stage.steps;
    if (stage.steps == 0) rest = &stage;
  }
  if (rest) {
    if (given >= deck.totalSteps)
      time.error(time.find("schedule"), "schedule", "its entries take ", given,
                 " steps, leaving none of the run's ", deck.totalSteps,
                 " for the entry without steps");
    rest->steps = deck.totalSteps - given;
  } else if (given != deck.totalSteps) {
    time.error(time.find("schedule"), "schedule", "its entries take ", given,
               " steps, the run takes ", deck.totalSteps);
  }
}

}  // namespace

void readTime(TableReader& time, Deck& deck) {
  deck.steady = time.boolean("steady", false);
  if (deck.steady) {
    time.finish();
    return;
  }
  const std::vector<std::string> schemes = {"backward-euler", "crank-nicolson",
                                            "forward-euler", "ssp-rk2"};
  deck.timeScheme = time.string("scheme", "backward-euler", schemes);
  if (const toml::node* node = time.find("schedule")) {
    if (time.find("scheme"))
      time.error(node, "schedule", "give either scheme or schedule (one of them)");
    readSchedule(time, *node, schemes, deck);
  }
  deck.dt = time.number("dt", 0, 1e-300, huge, true);
  deck.dtGrowth = time.number("dt_growth", 1, 1, 100);
  deck.dtMax = time.number("dt_max", huge, deck.dt, huge);
  deck.steps = time.integer("steps", 0, 1, 100000000);
  deck.end = time.number("end", 0, 1e-300, huge);
  if ((deck.steps > 0) == (deck.end > 0))
    time.error(nullptr, "steps", "give either steps or end (one of them)");
  if (const auto* adaptive = time.subtable("adaptive")) {
    if (!deck.schedule.empty() || isExplicitScheme(deck.timeScheme))
      time.error(time.find(deck.schedule.empty() ? "scheme" : "schedule"),
                 deck.schedule.empty() ? "scheme" : "schedule",
                 "adaptive steps take one implicit scheme (backward-euler or "
                 "crank-nicolson)");
    readAdaptive(TableReader(deck.path, *adaptive, "time.adaptive"), time, deck);
    time.finish();
    return;  // the steps are the controller's: maxSteps is checked as the run goes
  }
  // Bounded runs only: at most maxSteps steps, and dt and time finite all along. The
  // schedule is followed while dt grows; once dt is constant the rest is counted at once.
  TimeSchedule schedule(deck);
  long long steps = 0;
  while (!schedule.finished(steps + 1) && steps <= maxSteps) {
    if (schedule.dt() * deck.dtGrowth == schedule.dt() || schedule.dt() >= deck.dtMax) {
      const double left =
          deck.steps > 0
              ? double(deck.steps - steps)
              : std::ceil((deck.end - schedule.time()) / schedule.dt() * (1 - 1e-12));
      if (!std::isfinite(schedule.time() + left * schedule.dt())) {
        if (deck.dtGrowth > 1)
          time.error(time.find("dt_growth"), "dt_growth", "dt = ", deck.dt,
                     " growing by ", deck.dtGrowth, " reaches ", schedule.dt(),
                     " at step ", steps, " and time overflows: set dt_max");
        time.error(time.find("dt"), "dt", "dt = ", deck.dt, " over ", left,
                   " steps makes time overflow");
      }
      steps += (long long)std::min(left, double(maxSteps) + 1);
      break;
    }
    schedule.advance();
    ++steps;
    if (!std::isfinite(schedule.time()) || !std::isfinite(schedule.dt()))
      time.error(time.find("dt_growth"), "dt_growth", "dt = ", deck.dt, " growing by ",
                 deck.dtGrowth, " reaches ", schedule.dt(), " and time ", schedule.time(),
                 " at step ", steps, ": set dt_max");
  }
  if (steps > maxSteps)
    time.error(time.find("end"), "end", "end = ", deck.end, " with dt = ", deck.dt,
               deck.dtGrowth > 1 ? " (growing)" : "", " takes more than the ", maxSteps,
               " steps a run may take");
  deck.totalSteps = steps;
  if (!deck.schedule.empty()) resolveSchedule(time, deck);
  if (deck.isCoupled() && deck.hasExplicitSteps())
    time.error(time.find(deck.schedule.empty() ? "scheme" : "schedule"),
               deck.schedule.empty() ? "scheme" : "schedule",
               "explicit schemes step one-variable decks, not coupled ones (they take "
               "backward-euler or crank-nicolson)");
  time.finish();
}

bool isExplicitScheme(const std::string& scheme) {
  return scheme == "forward-euler" || scheme == "ssp-rk2";
}

const std::string& Deck::schemeOf(long long step) const {
  long long last = 0;
  for (const auto& stage : schedule) {
    last += stage.steps;
    if (step <= last) return stage.scheme;
  }
  return schedule.empty() ? timeScheme : schedule.back().scheme;
}

bool Deck::hasExplicitSteps() const {
  for (const auto& stage : schedule)
    if (isExplicitScheme(stage.scheme)) return true;
  return isExplicitScheme(timeScheme);
}

TimeSchedule::TimeSchedule(const Deck& deck) : deck_(&deck), dt_(deck.dt) {}

TimeSchedule TimeSchedule::after(const Deck& deck, long long steps) {
  TimeSchedule schedule(deck);
  for (long long s = 1; s <= steps && !schedule.finished(s); ++s) schedule.advance();
  return schedule;
}

bool TimeSchedule::finished(long long step) const {
  return deck_->steps > 0 ? step > deck_->steps : !(time_ < deck_->end * (1 - 1e-12));
}

double TimeSchedule::stepDt() const {
  return deck_->steps > 0 ? dt_ : std::min(dt_, deck_->end - time_);
}

void TimeSchedule::advance() {
  time_ += stepDt();
  dt_ = std::min(dt_ * deck_->dtGrowth, deck_->dtMax);
}

}  // namespace kfvm::app
