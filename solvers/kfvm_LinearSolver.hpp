#ifndef KFVM_LINEAR_SOLVER_HPP
#define KFVM_LINEAR_SOLVER_HPP

// The solver interface. It includes no third-party solver header: Trilinos adapters
// implement it in their own files and target.

#include <kfvm_CrsMatrix.hpp>
#include <kfvm_IncompleteLU.hpp>
#include <kfvm_Parameters.hpp>
#include <kfvm_Types.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// What one solve did.
struct SolverReport {
  std::string solver;
  bool converged = false;
  int iterations = 0;
  double initialResidual = 0;  ///< ||b - A x0||_2
  double finalResidual = 0;    ///< ||b - A x||_2 (recursive residual for Krylov methods)
  std::string reason;          ///< why it stopped, in words
};

/// Solves A x = b for a CRS matrix on ExecSpace. Host-side interface; the work happens on
/// the device. Create one by name with makeLinearSolver().
///
/// setMatrix() is the setup: it allocates every workspace (once per matrix size) and
/// computes the preconditioner. Calling it again with refilled values of the same
/// structure allocates nothing. solve() allocates nothing.
template <class ExecSpace>
class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  LinearSolver(const LinearSolver&) = delete;
  LinearSolver& operator=(const LinearSolver&) = delete;

  const std::string& name() const { return name_; }

  void setMatrix(const CrsMatrix<ExecSpace>& matrix);

  /// The preconditioner chosen by the "preconditioner" parameter ("none" for none).
  const std::string& preconditionerName() const { return preconditioner_; }

  /// Solves with x as the initial guess; x holds the answer on return. A solve that stops
  /// without converging says so in the report (it does not throw).
  SolverReport solve(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x);

 protected:
  /// Reads tolerance, absolute_tolerance, max_iterations and preconditioner (one of
  /// preconditioners; "jacobi" and "ilu0" are applied by this class).
  LinearSolver(std::string name, const Parameters& parameters,
               const std::vector<std::string>& preconditioners = {"jacobi", "ilu0",
                                                                  "none"});

  const CrsMatrix<ExecSpace>& matrix() const { return matrix_; }
  double tolerance() const { return tolerance_; }
  double absoluteTolerance() const { return absoluteTolerance_; }
  int maxIterations() const { return maxIterations_; }
  /// 1 / diagonal of the matrix, with the "jacobi" preconditioner (empty otherwise).
  const Vector<ExecSpace>& inverseDiagonal() const { return inverseDiagonal_; }
  /// z = M^-1 r with the chosen preconditioner (Jacobi, ILU(0) or none).
  void precondition(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const;
  /// ||b - A x|| target: max(tolerance * ||b||, absoluteTolerance), or with the
  /// "initial" criterion max(tolerance * ||b - A x0||, absoluteTolerance).
  double target(double normB, double initialResidual) const;
  /// True for a solver of the rows one MPI rank owns, whose columns also number ghost
  /// cells (more columns than rows; a distributed Trilinos solver). Others need a square
  /// matrix.
  virtual bool takesGhostColumns() const { return false; }
  /// r = b - A x; returns ||r||_2.
  double residual(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                  const Vector<ExecSpace>& r) const;

 private:
  /// Allocates the workspaces for a matrix of size rows; called when the size changes.
  virtual void setupImpl(Ordinal size) = 0;
  /// Called by every setMatrix() after setupImpl: the values changed, and the structure
  /// too when structureChanged (another matrix, not a refill of the same one).
  virtual void updateImpl(bool structureChanged) { (void)structureChanged; }
  virtual SolverReport solveImpl(const Vector<ExecSpace>& b,
                                 const Vector<ExecSpace>& x) = 0;

  std::string name_;
  double tolerance_;
  double absoluteTolerance_;
  bool relativeToInitial_ = false;
  int maxIterations_;
  std::string preconditioner_;
  CrsMatrix<ExecSpace> matrix_;
  Ordinal setupSize_ = -1;
  Vector<ExecSpace> inverseDiagonal_;
  IncompleteLU<ExecSpace> incompleteLU_;
};

/// Creates a native solver: "cg", "bicgstab" or "gmres". Parameters: tolerance (relative
/// to ||b||, default 1e-8), criterion ("rhs", the default: the tolerance is relative to
/// ||b||; "initial": to the initial residual ||b - A x0||, FiPy's and Belos' "initial"),
/// absolute_tolerance (default 0), max_iterations (default
/// 1000), preconditioner ("jacobi", the default, "ilu0" or "none"), restart (gmres only,
/// default 30). An unknown name or parameter, or a value out of range, is a kfvm::Error.
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeLinearSolver(
    const std::string& name, const Parameters& parameters = {});

/// Names makeLinearSolver() accepts.
std::vector<std::string> linearSolverNames();

}  // namespace kfvm

#endif
