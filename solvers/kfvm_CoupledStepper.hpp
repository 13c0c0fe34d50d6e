#ifndef KFVM_COUPLED_STEPPER_HPP
#define KFVM_COUPLED_STEPPER_HPP

#include <kfvm_CoupledSystem.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include <memory>
#include <vector>

namespace kfvm {

/// Backward-Euler steps and steady solves of a CoupledSystem, with Newton sweeps when a
/// source is nonlinear. The block matrix is non-symmetric: use "gmres" or "bicgstab".
/// Work vectors are allocated on construction, the solver's on the first step's own
/// matrix; later steps allocate nothing on the device.
template <class ExecSpace>
class CoupledStepper {
 public:
  CoupledStepper(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// fields: one per variable, in the system's order; they hold the new values after.
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt);
  /// A step from the values `previous` (one per variable; FiPy's var.old), starting the
  /// solve (and the iterate of sources that read it) from fields' current values.
  StepReport step(std::vector<CellField<ExecSpace>>& fields,
                  const std::vector<CellField<ExecSpace>>& previous, Real dt);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  /// At most maxSweeps, until ||b - A x|| / ||b|| <= tolerance (defaults 50, 1e-10).
  void setSweeps(int maxSweeps, Real tolerance);
  const CoupledSystem<ExecSpace>& system() const { return system_; }

 private:
  StepReport solve(std::vector<CellField<ExecSpace>>& fields, Real invDt,
                   bool previousPacked);

  CoupledSystem<ExecSpace> system_;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;
  Vector<ExecSpace> previous_, x_, rhs_, work_;
  int maxSweeps_ = 50;
  Real tolerance_ = Real(1e-10);
};

}  // namespace kfvm

#endif
