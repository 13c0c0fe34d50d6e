#ifndef KFVM_NATIVE_SOLVERS_HPP
#define KFVM_NATIVE_SOLVERS_HPP

#include <kfvm_LinearSolver.hpp>

namespace kfvm::Details {

/// kfvm's native solver: the Krylov method name with the preconditioner its parameters
/// name, over the operator given by setMatrix() or setOperator().
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeKrylovSolver(const std::string& name,
                                                          const Parameters& parameters);

}  // namespace kfvm::Details

#endif
