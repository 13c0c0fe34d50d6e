#ifndef KFVM_IMPLICIT_STEPPER_HPP
#define KFVM_IMPLICIT_STEPPER_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_LinearSolver.hpp>

#include <memory>
#include <string>

namespace kfvm {

/// Implicit time schemes (theta = 1 and theta = 1/2).
enum class TimeScheme { BackwardEuler, CrankNicolson };

/// "backward-euler" / "be", "crank-nicolson" / "cn"; throws kfvm::Error naming the text.
TimeScheme timeSchemeFromName(const std::string& name);

/// Steady solves and implicit time steps of one Equation. Everything a step needs (the
/// matrix structure, right-hand side, previous values, solver workspaces) is allocated on
/// construction; step() and solveSteady() allocate nothing and copy nothing between host
/// and device beyond the solver's scalars.
template <class ExecSpace>
class ImplicitStepper {
 public:
  ImplicitStepper(const Equation<ExecSpace>& equation,
                  std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// Solves 0 = div(D grad phi) + c phi + s (ignoring any TransientTerm); phi is the
  /// initial guess and the answer.
  SolverReport solveSteady(CellField<ExecSpace>& phi);

  /// Advances phi by dt. The equation must have a TransientTerm.
  SolverReport step(CellField<ExecSpace>& phi, Real dt,
                    TimeScheme scheme = TimeScheme::BackwardEuler);

  const Assembler<ExecSpace>& assembler() const { return assembler_; }
  LinearSolver<ExecSpace>& solver() { return *solver_; }

 private:
  SolverReport solveAssembled(CellField<ExecSpace>& phi);

  Assembler<ExecSpace> assembler_;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;
  CellField<ExecSpace> previous_;
  Vector<ExecSpace> rhs_;
};

}  // namespace kfvm

#endif
