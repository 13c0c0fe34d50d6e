#ifndef KFVM_DIRECT_SOLVER_HPP
#define KFVM_DIRECT_SOLVER_HPP

// The direct solver ("lu", also "direct"): a sparse LU of the assembled matrix on the
// host (kfvm_SparseLU.hpp), in double precision whatever kfvm's real type, with the
// symbolic analysis kept while the matrix's structure holds and a numeric factorization
// for each new set of values. On a device backend the structure goes to the host once
// per structure, the values once per factorization, and b and x once per solve.

#include "kfvm_SparseLU.hpp"

#include <kfvm_LinearSolver.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// Parameters (besides LinearSolver's tolerance, absolute_tolerance and criterion, which
/// the final residual must meet): package ("auto", the default: KLU where the predicted
/// fill is small, UMFPACK above; or "klu", "umfpack"), max_iterations (the solves
/// allowed: one, then steps of iterative refinement while the residual misses its
/// target; at most 10). A singular matrix, or a residual that still misses its target,
/// is a report that did not converge, naming why.
template <class ExecSpace>
class DirectSolver final : public LinearSolver<ExecSpace> {
 public:
  DirectSolver(const std::string& name, const Parameters& parameters);

  /// The package factoring the present matrix ("klu" or "umfpack"; the one asked for
  /// before the first matrix).
  const std::string& package() const { return package_; }
  /// Symbolic analyses and numeric factorizations done so far.
  int analyses() const { return analyses_; }
  int factorizations() const { return factorizations_; }
  /// Entries of L and U of the last factorization.
  double factorEntries() const { return lu_ ? lu_->factorEntries() : 0.0; }

 private:
  /// The operator's assembled matrix; an operator distributed over MPI ranks is refused,
  /// naming the solvers that work across ranks.
  void operatorImpl(const LinearOperator<ExecSpace>& op) override;
  void setupImpl(Ordinal size) override;
  void updateImpl(bool structureChanged) override;
  SolverReport solveImpl(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) override;

  void analyze();
  void copyValues();
  /// ||b - A x||_2 into r (host, double).
  double residual(const std::vector<double>& b, const std::vector<double>& x,
                  std::vector<double>& r) const;

  std::string asked_;    // "auto", "klu" or "umfpack"
  std::string package_;  // the one in use
  std::unique_ptr<Details::SparseLU> lu_;
  Details::HostCsr a_;
  bool analyzed_ = false, factored_ = false, pivotsReused_ = false;
  int analyses_ = 0, factorizations_ = 0;
  std::vector<double> b_, x_, r_, d_;
  using HostVector = typename Vector<ExecSpace>::HostMirror;
  HostVector bHost_, xHost_;
  typename DeviceView<Real*, ExecSpace>::HostMirror valuesHost_;
};

}  // namespace kfvm

#endif
