#ifndef KFVM_FALLBACK_SOLVER_HPP
#define KFVM_FALLBACK_SOLVER_HPP

// A solver whose missed solve is done again by another: a Krylov method standing in for
// the direct solver where factoring every step costs too much, which factors only when
// the Krylov method does not converge (makeLinearSolver's "fallback" parameter).

#include <kfvm_LinearSolver.hpp>

#include <memory>
#include <string>

namespace kfvm {

/// first solves; when its report says it did not converge, the fallback (given the
/// matrix on the first miss after each refill, not before) solves again from the same
/// initial guess (first's answer may be NaN). The report names both ("gmres+jacobi,
/// then lu (umfpack)") and says why first missed. Needs an assembled matrix on one
/// process: a distributed operator is refused.
template <class ExecSpace>
class FallbackSolver final : public LinearSolver<ExecSpace> {
 public:
  /// first: the solver made from parameters; fallback: a solver name makeLinearSolver
  /// takes, given parameters' tolerance, absolute_tolerance and criterion.
  FallbackSolver(std::unique_ptr<LinearSolver<ExecSpace>> first,
                 const std::string& fallback, const Parameters& parameters);

  bool needsMatrix() const override { return true; }
  /// The solves the fallback did so far.
  int fallbacks() const { return fallbacks_; }

 private:
  void setupImpl(Ordinal size) override;
  void updateImpl(bool structureChanged) override;
  /// The operator goes to first as it is; its assembled matrix, which it must have, to
  /// the fallback.
  void operatorImpl(const LinearOperator<ExecSpace>& op) override;
  void discretizationImpl(const GridDiscretization<ExecSpace>& discretization) override {
    first_->setDiscretization(discretization);
  }
  SolverReport solveImpl(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) override;

  std::unique_ptr<LinearSolver<ExecSpace>> first_;
  std::string fallbackName_;
  Parameters fallbackParameters_;
  std::unique_ptr<LinearSolver<ExecSpace>> fallback_;
  CrsMatrix<ExecSpace> matrix_;  // the fallback's
  Vector<ExecSpace> start_;      // the initial guess, for the fallback
  int blockSize_ = 1;
  bool fallbackStale_ = true;  // the matrix changed since the fallback was given it
  int fallbacks_ = 0;
};

}  // namespace kfvm

#endif
