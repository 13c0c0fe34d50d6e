#ifndef KFVM_DETAIL_EXPLICIT_TERM_KERNELS_HPP
#define KFVM_DETAIL_EXPLICIT_TERM_KERNELS_HPP

// FiPy's explicit terms (Equation::explicitDiffusion): evaluated at the latest iterate
// and added to the right-hand side, nothing in the matrix.

#include <kfvm_Equation.hpp>

namespace kfvm::Details {

/// rhs += div(D_e grad iterate) integrated over each cell: the inflow
/// sum_f D_e A_f (x_other - x_cell) / d_f through interior faces and, unless the
/// explicit boundary is ZeroFlux, cB - aB x_cell through boundary faces under the
/// equation's conditions.
template <class ExecSpace>
void addExplicitTerms(const Equation<ExecSpace>& equation,
                      const Vector<ExecSpace>& iterate, const Vector<ExecSpace>& rhs);

}  // namespace kfvm::Details

#endif
