#include <kfvm_AdaptiveStepper.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <algorithm>
#include <cmath>

namespace kfvm {

namespace Details {

/// max |a - b|
template <class ExecSpace>
struct LargestDifference {
  Vector<ExecSpace> a, b;
  KOKKOS_FUNCTION void operator()(Ordinal i, Real& largest) const {
    const Real d = Compat::abs(a(i) - b(i));
    if (d > largest || d != d) largest = d;  // a NaN wins
  }
};

/// max |a|
template <class ExecSpace>
struct LargestMagnitude {
  Vector<ExecSpace> a;
  KOKKOS_FUNCTION void operator()(Ordinal i, Real& largest) const {
    const Real m = Compat::abs(a(i));
    if (m > largest || m != m) largest = m;
  }
};

template <class Functor, class ExecSpace>
Real largest(const char* label, Ordinal n, const Functor& functor) {
  Real result = 0;
  Kokkos::parallel_reduce(label, indexRange(ExecSpace(), n), functor,
                          Kokkos::Max<Real>(result));
  return std::max(result, Real(0));  // Max starts at the lowest Real: an empty field
}

}  // namespace Details

template <class ExecSpace>
AdaptiveStepper<ExecSpace>::AdaptiveStepper(const Mesh<ExecSpace>& mesh,
                                            StepFunction step, int order,
                                            AdaptiveOptions options)
    : mesh_(&mesh), step_(std::move(step)), order_(order), options_(options) {
  require(bool(step_), "adaptive stepping: no step function");
  require(order == 1 || order == 2,
          "adaptive stepping: the scheme's order must be 1 or 2, got ", order);
  options_.validate();
}

template <class ExecSpace>
AdaptiveStepper<ExecSpace>::AdaptiveStepper(ImplicitStepper<ExecSpace>& stepper,
                                            TimeScheme scheme, AdaptiveOptions options)
    : AdaptiveStepper(
          stepper.assembler().equation().mesh(),
          [&stepper, scheme](std::vector<CellField<ExecSpace>>& fields, Real dt) {
            require(fields.size() == 1,
                    "adaptive stepping of one equation: one field, got ", fields.size());
            return stepper.step(fields[0], dt, scheme);
          },
          scheme == TimeScheme::CrankNicolson ? 2 : 1, options) {}

template <class ExecSpace>
AdaptiveStepper<ExecSpace>::AdaptiveStepper(CoupledStepper<ExecSpace>& stepper,
                                            AdaptiveOptions options, TimeScheme scheme)
    : AdaptiveStepper(
          stepper.system().mesh(),
          [&stepper, scheme](std::vector<CellField<ExecSpace>>& fields, Real dt) {
            return stepper.step(fields, dt, scheme);
          },
          scheme == TimeScheme::CrankNicolson ? 2 : 1, options) {}

template <class ExecSpace>
void AdaptiveStepper<ExecSpace>::setMaxOverProcesses(Reduction maxOverProcesses) {
  maxOverProcesses_ = std::move(maxOverProcesses);
}

template <class ExecSpace>
void AdaptiveStepper<ExecSpace>::allocate(
    const std::vector<CellField<ExecSpace>>& fields) {
  require(!fields.empty(), "adaptive stepping: no fields to step");
  for (const auto& field : fields) field.requireOn(*mesh_, "adaptive stepping");
  if (start_.size() == fields.size()) return;
  start_.clear();
  big_.clear();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    start_.emplace_back(*mesh_, "AdaptiveStepper::start");
    big_.emplace_back(*mesh_, "AdaptiveStepper::big");
  }
}

