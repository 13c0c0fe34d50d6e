#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include "detail/kfvm_Sweeps.hpp"

#include <cmath>

namespace kfvm {

TimeScheme timeSchemeFromName(const std::string& name) {
  if (name == "backward-euler" || name == "be") return TimeScheme::BackwardEuler;
  if (name == "crank-nicolson" || name == "cn") return TimeScheme::CrankNicolson;
  fail("unknown time scheme '", name,
       "' (known: backward-euler or be, crank-nicolson or cn)");
}

template <class ExecSpace>
ImplicitStepper<ExecSpace>::ImplicitStepper(
    const Equation<ExecSpace>& equation, std::unique_ptr<LinearSolver<ExecSpace>> solver)
    : assembler_(equation),
      solver_(std::move(solver)),
      previous_(equation.mesh(), "kfvm::ImplicitStepper::previous"),
      rhs_("kfvm::ImplicitStepper::rhs", equation.mesh().numCells()) {
  require(solver_ != nullptr, "ImplicitStepper needs a linear solver, got none");
  if (equation.needsSweeps()) {
    work_ = Vector<ExecSpace>("kfvm::ImplicitStepper::work", equation.mesh().numCells());
    iterate_ =
        Vector<ExecSpace>("kfvm::ImplicitStepper::iterate", equation.mesh().numCells());
  }
  // The solver is set up by the first solve, on that step's own matrix: a trial
  // assembly (1/dt = 1, say) can be singular where every real step is not (rho dphi/dt
  // = c phi has the diagonal (1/dt - c) V, zero at 1/dt = c).
}

template <class ExecSpace>
void ImplicitStepper<ExecSpace>::setSweeps(int maxSweeps, Real tolerance,
                                           Real relaxation) {
  require(maxSweeps >= 1, "maxSweeps must be at least 1, got ", maxSweeps);
  require(relaxation > 0 && relaxation <= 1, "sweep relaxation must be in (0, 1], got ",
          relaxation);
  relaxation_ = relaxation;
  require(tolerance > 0 && std::isfinite(tolerance),
          "sweep tolerance must be positive and finite, got ", tolerance);
  maxSweeps_ = maxSweeps;
  sweepTolerance_ = tolerance;
}

template <class ExecSpace>
StepReport ImplicitStepper<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  phi.requireOn(assembler_.equation().mesh(), "solution");
  Kokkos::deep_copy(ExecSpace(), previous_.values(), phi.values());
  return solve(phi, Real(0), Real(1));
}

template <class ExecSpace>
StepReport ImplicitStepper<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                            TimeScheme scheme) {
  return step(phi, phi, dt, scheme);  // from phi's own values
}

template <class ExecSpace>
StepReport ImplicitStepper<ExecSpace>::step(CellField<ExecSpace>& phi,
                                            const CellField<ExecSpace>& old, Real dt,
                                            TimeScheme scheme) {
  phi.requireOn(assembler_.equation().mesh(), "solution");
  old.requireOn(assembler_.equation().mesh(), "old");
  require(assembler_.equation().hasTransient(),
          "step() needs an equation with a TransientTerm; use solveSteady() otherwise");
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  Kokkos::deep_copy(ExecSpace(), previous_.values(), old.values());
  const Real theta = scheme == TimeScheme::CrankNicolson ? Real(0.5) : Real(1);
  return solve(phi, Real(1) / dt, theta);
}

template <class ExecSpace>
StepReport ImplicitStepper<ExecSpace>::sweep(CellField<ExecSpace>& phi,
                                             const CellField<ExecSpace>& old, Real dt,
                                             TimeScheme scheme) {
  const auto& equation = assembler_.equation();
  phi.requireOn(equation.mesh(), "solution");
  old.requireOn(equation.mesh(), "old");
  require(std::isfinite(dt) && dt >= 0,
          "sweep dt must be finite and >= 0 (0: steady), got ", dt);
  require(dt == 0 || equation.hasTransient(),
          "a sweep with dt > 0 needs an equation with a TransientTerm");
  const Real invDt = dt > 0 ? Real(1) / dt : Real(0);
  const Real theta = dt > 0 && scheme == TimeScheme::CrankNicolson ? Real(0.5) : Real(1);
  Kokkos::deep_copy(ExecSpace(), previous_.values(),
                    dt > 0 ? old.values() : phi.values());
  if (work_.extent(0) == 0)
    work_ = Vector<ExecSpace>("kfvm::ImplicitStepper::work", equation.mesh().numCells());
  exchangeGhosts(phi);
  equation.updateNonlinear(phi);
  assembler_.assemble(invDt, theta, previous_, phi, rhs_);
  StepReport report;
  report.sweepResiduals.push_back(nonlinearResidual(phi));
  static_cast<SolverReport&>(report) = solveLinear(phi);
  report.totalIterations = report.iterations;
  report.sweeps = 1;
  return report;
}

