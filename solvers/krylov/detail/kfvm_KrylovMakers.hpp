#ifndef KFVM_DETAIL_KRYLOV_MAKERS_HPP
#define KFVM_DETAIL_KRYLOV_MAKERS_HPP

// The Krylov methods' constructors (one file each) and what they share.

#include <kfvm_KrylovMethod.hpp>

namespace kfvm::Details {

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeConjugateGradient(bool flexible);
template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeBiCGStab();
template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeGmres(int restart, bool flexible,
                                                   bool classical);
template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeRichardson();

/// r = b - A x; returns ||r|| over the operator's space.
template <class ExecSpace>
double residual(const LinearOperator<ExecSpace>& A, const Vector<ExecSpace>& b,
                const Vector<ExecSpace>& x, const Vector<ExecSpace>& r);

}  // namespace kfvm::Details

#endif
