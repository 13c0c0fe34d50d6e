#ifndef KFVM_IMPLICIT_STEPPER_HPP
#define KFVM_IMPLICIT_STEPPER_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MatrixFreeOperator.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// Implicit time schemes (theta = 1 and theta = 1/2).
enum class TimeScheme { BackwardEuler, CrankNicolson };

/// "backward-euler" / "be", "crank-nicolson" / "cn"; throws kfvm::Error naming the text.
TimeScheme timeSchemeFromName(const std::string& name);

/// What a steady solve or a time step did: the last linear solve's report, plus the
/// sweeps of a nonlinear equation (TVD convection). converged is false when either the
/// last linear solve or the sweeps did not converge; reason says which.
struct StepReport : SolverReport {
  int sweeps = 1;
  int totalIterations = 0;             ///< linear iterations over all sweeps
  std::vector<double> sweepResiduals;  ///< ||b(phi) - A(phi) phi|| / ||b(phi)|| per sweep
};

/// Steady solves and implicit time steps of one Equation, on one process or, given a
/// SolveDistribution (distributeOver(); DistributedSystem does this), on one rank's part
/// of a distributed mesh: the same sweeps, schemes and matrix-free option either way.
/// The matrix structure,
/// right-hand side and previous values are allocated on construction; the solver is set
/// up (its workspaces allocated, once) on the first step's or solve's own matrix, since
/// any trial matrix could be singular where the real ones are not. After that, step()
/// and solveSteady() allocate nothing and copy nothing between host and device beyond
/// the solver's scalars.
template <class ExecSpace>
class ImplicitStepper {
 public:
  ImplicitStepper(const Equation<ExecSpace>& equation,
                  std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// Solves 0 = div(D grad phi) + c phi + s (ignoring any TransientTerm); phi is the
  /// initial guess and the answer.
  StepReport solveSteady(CellField<ExecSpace>& phi);

  /// Advances phi by dt. The equation must have a TransientTerm.
  StepReport step(CellField<ExecSpace>& phi, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);

  /// Advances from old (FiPy's phi.old) by dt: phi is the first iterate and the answer.
  StepReport step(CellField<ExecSpace>& phi, const CellField<ExecSpace>& old, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);

  /// One sweep, as FiPy's eq.sweep(): the equation evaluated at the iterate phi, one
  /// linear solve, phi replaced by its result. dt > 0 with old the values at the
  /// start of the step; dt = 0 for a steady sweep (old is not read). The report's
  /// sweepResiduals holds the relative nonlinear residual ||b(phi) - A(phi) phi|| /
  /// ||b(phi)|| before the solve. Its work vector is allocated on the first sweep.
  StepReport sweep(CellField<ExecSpace>& phi, const CellField<ExecSpace>& old, Real dt,
                   TimeScheme scheme = TimeScheme::BackwardEuler);

  /// Sweeps of a nonlinear equation: at most maxSweeps, until the relative nonlinear
  /// residual is at most tolerance (defaults 50 and 1e-8; linear equations need one).
  /// relaxation in (0, 1] under-relaxes each sweep's update (default 1: none).
  void setSweeps(int maxSweeps, Real tolerance, Real relaxation = 1);

  /// Linear solves by the matrix-free stencil (MatrixFreeOperator) instead of the
  /// assembled matrix: the same answers to rounding, fewer bytes per product. The
  /// preconditioner must not need the matrix (jacobi, chebyshev, none: else kfvm::Error
  /// here, naming the solver and preconditioner). The assembly then
  /// skips the matrix values: assembler().matrix() holds those of the last fill. Throws
  /// kfvm::Error for an equation with the fourth-order term.
  void setMatrixFree(bool on);
  bool matrixFree() const { return matrixFree_; }

  /// Another linear solver from now on (set up by the next solve); throws kfvm::Error
  /// for none, or for one that needs a matrix while the stepper is matrix-free.
  void setSolver(std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// Hands the linear solver over (to the stepper of another equation): this stepper
  /// cannot solve again until setSolver().
  std::unique_ptr<LinearSolver<ExecSpace>> takeSolver() { return std::move(solver_); }

  /// Solves across ranks from now on: the equation is on one rank's ghosted mesh, and
  /// distribution (which must outlive the stepper; nullptr: this process alone) fills
  /// its ghosts, gives the distributed operator and runs the linear solves. Each solve
  /// or step exchanges phi's and the old values' ghosts first, and leaves phi's ghosts
  /// holding the owners' new values. Matrix-free, the distribution's operator decides.
  void distributeOver(SolveDistribution<ExecSpace>* distribution);

  const Assembler<ExecSpace>& assembler() const { return assembler_; }
  LinearSolver<ExecSpace>& solver() { return *solver_; }

 private:
  StepReport solve(CellField<ExecSpace>& phi, Real invDt, Real theta);
  /// ||b - A phi|| / ||b|| with the last assembly's A and b (the sweeps' measure).
  double nonlinearResidual(const CellField<ExecSpace>& phi);
  /// The linear solve of the assembled system into phi: the matrix or the matrix-free
  /// operator on this process, or the distribution's solve.
  SolverReport solveLinear(CellField<ExecSpace>& phi);
  /// Distributed: fills the ghosts of phi and of the old values.
  void exchangeGhosts(CellField<ExecSpace>& phi);

  Assembler<ExecSpace> assembler_;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;
  bool matrixFree_ = false;
  std::unique_ptr<MatrixFreeOperator<ExecSpace>> stencil_;  // matrix-free, one process
  MatrixOperator<ExecSpace> matrixOperator_;  // the assembled matrix, one process
  SolveDistribution<ExecSpace>* distribution_ = nullptr;
  CellField<ExecSpace> previous_;
  Vector<ExecSpace> rhs_;
  Vector<ExecSpace> work_;  // nonlinear residuals; allocated only when sweeps are needed
  Vector<ExecSpace> iterate_;  // the iterate before a relaxed sweep; idem
  Real relaxation_ = 1;
  int maxSweeps_ = 50;
  Real sweepTolerance_ = Real(1e-8);
};

}  // namespace kfvm

#endif
