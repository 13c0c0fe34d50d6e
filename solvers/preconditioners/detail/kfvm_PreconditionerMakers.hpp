#ifndef KFVM_DETAIL_PRECONDITIONER_MAKERS_HPP
#define KFVM_DETAIL_PRECONDITIONER_MAKERS_HPP

// The preconditioners' constructors, one per file, for makePreconditioner().

#include <kfvm_Preconditioner.hpp>

namespace kfvm::Details {

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeJacobi();
/// ILU(0) of the matrix, or of each variable's diagonal block when perVariable.
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeIncompleteLU(bool perVariable);
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeChebyshev(const Parameters& parameters);
/// Geometric multigrid (solvers/multigrid).
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeMultigrid(const Parameters& parameters);

}  // namespace kfvm::Details

#endif
