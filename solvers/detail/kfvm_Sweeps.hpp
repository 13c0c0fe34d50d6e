#ifndef KFVM_DETAIL_SWEEPS_HPP
#define KFVM_DETAIL_SWEEPS_HPP

// What ImplicitStepper and CoupledStepper share: the sweeps of a solve, and their
// measure.

#include <kfvm_Blas1.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_ImplicitStepper.hpp>
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

/// How a solve sweeps: at most maxSweeps (one when not sweeping: a linear system) until
/// the nonlinear residual is at most tolerance.
struct SweepPlan {
  bool sweeping = false;
  int maxSweeps = 1;
  double tolerance = 0;
};

/// The sweeps of one steady solve or time step, for any system: assemble() at the
/// iterate; when sweeping, residual() of that assembly (from the second sweep on, one at
/// most plan.tolerance ends the solve: the iterate is the answer); solveLinear() into the
/// iterate. A linear solve that does not converge ends it with its report. After the
/// last sweep one more assembly measures the answer's residual, and the report says
/// when it is above tolerance.
template <class Assemble, class Residual, class SolveLinear>
StepReport runSweeps(const SweepPlan& plan, Assemble&& assemble, Residual&& residual,
                     SolveLinear&& solveLinear) {
  StepReport report;
  report.sweeps = 0;
  for (int sweep = 1; sweep <= (plan.sweeping ? plan.maxSweeps : 1); ++sweep) {
    assemble();
    if (plan.sweeping) {
      const double r = residual();
      report.sweepResiduals.push_back(r);
      if (sweep > 1 && r <= plan.tolerance) return report;
    }
    const SolverReport linear = solveLinear();
    const int total = report.totalIterations + linear.iterations;
    static_cast<SolverReport&>(report) = linear;
    report.totalIterations = total;
    report.sweeps = sweep;
    if (!linear.converged) return report;
  }
  if (plan.sweeping) {  // the last solve's result has not been checked yet
    assemble();
    const double r = residual();
    report.sweepResiduals.push_back(r);
    if (r > plan.tolerance) {
      report.converged = false;
      report.reason = sweepFailureReason(r, plan.maxSweeps, plan.tolerance);
    }
  }
  return report;
}

}  // namespace kfvm::Details

#endif
