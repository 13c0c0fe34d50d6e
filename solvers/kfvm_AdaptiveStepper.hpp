#ifndef KFVM_ADAPTIVE_STEPPER_HPP
#define KFVM_ADAPTIVE_STEPPER_HPP

#include <kfvm_AdaptiveOptions.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace kfvm {

/// One accepted step (or a failed one: accepted false, fields back at the step's start).
struct AdaptiveStepReport {
  bool accepted = false;
  double dt = 0;      ///< the step taken
  double dtNext = 0;  ///< the controller's proposal for the next step
  double error =
      0;  ///< estimated local error over the allowed one (<= 1 unless at dtMin)
  int rejected = 0;  ///< tries rejected before this one (error too large, or a solve
                     ///< that did not converge)
  long long linearIterations = 0;  ///< over every solve of every try
  std::string reason;              ///< why it failed, or that it was taken at dtMin
  StepReport last;                 ///< the last solve's report (of the accepted try)
};

/// What AdaptiveStepper::advance() did.
struct AdaptiveRunReport {
  bool completed = false;  ///< reached the end time
  double time = 0;         ///< where it stopped
  int steps = 0, rejected = 0;
  double smallestDt = 0, largestDt = 0, largestError = 0;
  double dtNext = 0;  ///< the controller's proposal after the last step
  long long linearIterations = 0;
  std::string reason;  ///< why it stopped early
};

/// Error-controlled time steps with rejection and retry, for any stepper: FiPy's
/// PIDStepper's controller (Valli, Carey and Coutinho, Int. J. Numer. Meth. Fluids 47,
/// 2005). The local error of a step of dt is estimated by step doubling: one step of
/// dt and two of dt/2 from the same start, their difference over 2^p - 1 (p the order
/// of the scheme: 1 backward Euler, 2 Crank-Nicolson); the two half steps are kept. A
/// step whose normalized error e exceeds 1 (or whose solves did not converge) is
/// rejected: the fields go back to the start and dt shrinks by max(minShrink, min(0.8,
/// 0.9 e^(-1/(p+1)))) (by half after a failed solve). After an accepted step the next dt
/// is dt (e_(n-1)/e_n)^kP (1/e_n)^kI (e_(n-1)^2/(e_n e_(n-2)))^kD, kept within
/// [minShrink, maxGrowth] times dt and [dtMin, dtMax]. Work fields are allocated on the
/// first step; later steps allocate nothing and copy only two scalars per field and try
/// to the host.
template <class ExecSpace>
class AdaptiveStepper {
 public:
  /// A step of dt applied in place to the fields, by a scheme of order `order`.
  using StepFunction =
      std::function<StepReport(std::vector<CellField<ExecSpace>>& fields, Real dt)>;

  /// fields live on mesh (which must outlive this).
  AdaptiveStepper(const Mesh<ExecSpace>& mesh, StepFunction step, int order,
                  AdaptiveOptions options = {});
  /// Steps of one equation by stepper (which must outlive this) with scheme.
  AdaptiveStepper(ImplicitStepper<ExecSpace>& stepper, TimeScheme scheme,
                  AdaptiveOptions options = {});
  /// Steps of a coupled system by stepper (which must outlive this) with scheme.
  AdaptiveStepper(CoupledStepper<ExecSpace>& stepper, AdaptiveOptions options = {},
                  TimeScheme scheme = TimeScheme::BackwardEuler);

  /// Combines values over processes by their maximum, in place (an MPI_Allreduce).
  using Reduction = std::function<void(double* values, int count)>;
  /// Fields that are one rank's part of distributed ones (a DistributedSystem's local
  /// mesh): each try's largest difference and magnitude are the maxima over every rank
  /// (maxOverProcesses: DistributedSystem::maxOverRanks()), so every rank accepts,
  /// rejects and proposes alike. Ghost cells may take part: they hold owners' values.
  void setMaxOverProcesses(Reduction maxOverProcesses);

  /// One accepted step, trying dt first (dt within [dtMin, dtMax]).
  AdaptiveStepReport step(std::vector<CellField<ExecSpace>>& fields, double dt);
  AdaptiveStepReport step(CellField<ExecSpace>& phi, double dt);
  /// One step of at most `left` (the time to the run's end), trying `proposal` first, or
  /// all of `left` when that is less or would leave a sliver under dtMin; proposal then
  /// becomes the next step's try (not shrunk by a step cut short to land on the end).
  AdaptiveStepReport stepTowards(std::vector<CellField<ExecSpace>>& fields, double left,
                                 double& proposal);
  /// Steps from time to end, the first try of dt; the last step is shortened to land
  /// on end (the controller's proposal is kept for a later run).
  AdaptiveRunReport advance(std::vector<CellField<ExecSpace>>& fields, double time,
                            double end, double dt);
  AdaptiveRunReport advance(CellField<ExecSpace>& phi, double time, double end,
                            double dt);

  /// Forgets the error history (a new run); the next proposal starts from e = 1.
  void reset() { history_[0] = history_[1] = 1; }
  /// The controller's error history (e_(n-1), e_(n-2)), which its next proposal reads:
  /// a checkpoint saves it, so that a restart takes the steps an uninterrupted run takes.
  std::array<double, 2> errorHistory() const { return {history_[0], history_[1]}; }
  /// Throws kfvm::Error unless both are finite and > 0.
  void setErrorHistory(const std::array<double, 2>& history);
  const AdaptiveOptions& options() const { return options_; }
  int order() const { return order_; }

 private:
  /// The normalized error of fields against the one-step result big_.
  double normalizedError(const std::vector<CellField<ExecSpace>>& fields) const;
  double proposal(double dt, double error) const;
  void allocate(const std::vector<CellField<ExecSpace>>& fields);

  const Mesh<ExecSpace>* mesh_;
  StepFunction step_;
  int order_;
  AdaptiveOptions options_;
  double history_[2] = {1, 1};  // e_(n-1), e_(n-2)
  std::vector<CellField<ExecSpace>> start_, big_;
  Reduction maxOverProcesses_;
  mutable std::vector<double> largest_;  // difference, magnitude per field
};

}  // namespace kfvm

#endif
