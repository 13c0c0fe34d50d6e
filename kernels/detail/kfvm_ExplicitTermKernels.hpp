#ifndef KFVM_DETAIL_EXPLICIT_TERM_KERNELS_HPP
#define KFVM_DETAIL_EXPLICIT_TERM_KERNELS_HPP

// FiPy's explicit terms: Equation::explicitDiffusion, evaluated at the latest iterate and
// added to the right-hand side, nothing in the matrix; Equation::explicitConvection,
// evaluated at the previous step's values, with FiPy's boundary (its gradient faces in
// the matrix).

#include <kfvm_Equation.hpp>

namespace kfvm::Details {

/// What the explicit terms read and add to: the assembled matrix (its values, each
/// cell's diagonal entry and the diagonal vector) and right-hand side.
template <class ExecSpace>
struct ExplicitTermArguments {
  Vector<ExecSpace> iterate, old, rhs;
  Real invDt;
  DeviceView<Real*, ExecSpace> values;
  DeviceView<const Offset*, ExecSpace> diagonalEntries;
  Vector<ExecSpace> diagonal;
  DeviceView<Real* [3], ExecSpace> gradient;  // VanLeer's work space
};

/// rhs += div(D_e grad iterate) integrated over each cell: the inflow
/// sum_f D_e A_f (x_other - x_cell) / d_f through interior faces and, unless the
/// explicit boundary is ZeroFlux, cB - aB x_cell through boundary faces under the
/// equation's conditions. The explicit convection, FiPy's: rhs -= F_f phi_f of the
/// previous values through interior faces and the Robin face values' known part through
/// open boundary faces, whose phi_P part F b / (a d + b) goes to the matrix's diagonal
/// (values and the diagonal vector); Van Leer first writes the previous values' cell
/// gradients into gradient.
template <class ExecSpace>
void addExplicitTerms(const Equation<ExecSpace>& equation,
                      const ExplicitTermArguments<ExecSpace>& arguments);

}  // namespace kfvm::Details

#endif