template <class ExecSpace>
double AdaptiveStepper<ExecSpace>::normalizedError(
    const std::vector<CellField<ExecSpace>>& fields) const {
  const double richardson = order_ == 1 ? 1.0 : 3.0;  // 2^p - 1
  largest_.resize(2 * fields.size());  // sized on the first step, then reused
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const Ordinal n = fields[f].size();
    largest_[2 * f] = Details::largest<Details::LargestDifference<ExecSpace>, ExecSpace>(
        "kfvm::AdaptiveStepper::difference", n,
        Details::LargestDifference<ExecSpace>{fields[f].values(), big_[f].values()});
    largest_[2 * f + 1] =
        Details::largest<Details::LargestMagnitude<ExecSpace>, ExecSpace>(
            "kfvm::AdaptiveStepper::magnitude", n,
            Details::LargestMagnitude<ExecSpace>{fields[f].values()});
  }
  if (maxOverProcesses_) {
    for (double& value : largest_)  // NaN would not survive a maximum
      if (!std::isfinite(value)) value = std::numeric_limits<double>::infinity();
    maxOverProcesses_(largest_.data(), int(largest_.size()));
  }
  double worst = 0;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const double difference = largest_[2 * f], magnitude = largest_[2 * f + 1];
    const double allowed = options_.absoluteTolerance + options_.tolerance * magnitude;
    const double error = difference / richardson;
    if (!std::isfinite(error) || !std::isfinite(magnitude))
      return std::numeric_limits<double>::infinity();
    // allowed = 0 (a field at 0 with only a relative tolerance): any change is too much,
    // none is exact.
    worst = std::max(worst, allowed > 0
                                ? error / allowed
                                : (error > 0 ? std::numeric_limits<double>::max() : 0.0));
  }
  return worst;
}

template <class ExecSpace>
double AdaptiveStepper<ExecSpace>::proposal(double dt, double error) const {
  // e = 0 (exact) or tiny: grow as fast as allowed.
  const double e = std::max(error, 1e-10);
  const double factor =
      std::pow(history_[0] / e, options_.proportional) *
      std::pow(1 / e, options_.integral) *
      std::pow(history_[0] * history_[0] / (e * history_[1]), options_.derivative);
  const double bounded = std::clamp(std::isfinite(factor) ? factor : options_.maxGrowth,
                                    options_.minShrink, options_.maxGrowth);
  return std::clamp(dt * bounded, options_.dtMin, options_.dtMax);
}

template <class ExecSpace>
AdaptiveStepReport AdaptiveStepper<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields, double dt) {
  require(std::isfinite(dt) && dt > 0, "adaptive step: dt must be finite and > 0, got ",
          dt);
  allocate(fields);
  dt = std::min(dt, options_.dtMax);  // below dtMin only when asked (a last sliver)
  const ExecSpace space;
  for (std::size_t f = 0; f < fields.size(); ++f)
    Kokkos::deep_copy(space, start_[f].values(), fields[f].values());
  AdaptiveStepReport report;
  for (;;) {
    // One step of dt, then two of dt / 2 from the same start (kept if accepted).
    for (std::size_t f = 0; f < fields.size(); ++f)
      Kokkos::deep_copy(space, big_[f].values(), start_[f].values());
    const StepReport whole = step_(big_, Real(dt));
    StepReport first, second;
    if (whole.converged) first = step_(fields, Real(dt / 2));
    if (whole.converged && first.converged) second = step_(fields, Real(dt / 2));
    report.linearIterations +=
        whole.totalIterations + first.totalIterations + second.totalIterations;
    const bool solved = whole.converged && first.converged && second.converged;
    const double error = solved ? normalizedError(fields) : 0;
    const bool atMinimum = dt <= options_.dtMin;
    report.last = second.converged ? second : (first.converged ? whole : first);
    if (solved && (error <= 1 || atMinimum)) {
      report.accepted = true;
      report.dt = dt;
      report.error = error;
      report.dtNext = proposal(dt, error);
      if (error > 1)
        report.reason =
            Details::concatenate("taken at dt_min = ", options_.dtMin, " with error ",
                                 error, " times the allowed one");
      history_[1] = history_[0];
      history_[0] = std::max(error, 1e-10);
      return report;
    }
    for (std::size_t f = 0; f < fields.size(); ++f)
      Kokkos::deep_copy(space, fields[f].values(), start_[f].values());
    const std::string why =
        solved ? Details::concatenate("error ", error, " times the allowed one")
               : Details::concatenate(
                     "a solve did not converge (",
                     !whole.converged ? whole.reason
                                      : (!first.converged ? first.reason : second.reason),
                     ")");
    if (atMinimum || report.rejected >= options_.maxRejections) {
      report.dt = dt;
      report.reason = Details::concatenate(
          "adaptive step failed at dt = ", dt,
          atMinimum ? " (dt_min)"
                    : Details::concatenate(" after ", report.rejected, " rejected tries"),
          ": ", why);
      return report;
    }
    ++report.rejected;
    const double shrink =
        solved ? std::max(options_.minShrink,
                          std::min(0.8, 0.9 * std::pow(error, -1.0 / (order_ + 1))))
               : std::max(options_.minShrink, 0.5);
    dt = std::max(dt * shrink, options_.dtMin);
  }
}

