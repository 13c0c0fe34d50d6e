#ifndef KFVM_COUPLED_STEPPER_HPP
#define KFVM_COUPLED_STEPPER_HPP

#include <kfvm_CoupledSystem.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_MatrixOperator.hpp>

#include <memory>
#include <vector>

namespace kfvm {

/// Implicit steps (backward Euler or Crank-Nicolson) and steady solves of a
/// CoupledSystem, with Newton sweeps when a source is nonlinear. The block matrix is
/// non-symmetric: use "gmres" or "bicgstab". Work vectors are allocated on construction,
/// the solver's on the first step's own matrix; later steps allocate nothing on the
/// device.
///
/// Crank-Nicolson weighs the equations' right-hand sides R (everything but the transient
/// term) half at the new values and half at the old: M (phi - phi_old) / dt = R(phi) / 2
/// + R(phi_old) / 2, R(phi_old) from one steady assembly at phi_old per step. An
/// equation without a transient term (Cahn-Hilliard's mu) is a constraint and holds at
/// the new values alone, as with backward Euler; R(phi_old) reads the old values of
/// such a variable, which satisfy their constraint after any step (start them on it, or
/// take the first step by backward Euler).
template <class ExecSpace>
class CoupledStepper {
 public:
  CoupledStepper(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// fields: one per variable, in the system's order; they hold the new values after.
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  /// A step from the values `previous` (one per variable; FiPy's var.old), starting the
  /// solve (and the iterate of sources that read it) from fields' current values.
  StepReport step(std::vector<CellField<ExecSpace>>& fields,
                  const std::vector<CellField<ExecSpace>>& previous, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  /// At most maxSweeps, until ||b - A x|| / ||b|| <= tolerance (defaults 50, 1e-10).
  void setSweeps(int maxSweeps, Real tolerance);
  const CoupledSystem<ExecSpace>& system() const { return system_; }
  LinearSolver<ExecSpace>& solver() { return *solver_; }
  /// The solver from the next solve on; throws kfvm::Error for none.
  void setSolver(std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// Solves across ranks from now on (as ImplicitStepper::distributeOver): the system is
  /// on one rank's ghosted mesh, and distribution (which must outlive the stepper;
  /// nullptr: this process alone) exchanges the block vectors' ghosts, gives the
  /// distributed operator of the block matrix and runs the linear solves. The fields'
  /// ghosts hold the owners' values after each step.
  void distributeOver(SolveDistribution<ExecSpace>* distribution) {
    distribution_ = distribution;
  }

 private:
  StepReport solve(std::vector<CellField<ExecSpace>>& fields, Real invDt,
                   bool previousPacked, Real theta);
  /// explicit_ = R(previous_) on the rows of equations with a transient term, 0 on the
  /// others (one steady assembly at previous_).
  void explicitPart();
  /// ||b - A x|| / ||b|| of the last assembly (over every rank when distributed).
  double residual();
  /// The linear solve of the last assembly into x_.
  SolverReport solveLinear();

  CoupledSystem<ExecSpace> system_;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;
  MatrixOperator<ExecSpace> matrixOperator_;  // the block matrix, one process
  Vector<ExecSpace> previous_, x_, rhs_, work_;
  Vector<ExecSpace> explicit_, transientRows_;  // Crank-Nicolson; 1 or 0 per entry
  int maxSweeps_ = 50;
  Real tolerance_ = Real(1e-10);
  SolveDistribution<ExecSpace>* distribution_ = nullptr;
};

}  // namespace kfvm

#endif
