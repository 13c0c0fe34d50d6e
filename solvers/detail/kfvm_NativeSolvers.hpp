#ifndef KFVM_NATIVE_SOLVERS_HPP
#define KFVM_NATIVE_SOLVERS_HPP

#include <kfvm_LinearSolver.hpp>

namespace kfvm::Details {

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeConjugateGradient(
    const Parameters& parameters);
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeBiCGStab(const Parameters& parameters);
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeGmres(const Parameters& parameters);

/// Report of a solve that ends at residual; the reason says why.
SolverReport finishReport(const std::string& solver, int iterations,
                          double initialResidual, double residual, double target,
                          bool stoppedByLimit);

}  // namespace kfvm::Details

#endif
