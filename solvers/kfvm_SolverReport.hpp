#ifndef KFVM_SOLVER_REPORT_HPP
#define KFVM_SOLVER_REPORT_HPP

#include <string>

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

/// When an iterative solve stops: ||b - A x|| <= max(tolerance * ||b||,
/// absoluteTolerance), or with relativeToInitial max(tolerance * ||b - A x0||,
/// absoluteTolerance); or after maxIterations.
struct StoppingCriterion {
  double tolerance = 1e-8;
  double absoluteTolerance = 0;
  bool relativeToInitial = false;
  int maxIterations = 1000;

  double target(double normB, double initialResidual) const {
    const double scaled = tolerance * (relativeToInitial ? initialResidual : normB);
    return scaled < absoluteTolerance ? absoluteTolerance : scaled;  // NaN stays NaN
  }
};

namespace Details {
/// Report of an iterative solve that ends at residual; the reason says why.
SolverReport finishReport(const std::string& solver, int iterations,
                          double initialResidual, double residual, double target,
                          bool stoppedByLimit);
}  // namespace Details

}  // namespace kfvm

#endif
