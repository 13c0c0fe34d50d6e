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
/// The largest eigenvalue of D^-1 A (inverse holds D^-1) as Chebyshev estimates it: from
/// `iterations` steps of Jacobi-CG, their Lanczos matrix (from below). r, p and q are
/// work vectors of op's size.
template <class ExecSpace>
double largestJacobiEigenvalue(const LinearOperator<ExecSpace>& op,
                               const Vector<ExecSpace>& inverse,
                               const Vector<ExecSpace>& r, const Vector<ExecSpace>& p,
                               const Vector<ExecSpace>& q, int iterations);
/// Geometric multigrid (solvers/multigrid).
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeMultigrid(const Parameters& parameters);
/// Its coupled form, for block matrices (kfvm_CoupledMultigrid.cpp; makeMultigrid's
/// preconditioner hands them to it).
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeCoupledMultigrid(
    const Parameters& parameters);

}  // namespace kfvm::Details

#endif