template <class ExecSpace>
void AdaptiveStepper<ExecSpace>::setErrorHistory(const std::array<double, 2>& history) {
  for (double e : history)
    require(std::isfinite(e) && e > 0, "adaptive stepping: error history must be finite ",
            "and > 0, got ", history[0], ", ", history[1]);
  history_[0] = history[0];
  history_[1] = history[1];
}

template <class ExecSpace>
AdaptiveStepReport AdaptiveStepper<ExecSpace>::step(CellField<ExecSpace>& phi,
                                                    double dt) {
  std::vector<CellField<ExecSpace>> fields{phi};  // shares phi's values
  return step(fields, dt);
}

template <class ExecSpace>
AdaptiveStepReport AdaptiveStepper<ExecSpace>::stepTowards(
    std::vector<CellField<ExecSpace>>& fields, double left, double& proposal) {
  require(left > 0 && std::isfinite(left),
          "adaptive step: the time left must be finite and > 0, got ", left);
  const double tryDt =
      proposal >= left || left - proposal < options_.dtMin ? left : proposal;
  AdaptiveStepReport report = step(fields, tryDt);
  if (report.accepted)
    proposal = report.dt < tryDt || tryDt == proposal ? report.dtNext
                                                      : std::max(report.dtNext, proposal);
  return report;
}

template <class ExecSpace>
AdaptiveRunReport AdaptiveStepper<ExecSpace>::advance(
    std::vector<CellField<ExecSpace>>& fields, double time, double end, double dt) {
  require(std::isfinite(time) && std::isfinite(end) && end >= time,
          "adaptive run: needs finite times with end >= start, got ", time, " to ", end);
  AdaptiveRunReport run;
  run.time = time;
  run.dtNext = dt;
  const double landing = 1e-12 * std::max(std::abs(end), std::abs(end - time));
  while (end - run.time > landing) {
    const double left = end - run.time;
    const AdaptiveStepReport step = stepTowards(fields, left, run.dtNext);
    run.rejected += step.rejected;
    run.linearIterations += step.linearIterations;
    if (!step.accepted) {
      run.reason = step.reason;
      return run;
    }
    run.time = step.dt >= left ? end : run.time + step.dt;
    ++run.steps;
    run.smallestDt = run.steps == 1 ? step.dt : std::min(run.smallestDt, step.dt);
    run.largestDt = std::max(run.largestDt, step.dt);
    run.largestError = std::max(run.largestError, step.error);
  }
  run.completed = true;
  return run;
}

template <class ExecSpace>
AdaptiveRunReport AdaptiveStepper<ExecSpace>::advance(CellField<ExecSpace>& phi,
                                                      double time, double end,
                                                      double dt) {
  std::vector<CellField<ExecSpace>> fields{phi};
  return advance(fields, time, end, dt);
}

#define KFVM_INSTANTIATE_ADAPTIVE(Space) template class AdaptiveStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_ADAPTIVE)

}  // namespace kfvm
