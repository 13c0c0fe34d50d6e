#ifndef KFVM_CELL_GRADIENTS_HPP
#define KFVM_CELL_GRADIENTS_HPP

// Cell gradients of a field on any mesh, under an equation's boundary conditions.

#include <kfvm_Equation.hpp>
#include <kfvm_Field.hpp>

namespace kfvm {

/// The gradient of phi in every cell (one row of 3 per cell, 0 off the mesh's plane),
/// with the boundary conditions of `equation` (on its mesh, phi's):
/// - CellGradient::Gauss: the sum of face values times area vectors over the volume,
///   face values interpolated linearly between the cells, the conditions' values on
///   the boundary (exact for linear fields on orthogonal meshes, first order on
///   distorted ones);
/// - CellGradient::LeastSquares: the gradient fitting the differences to the face
///   neighbours (and the boundary values, or the Neumann conditions' normal
///   derivatives) in least squares, weighted by 1 / |d|^2: exact for linear fields on
///   any mesh.
/// Throws kfvm::Error when phi is on another mesh or gradient has the wrong size.
template <class ExecSpace>
void cellGradients(const Equation<ExecSpace>& equation, const CellField<ExecSpace>& phi,
                   CellGradient method, const DeviceView<Real* [3], ExecSpace>& gradient);

}  // namespace kfvm

#endif
