#ifndef KFVM_DETAIL_HIGHER_ORDER_KERNELS_HPP
#define KFVM_DETAIL_HIGHER_ORDER_KERNELS_HPP

// The fourth-order term of Equation::higherOrderDiffusion: per cell
//   mu = g(phi) + V^-1 (K_kappa phi - b_kappa),   term = b_D - K_D mu,
// K_kappa and K_D being the face operators (positive diagonal) of div(kappa grad .) under
// phi's and mu's boundary conditions, b_ their boundary parts. With g linearized around
// the iterate phi*, mu = M phi + m, M = diag(g'(phi*)) + V^-1 K_kappa; the theta scheme
// adds theta K_D M to the matrix (neighbours of neighbours) and
// b_D - K_D (theta m + (1 - theta) mu(phiOld)) to the right-hand side. Its matrix has
// the two-hop structure of detail/kfvm_StencilStructure.hpp.

#include <kfvm_Equation.hpp>

namespace kfvm::Details {

/// Adds the higher-order term to values, rhs and diagonal, which already hold the
/// second-order terms (in the two-hop structure). potential and potentialSlope are
/// per-cell work vectors: theta m + (1 - theta) mu(phiOld), and diag(M).
template <class ExecSpace>
void addHigherOrderTerm(const Equation<ExecSpace>& equation, Real theta,
                        const Vector<ExecSpace>& phiOld, const Vector<ExecSpace>& iterate,
                        const Vector<ExecSpace>& potential,
                        const Vector<ExecSpace>& potentialSlope,
                        const DeviceView<const Offset*, ExecSpace>& rowOffsets,
                        const DeviceView<const Ordinal*, ExecSpace>& columns,
                        const DeviceView<Real*, ExecSpace>& values,
                        const DeviceView<const Offset*, ExecSpace>& diagonalEntries,
                        const Vector<ExecSpace>& diagonal, const Vector<ExecSpace>& rhs);

}  // namespace kfvm::Details

#endif
