#ifndef KFVM_COEFFICIENT_HPP
#define KFVM_COEFFICIENT_HPP

#include <kfvm_Types.hpp>

namespace kfvm {

/// A term coefficient as kernels read it: one constant, or one value per cell (or face)
/// when values is not empty. Cheap to copy into a kernel.
template <class ExecSpace>
struct Coefficient {
  Real constant = 0;
  DeviceView<const Real*, ExecSpace> values;

  KOKKOS_INLINE_FUNCTION bool isField() const { return values.extent(0) > 0; }
  KOKKOS_INLINE_FUNCTION Real operator()(Ordinal i) const {
    return values.extent(0) > 0 ? values(i) : constant;
  }
};

/// A symmetric diffusion tensor as kernels read it: one constant tensor, or one per face
/// when faceValues is not empty (6 components each, in symmetricIndex's order).
template <class ExecSpace>
struct TensorCoefficient {
  Real constant[6] = {0, 0, 0, 0, 0, 0};
  DeviceView<const Real* [6], ExecSpace> faceValues;

  KOKKOS_INLINE_FUNCTION bool isField() const { return faceValues.extent(0) > 0; }
  /// Gamma[a][b] at face f.
  KOKKOS_INLINE_FUNCTION Real operator()(Ordinal f, int a, int b) const {
    const int k = symmetricIndex(a, b);
    return faceValues.extent(0) > 0 ? faceValues(f, k) : constant[k];
  }
  /// Gamma n at face f (the conormal, unscaled).
  template <class Normals>
  KOKKOS_INLINE_FUNCTION void conormal(Ordinal f, const Normals& normals,
                                       Real out[3]) const {
    for (int a = 0; a < 3; ++a) {
      out[a] = 0;
      for (int b = 0; b < 3; ++b) out[a] += (*this)(f, a, b) * normals(f, b);
    }
  }
};

/// A convection velocity as kernels read it: a constant vector, or the normal component
/// u . n_f per face when normalValues is not empty.
template <class ExecSpace>
struct ConvectionVelocity {
  Real vector[3] = {0, 0, 0};
  DeviceView<const Real*, ExecSpace> normalValues;

  template <class Normals>
  KOKKOS_INLINE_FUNCTION Real normal(Ordinal face, const Normals& normals) const {
    if (normalValues.extent(0) > 0) return normalValues(face);
    return vector[0] * normals(face, 0) + vector[1] * normals(face, 1) +
           vector[2] * normals(face, 2);
  }
};

}  // namespace kfvm

#endif
