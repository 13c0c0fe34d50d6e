#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ImplicitStepper.hpp>

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
  // A representative assembly, so that the solver sets up (and allocates its workspaces)
  // once, here, on a matrix with the real structure and a meaningful diagonal.
  assembler_.assemble(equation.hasTransient() ? Real(1) : Real(0), Real(1), previous_,
                      rhs_);
  solver_->setMatrix(assembler_.matrix());
}

template <class ExecSpace>
SolverReport ImplicitStepper<ExecSpace>::solveSteady(CellField<ExecSpace>& phi) {
  phi.requireOn(assembler_.equation().mesh(), "solution");
  assembler_.assemble(Real(0), Real(1), phi, rhs_);
  return solveAssembled(phi);
}

template <class ExecSpace>
SolverReport ImplicitStepper<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                              TimeScheme scheme) {
  phi.requireOn(assembler_.equation().mesh(), "solution");
  require(assembler_.equation().hasTransient(),
          "step() needs an equation with a TransientTerm; use solveSteady() otherwise");
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  Kokkos::deep_copy(ExecSpace(), previous_.values(), phi.values());
  const Real theta = scheme == TimeScheme::CrankNicolson ? Real(0.5) : Real(1);
  assembler_.assemble(Real(1) / dt, theta, previous_, rhs_);
  return solveAssembled(phi);
}

template <class ExecSpace>
SolverReport ImplicitStepper<ExecSpace>::solveAssembled(CellField<ExecSpace>& phi) {
  solver_->setMatrix(assembler_.matrix());
  return solver_->solve(rhs_, phi.values());
}

#define KFVM_INSTANTIATE_STEPPER(Space) template class ImplicitStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STEPPER)

}  // namespace kfvm
