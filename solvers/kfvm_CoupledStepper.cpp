#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_Sweeps.hpp"

#include <cmath>

namespace kfvm {

template <class ExecSpace>
CoupledStepper<ExecSpace>::CoupledStepper(const CoupledSystem<ExecSpace>& system,
                                          std::unique_ptr<LinearSolver<ExecSpace>> solver)
    : system_(system),
      solver_(std::move(solver)),
      previous_("kfvm::CoupledStepper::previous", system.size()),
      x_("kfvm::CoupledStepper::x", system.size()),
      rhs_("kfvm::CoupledStepper::rhs", system.size()),
      work_("kfvm::CoupledStepper::work", system.size()) {
  require(solver_ != nullptr, "CoupledStepper needs a linear solver, got none");
  system_.validate();
  // The solver is set up by the first solve, on that step's own matrix: a trial
  // assembly at 1/dt = 1 is singular for rho dphi/dt = c phi with c = rho.
}

template <class ExecSpace>
void CoupledStepper<ExecSpace>::setSweeps(int maxSweeps, Real tolerance) {
  require(maxSweeps >= 1, "maxSweeps must be at least 1, got ", maxSweeps);
  require(tolerance > 0 && std::isfinite(tolerance),
          "sweep tolerance must be positive and finite, got ", tolerance);
  maxSweeps_ = maxSweeps;
  tolerance_ = tolerance;
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::step(std::vector<CellField<ExecSpace>>& fields,
                                           Real dt) {
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  return solve(fields, Real(1) / dt, false);
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields,
    const std::vector<CellField<ExecSpace>>& previous, Real dt) {
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  system_.pack(previous, previous_);
  return solve(fields, Real(1) / dt, true);
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return solve(fields, Real(0), false);
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::solve(std::vector<CellField<ExecSpace>>& fields,
                                            Real invDt, bool previousPacked) {
  system_.checkValues();
  system_.pack(fields, x_);
  if (!previousPacked) Blas::copy(x_, previous_);
  const bool sweeping = system_.isNonlinear();
  StepReport report;
  report.sweeps = 0;
  for (int sweep = 1; sweep <= (sweeping ? maxSweeps_ : 1); ++sweep) {
    system_.assemble(invDt, previous_, x_, rhs_);
    if (sweeping) {
      const double residual =
          Details::relativeResidual(system_.matrix(), x_, rhs_, work_);
      report.sweepResiduals.push_back(residual);
      if (sweep > 1 && residual <= double(tolerance_)) {
        system_.unpack(x_, fields);
        return report;
      }
    }
    solver_->setMatrix(system_.matrix(), system_.numVariables());
    const SolverReport linear = solver_->solve(rhs_, x_);
    const int total = report.totalIterations + linear.iterations;
    static_cast<SolverReport&>(report) = linear;
    report.totalIterations = total;
    report.sweeps = sweep;
    if (!linear.converged) break;
  }
  if (sweeping && report.converged) {
    system_.assemble(invDt, previous_, x_, rhs_);
    const double residual = Details::relativeResidual(system_.matrix(), x_, rhs_, work_);
    report.sweepResiduals.push_back(residual);
    if (residual > double(tolerance_)) {
      report.converged = false;
      report.reason =
          Details::sweepFailureReason(residual, maxSweeps_, double(tolerance_));
    }
  }
  system_.unpack(x_, fields);
  return report;
}

#define KFVM_INSTANTIATE_COUPLED_STEPPER(Space) template class CoupledStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_COUPLED_STEPPER)

}  // namespace kfvm
