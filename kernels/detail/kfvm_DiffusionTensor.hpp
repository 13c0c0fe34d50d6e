#ifndef KFVM_DETAIL_DIFFUSION_TENSOR_HPP
#define KFVM_DETAIL_DIFFUSION_TENSOR_HPP

// The set-up kernels of an anisotropic diffusion coefficient (Equation::diffusion with a
// tensor): checks, face averages and the normal-normal component the matrix takes.

#include <kfvm_Coefficient.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

#include <string>

namespace kfvm::Details {

/// The first of a tensor's leading minors over the first dim axes that is not > 0 (k:
/// the minor of the top-left (k+1)x(k+1) block, its value in minor), or -1 when the
/// tensor is positive definite over those axes. A non-finite entry fails too.
KOKKOS_INLINE_FUNCTION int firstNonPositiveMinor(const Real T[3][3], int dim,
                                                 Real& minor) {
  const Real minors[3] = {T[0][0], T[0][0] * T[1][1] - T[0][1] * T[1][0],
                          T[0][0] * (T[1][1] * T[2][2] - T[1][2] * T[2][1]) -
                              T[0][1] * (T[1][0] * T[2][2] - T[1][2] * T[2][0]) +
                              T[0][2] * (T[1][0] * T[2][1] - T[1][1] * T[2][0])};
  for (int k = 0; k < dim; ++k) {
    if (!(minors[k] > 0)) {
      minor = minors[k];
      return k;
    }
  }
  return -1;
}

/// Throws kfvm::Error naming the first tensor of values (at the mesh's cells or faces)
/// that is not positive definite over the mesh's axes: its index, centre, entries and
/// the leading minor that fails. what names the coefficient.
template <class ExecSpace>
void requirePositiveDefiniteTensors(const Mesh<ExecSpace>& mesh,
                                    const DeviceView<const Real* [6], ExecSpace>& values,
                                    Centering where, const std::string& what);

/// Face tensors from cell tensors: inside, the distance-weighted matrix harmonic mean
/// d (d_O Gamma_O^-1 + d_N Gamma_N^-1)^-1 (a scalar coefficient's harmonic mean when the
/// tensors are multiples of the identity: flux continuity across layered media); on the
/// boundary, the owner's. Entries off the mesh's axes are zero.
template <class ExecSpace>
void averageTensorsToFaces(const Mesh<ExecSpace>& mesh,
                           const DeviceView<const Real* [6], ExecSpace>& cellTensors,
                           const DeviceView<Real* [6], ExecSpace>& faceTensors);

/// n . Gamma . n at every face: the part of the flux the matrix takes.
template <class ExecSpace>
void tensorNormalNormal(const Mesh<ExecSpace>& mesh,
                        const TensorCoefficient<ExecSpace>& gamma,
                        const DeviceView<Real*, ExecSpace>& values);

}  // namespace kfvm::Details

#endif
