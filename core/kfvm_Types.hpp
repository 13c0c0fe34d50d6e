#ifndef KFVM_TYPES_HPP
#define KFVM_TYPES_HPP

#include <kfvm_Config.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kfvm {

/// Floating-point type of fields, coefficients and matrices (KFVM_REAL_TYPE at build
/// time).
using Real = KFVM_REAL_TYPE;
/// Index of a cell, a face or a matrix row/column.
using Ordinal = int;
/// Offset into compressed rows (CRS row pointers); wide enough for any matrix size.
using Offset = std::size_t;
/// The most variables a CoupledSystem (and a coupled deck) takes.
inline constexpr int maxCoupledVariables = 4;

/// The Kokkos device (execution space + its memory space) that kfvm data for ExecSpace
/// lives on.
template <class ExecSpace>
using DeviceOf = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;

/// A View that lives in ExecSpace's memory space.
template <class DataType, class ExecSpace>
using DeviceView = Kokkos::View<DataType, DeviceOf<ExecSpace>>;

/// A vector of Reals on ExecSpace: the type fields, right-hand sides and solver
/// iterates share.
template <class ExecSpace>
using Vector = DeviceView<Real*, ExecSpace>;

/// One double in ExecSpace's memory: a reduction's result that stays on the device.
template <class ExecSpace>
using DeviceScalar = Kokkos::View<double, typename ExecSpace::memory_space>;

/// Where entry T[a][b] of a symmetric 3x3 tensor sits among its 6 stored components, in
/// Voigt order: xx, yy, zz, yz, xz, xy (TensorField, TensorCoefficient).
KOKKOS_INLINE_FUNCTION int symmetricIndex(int a, int b) {
  return a == b ? a : 6 - a - b;
}

/// A device copy of a host array (set-up data: row lists, structures), labelled.
template <class T, class ExecSpace>
DeviceView<T*, ExecSpace> copyToDevice(const std::vector<T>& host,
                                       const std::string& label) {
  DeviceView<T*, ExecSpace> view(label, host.size());
  Kokkos::deep_copy(
      view,
      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          host.data(), host.size()));
  return view;
}

}  // namespace kfvm

#endif
