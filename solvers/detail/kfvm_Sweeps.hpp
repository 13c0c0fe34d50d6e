#ifndef KFVM_DETAIL_SWEEPS_HPP
#define KFVM_DETAIL_SWEEPS_HPP

// What ImplicitStepper and CoupledStepper share for nonlinear sweeps.

#include <kfvm_Blas1.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_LinearOperator.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace kfvm::Details {

/// ||b - A x|| / ||b|| (||b - A x|| when b = 0), with work as scratch.
template <class ExecSpace>
double relativeResidual(const CrsMatrix<ExecSpace>& A, const Vector<ExecSpace>& x,
                        const Vector<ExecSpace>& b, const Vector<ExecSpace>& work) {
  multiply(A, x, work);
  Blas::axpby(Real(1), b, Real(-1), work);
  const double residual = double(Blas::norm2(work));
  const double scale = double(Blas::norm2(b));
  return scale > 0 ? residual / scale : residual;
}

/// The same through an operator (a matrix-free one: no matrix to multiply by; a
/// distributed one: the owned entries of every rank, in one reduction).
template <class ExecSpace>
double relativeResidual(const LinearOperator<ExecSpace>& A, const Vector<ExecSpace>& x,
                        const Vector<ExecSpace>& b, const Vector<ExecSpace>& work) {
  A.apply(x, work);
  Blas::axpby(Real(1), b, Real(-1), work);
  double sums[2];
  A.space().dots(work, work, b, b, sums);
  const double residual = std::sqrt(sums[0]);
  const double scale = std::sqrt(sums[1]);
  return scale > 0 ? residual / scale : residual;
}

inline std::string sweepFailureReason(double residual, int maxSweeps, double tolerance) {
  char text[160];
  std::snprintf(
      text, sizeof(text),
      "sweeps did not converge: relative nonlinear residual %.3e after %d sweeps "
      "(tolerance %.3e)",
      residual, maxSweeps, tolerance);
  return text;
}

}  // namespace kfvm::Details

#endif
