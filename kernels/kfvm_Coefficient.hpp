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