namespace {

/// Throws kfvm::Error naming solver and preconditioner when the solve needs a matrix
/// (the names are read only then: a message's arguments are evaluated before the check).
template <class ExecSpace>
void requireMatrixFreeSolver(const LinearSolver<ExecSpace>& solver) {
  if (!solver.needsMatrix()) return;
  fail("matrix-free solves: solver '", solver.name(), "' with preconditioner '",
       solver.preconditionerName(),
       "' needs an assembled matrix (a native method with jacobi, chebyshev or none "
       "does not)");
}

}  // namespace

template <class ExecSpace>
void ImplicitStepper<ExecSpace>::setMatrixFree(bool on) {
  if (on && solver_) requireMatrixFreeSolver(*solver_);
  matrixFree_ = on;
  stencil_.reset();
  if (on && distribution_ == nullptr)
    stencil_ = std::make_unique<MatrixFreeOperator<ExecSpace>>(assembler_);
  // Matrix-free, the assembly skips the matrix values (nothing reads them).
  assembler_.setFillsMatrix(!on);
}

template <class ExecSpace>
void ImplicitStepper<ExecSpace>::setSolver(
    std::unique_ptr<LinearSolver<ExecSpace>> solver) {
  require(solver != nullptr, "ImplicitStepper needs a linear solver, got none");
  if (matrixFree_) requireMatrixFreeSolver(*solver);
  solver_ = std::move(solver);
}

template <class ExecSpace>
void ImplicitStepper<ExecSpace>::distributeOver(
    SolveDistribution<ExecSpace>* distribution) {
  distribution_ = distribution;
  setMatrixFree(matrixFree_);  // the stencil belongs to one process or to none
}

template <class ExecSpace>
void ImplicitStepper<ExecSpace>::exchangeGhosts(CellField<ExecSpace>& phi) {
  if (distribution_ == nullptr) return;
  distribution_->exchange(phi.values());
  distribution_->exchange(previous_.values());
}

template <class ExecSpace>
double ImplicitStepper<ExecSpace>::nonlinearResidual(const CellField<ExecSpace>& phi) {
  if (distribution_)
    return Details::relativeResidual(distribution_->linearOperator(), phi.values(), rhs_,
                                     work_);
  return stencil_
             ? Details::relativeResidual(*stencil_, phi.values(), rhs_, work_)
             : Details::relativeResidual(assembler_.matrix(), phi.values(), rhs_, work_);
}

template <class ExecSpace>
SolverReport ImplicitStepper<ExecSpace>::solveLinear(CellField<ExecSpace>& phi) {
  require(solver_ != nullptr, "ImplicitStepper: its solver was taken; setSolver() first");
  if (distribution_) return distribution_->solve(*solver_, rhs_, phi.values());
  solver_->setDiscretization({&assembler_, nullptr, nullptr});  // what "mg" coarsens
  if (stencil_) {
    solver_->setOperator(*stencil_);
  } else {
    matrixOperator_.setMatrix(assembler_.matrix());
    solver_->setOperator(matrixOperator_);
  }
  return solver_->solve(rhs_, phi.values());
}

template <class ExecSpace>
StepReport ImplicitStepper<ExecSpace>::solve(CellField<ExecSpace>& phi, Real invDt,
                                             Real theta) {
  const auto& equation = assembler_.equation();
  const bool sweeping = equation.needsSweeps();
  const bool relax = sweeping && relaxation_ < 1;
  exchangeGhosts(phi);
  return Details::runSweeps(
      Details::SweepPlan{sweeping, maxSweeps_, double(sweepTolerance_)},
      [&] {
        equation.updateNonlinear(phi);
        assembler_.assemble(invDt, theta, previous_, phi, rhs_);
      },
      [&] { return nonlinearResidual(phi); },
      [&] {
        if (relax) Blas::copy(phi.values(), iterate_);
        const SolverReport linear = solveLinear(phi);
        if (relax)
          Blas::axpby(Real(1) - relaxation_, iterate_, relaxation_, phi.values());
        return linear;
      });
}

#define KFVM_INSTANTIATE_STEPPER(Space) template class ImplicitStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STEPPER)

}  // namespace kfvm
