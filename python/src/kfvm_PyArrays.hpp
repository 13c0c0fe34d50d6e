#ifndef KFVM_PY_ARRAYS_HPP
#define KFVM_PY_ARRAYS_HPP

// Zero-copy exchange of a field's View: DLPack capsules (numpy/cupy/torch.from_dlpack),
// the CUDA array interface, and the device DLPack names the memory by.

#include "kfvm_PyBindings.hpp"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <type_traits>

namespace kfvm::python {

template <class Space>
constexpr bool hostAccessible() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename Space::memory_space>::accessible;
}

/// (device type, device id) as DLPack names the memory of Space's Views.
template <class Space>
std::pair<int, int> dlpackDevice() {
  if constexpr (hostAccessible<Space>()) {
    return {int(kDLCPU), 0};
#ifdef KOKKOS_ENABLE_CUDA
  } else if constexpr (std::is_same<Space, Kokkos::Cuda>::value) {
    return {int(kDLCUDA), Kokkos::Cuda().cuda_device()};
#endif
#ifdef KOKKOS_ENABLE_HIP
  } else if constexpr (std::is_same<Space, Kokkos::HIP>::value) {
    return {int(kDLROCM), 0};
#endif
  } else {
    static_assert(hostAccessible<Space>(), "no DLPack device for this backend");
    return {int(kDLCPU), 0};
  }
}

/// What a DLPack capsule owns: a copy of the View (its memory stays alive until the
/// consumer calls the deleter) and the session (Kokkos stays up as long).
template <class Space>
struct DlpackExport {
  SessionRef session;
  Vector<Space> view;
  std::int64_t shape[1];
  DLManagedTensor tensor;

  static void deleter(DLManagedTensor* tensor) {
    delete static_cast<DlpackExport*>(tensor->manager_ctx);
  }
};

inline void destroyUnusedCapsule(PyObject* capsule) {
  // A consumer renames the capsule "used_dltensor" and calls the deleter itself.
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* tensor = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (tensor && tensor->deleter) tensor->deleter(tensor);
}

/// A DLPack capsule of the View's memory (no copy). Fences first: the consumer sees
/// every value written before.
template <class Space>
py::capsule toDlpack(const Vector<Space>& view, const SessionRef& session) {
  Space().fence();
  auto* owner =
      new DlpackExport<Space>{session, view, {std::int64_t(view.extent(0))}, {}};
  const auto device = dlpackDevice<Space>();
  DLTensor& t = owner->tensor.dl_tensor;
  t.data = view.data();
  t.device = DLDevice{DLDeviceType(device.first), device.second};
  t.ndim = 1;
  t.dtype = DLDataType{kDLFloat, std::uint8_t(sizeof(Real) * 8), 1};
  t.shape = owner->shape;
  t.strides = nullptr;  // compact
  t.byte_offset = 0;
  owner->tensor.manager_ctx = owner;
  owner->tensor.deleter = &DlpackExport<Space>::deleter;
  PyObject* capsule = PyCapsule_New(&owner->tensor, "dltensor", destroyUnusedCapsule);
  if (!capsule) {
    delete owner;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

/// The CUDA array interface (version 3) of a device View; fenced, so no stream is
/// named.
template <class Space>
py::dict cudaArrayInterface(const Vector<Space>& view) {
  Space().fence();
  py::dict interface;
  interface["shape"] = py::make_tuple(py::ssize_t(view.extent(0)));
  interface["typestr"] = sizeof(Real) == 8 ? "<f8" : "<f4";
  interface["data"] =
      py::make_tuple(reinterpret_cast<std::uintptr_t>(view.data()), false);
  interface["strides"] = py::none();
  interface["version"] = 3;
  return interface;
}

}  // namespace kfvm::python

#endif
