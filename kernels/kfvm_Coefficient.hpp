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

  bool isField() const { return values.extent(0) > 0; }
  KOKKOS_INLINE_FUNCTION Real operator()(Ordinal i) const {
    return values.extent(0) > 0 ? values(i) : constant;
  }
};

}  // namespace kfvm

#endif
