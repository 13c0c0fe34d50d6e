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
      work_("kfvm::CoupledStepper::work", system.size()),
      explicit_("kfvm::CoupledStepper::explicit", system.size()) {
  require(solver_ != nullptr, "CoupledStepper needs a linear solver, got none");
  system_.validate();
  const int n = system_.numVariables();
  std::vector<Real> transientRows(std::size_t(system_.size()));
  for (std::size_t i = 0; i < transientRows.size(); ++i)
    transientRows[i] = system_.hasTransient(int(i % std::size_t(n))) ? Real(1) : Real(0);
  transientRows_ =
      copyToDevice<Real, ExecSpace>(transientRows, "kfvm::CoupledStepper::transientRows");
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
void CoupledStepper<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "CoupledStepper needs a linear solver, got none");
  solver_ = std::move(solver);
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::step(std::vector<CellField<ExecSpace>>& fields,
                                           Real dt, TimeScheme scheme) {
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  return solve(fields, Real(1) / dt, false,
               scheme == TimeScheme::CrankNicolson ? Real(0.5) : Real(1));
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::step(
    std::vector<CellField<ExecSpace>>& fields,
    const std::vector<CellField<ExecSpace>>& previous, Real dt, TimeScheme scheme) {
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  system_.pack(previous, previous_);
  return solve(fields, Real(1) / dt, true,
               scheme == TimeScheme::CrankNicolson ? Real(0.5) : Real(1));
}

template <class ExecSpace>
double CoupledStepper<ExecSpace>::residual() {
  if (distribution_)
    return Details::relativeResidual(distribution_->linearOperator(), x_, rhs_, work_);
  return Details::relativeResidual(system_.matrix(), x_, rhs_, work_);
}

template <class ExecSpace>
SolverReport CoupledStepper<ExecSpace>::solveLinear() {
  if (distribution_) return distribution_->solve(*solver_, rhs_, x_);
  matrixOperator_.setMatrix(system_.matrix(), system_.numVariables());
  // The grid of the blocks, for "mg": none on a general mesh (nothing stale is kept).
  const Mesh<ExecSpace>& mesh = system_.mesh();
  solver_->setDiscretization(
      {nullptr, mesh.isCartesian() ? &mesh.grid() : nullptr, nullptr});
  solver_->setOperator(matrixOperator_);
  return solver_->solve(rhs_, x_);
}

template <class ExecSpace>
void CoupledStepper<ExecSpace>::explicitPart() {
  system_.assemble(Real(0), previous_, previous_, rhs_);
  multiply(system_.matrix(), previous_, work_);
  Blas::copy(rhs_, explicit_);
  Blas::axpby(Real(-1), work_, Real(1), explicit_);  // R(previous) = b - A previous
  Blas::multiplyElements(explicit_, transientRows_, explicit_);
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::solveSteady(
    std::vector<CellField<ExecSpace>>& fields) {
  return solve(fields, Real(0), false, Real(1));
}

template <class ExecSpace>
StepReport CoupledStepper<ExecSpace>::solve(std::vector<CellField<ExecSpace>>& fields,
                                            Real invDt, bool previousPacked, Real theta) {
  system_.checkValues();
  system_.pack(fields, x_);
  if (!previousPacked) Blas::copy(x_, previous_);
  if (distribution_) {  // every ghost from its owner
    distribution_->exchange(x_);
    distribution_->exchange(previous_);
  }
  // Crank-Nicolson as a backward-Euler assembly at dt theta (the equations divided by
  // theta) plus (1 - theta) / theta R(previous) on the transient rows.
  const bool explicitHalf = theta < Real(1);
  if (explicitHalf) {
    explicitPart();
    invDt /= theta;
  }
  const Real explicitWeight = (Real(1) - theta) / theta;
  const auto assemble = [&] {
    system_.assemble(invDt, previous_, x_, rhs_);
    if (explicitHalf) Blas::axpby(explicitWeight, explicit_, Real(1), rhs_);
  };
  const StepReport report = Details::runSweeps(
      Details::SweepPlan{system_.isNonlinear(), maxSweeps_, double(tolerance_)}, assemble,
      [&] { return residual(); }, [&] { return solveLinear(); });
  system_.unpack(x_, fields);
  return report;
}

#define KFVM_INSTANTIATE_COUPLED_STEPPER(Space) template class CoupledStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_COUPLED_STEPPER)

}  // namespace kfvm
