#ifndef KFVM_LINEAR_SOLVER_HPP
#define KFVM_LINEAR_SOLVER_HPP

// The solver interface. It includes no third-party solver header: Trilinos adapters
// implement it in their own files and target.

#include <kfvm_CrsMatrix.hpp>
#include <kfvm_GridDiscretization.hpp>
#include <kfvm_LinearOperator.hpp>
#include <kfvm_Parameters.hpp>
#include <kfvm_SolverReport.hpp>
#include <kfvm_Types.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// Solves A x = b on ExecSpace. Host-side interface; the work happens on the device.
/// Create one by name with makeLinearSolver(). kfvm's native solvers are a Krylov method
/// and a preconditioner composed over a LinearOperator (KrylovSolver); Trilinos'
/// solvers implement the same interface on an assembled matrix.
///
/// setMatrix() or setOperator() is the setup: it allocates every workspace (once per
/// size) and computes the preconditioner. Calling it again with refilled values of the
/// same structure allocates nothing. solve() allocates nothing.
template <class ExecSpace>
class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  LinearSolver(const LinearSolver&) = delete;
  LinearSolver& operator=(const LinearSolver&) = delete;

  const std::string& name() const { return name_; }

  /// An assembled matrix; blockSize unknowns per cell, interleaved (a CoupledSystem's
  /// variables; the block-jacobi preconditioner reads it).
  void setMatrix(const CrsMatrix<ExecSpace>& matrix, int blockSize = 1);
  /// Any operator (matrix-free, distributed), held by reference until the next set.
  /// Throws kfvm::Error when this solver needs an assembled matrix and op has none.
  void setOperator(const LinearOperator<ExecSpace>& op);

  /// Where the operators of the next setups come from, for a preconditioner that
  /// coarsens it (geometric multigrid); the others ignore it. Kept until set again.
  void setDiscretization(const GridDiscretization<ExecSpace>& discretization) {
    discretizationImpl(discretization);
  }

  /// The preconditioner chosen by the "preconditioner" parameter ("none" for none).
  const std::string& preconditionerName() const { return preconditioner_; }
  /// True when a solve needs an assembled matrix (setOperator() of a matrix-free one
  /// fails): the Trilinos solvers, and the native ones with a factorizing
  /// preconditioner (ilu0, block-jacobi).
  virtual bool needsMatrix() const { return true; }

  /// Solves with x as the initial guess; x holds the answer on return. A solve that stops
  /// without converging says so in the report (it does not throw).
  SolverReport solve(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x);

  /// True for a solver of the rows one MPI rank owns, whose columns also number ghost
  /// cells (more columns than rows; a distributed Trilinos solver). Others need a square
  /// matrix.
  virtual bool takesGhostColumns() const { return false; }

 protected:
  /// Reads tolerance, criterion, absolute_tolerance, max_iterations and preconditioner
  /// (one of preconditioners, the first the default).
  LinearSolver(std::string name, const Parameters& parameters,
               const std::vector<std::string>& preconditioners);

  const CrsMatrix<ExecSpace>& matrix() const { return matrix_; }
  int blockSize() const { return blockSize_; }
  double tolerance() const { return criterion_.tolerance; }
  int maxIterations() const { return criterion_.maxIterations; }
  const StoppingCriterion& criterion() const { return criterion_; }
  /// ||b - A x|| target: max(tolerance * ||b||, absoluteTolerance), or with the
  /// "initial" criterion max(tolerance * ||b - A x0||, absoluteTolerance).
  double target(double normB, double initialResidual) const {
    return criterion_.target(normB, initialResidual);
  }
  /// r = b - A x; returns ||r||_2.
  double residual(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                  const Vector<ExecSpace>& r) const;

 private:
  /// Allocates the workspaces for a matrix of size rows; called when the size changes.
  virtual void setupImpl(Ordinal size) = 0;
  /// Called by every setMatrix() after setupImpl: the values changed, and the structure
  /// too when structureChanged (another matrix, not a refill of the same one).
  virtual void updateImpl(bool structureChanged) { (void)structureChanged; }
  /// setOperator(), after setupImpl when the size changed. By default the operator's
  /// assembled matrix goes to setMatrix(); refused when it has none.
  virtual void operatorImpl(const LinearOperator<ExecSpace>& op);
  /// setDiscretization(): to the preconditioner, where there is one.
  virtual void discretizationImpl(const GridDiscretization<ExecSpace>&) {}
  virtual SolverReport solveImpl(const Vector<ExecSpace>& b,
                                 const Vector<ExecSpace>& x) = 0;

  std::string name_;
  StoppingCriterion criterion_;
  std::string preconditioner_;
  CrsMatrix<ExecSpace> matrix_;
  int blockSize_ = 1;
  Ordinal setupSize_ = -1;  // the size the workspaces were allocated for
};

/// Creates a solver by name: a native Krylov method (krylovMethodNames(): "cg", "fcg",
/// "bicgstab", "gmres", "fgmres", "richardson") with a preconditioner, or a Trilinos
/// solver when kfvm is built with Trilinos. Parameters: tolerance (relative to ||b||,
/// default 1e-8), criterion ("rhs", the default: the tolerance is relative to ||b||;
/// "initial": to the initial residual ||b - A x0||, FiPy's and Belos' "initial"),
/// absolute_tolerance (default 0), max_iterations (default 1000), preconditioner
/// (preconditionerNames(): "jacobi", the default, "none", "ilu0", "block-jacobi",
/// "chebyshev", with their own parameters), restart (gmres and fgmres, default 30),
/// fallback (a Krylov method's: "none", the default, or a solver name, "lu" above all,
/// that solves again where the method does not converge: FallbackSolver). An unknown
/// name or parameter, or a value out of range, is a kfvm::Error.
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeLinearSolver(
    const std::string& name, const Parameters& parameters = {});

/// Names makeLinearSolver() accepts.
std::vector<std::string> linearSolverNames();

}  // namespace kfvm

#endif
