#ifndef KFVM_DETAIL_NON_ORTHOGONAL_CORRECTION_HPP
#define KFVM_DETAIL_NON_ORTHOGONAL_CORRECTION_HPP

// The deferred non-orthogonal correction of the diffusion term (DiffusionCorrection).

#include <kfvm_Equation.hpp>

namespace kfvm::Details {

/// rhs += theta C(phi) + (1 - theta) C(phiOld), C(x) per cell the sum over its interior
/// and Dirichlet faces of t_f . grad(x)_f with t_f = D_f (A n - A d_PN / d), or with a
/// diffusion tensor A Gamma n - (n.Gamma.n) A d_PN / d (outward from the cell),
/// grad(x)_f the cell gradients (the equation's CellGradient) interpolated to the face,
/// the owner's on the boundary. gradient is work space of one row per cell.
template <class ExecSpace>
void addNonOrthogonalCorrection(const Equation<ExecSpace>& equation, Real theta,
                                const Vector<ExecSpace>& phi,
                                const Vector<ExecSpace>& phiOld,
                                const DeviceView<Real* [3], ExecSpace>& gradient,
                                const Vector<ExecSpace>& rhs);

}  // namespace kfvm::Details

#endif
