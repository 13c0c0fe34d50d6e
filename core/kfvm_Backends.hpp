#ifndef KFVM_BACKENDS_HPP
#define KFVM_BACKENDS_HPP

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

// KFVM_FOR_EACH_BACKEND(F) expands F(Space) once for every execution space that both
// Kokkos and kfvm enable. Library sources use it to instantiate their templates, so a
// Kokkos build with CUDA and OpenMP gets kfvm for Cuda, OpenMP and Serial.

#ifdef KOKKOS_ENABLE_SERIAL
#define KFVM_IF_SERIAL(F) F(Kokkos::Serial)
#else
#define KFVM_IF_SERIAL(F)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
#define KFVM_IF_OPENMP(F) F(Kokkos::OpenMP)
#else
#define KFVM_IF_OPENMP(F)
#endif
#ifdef KOKKOS_ENABLE_CUDA
#define KFVM_IF_CUDA(F) F(Kokkos::Cuda)
#else
#define KFVM_IF_CUDA(F)
#endif
#ifdef KOKKOS_ENABLE_HIP
#define KFVM_IF_HIP(F) F(Kokkos::HIP)
#else
#define KFVM_IF_HIP(F)
#endif

#define KFVM_FOR_EACH_BACKEND(F) \
  KFVM_IF_SERIAL(F) KFVM_IF_OPENMP(F) KFVM_IF_CUDA(F) KFVM_IF_HIP(F)

namespace kfvm {

/// Names of the execution spaces kfvm is built for, in KFVM_FOR_EACH_BACKEND order.
inline std::vector<std::string> enabledBackends() {
  std::vector<std::string> names;
#define KFVM_PUSH_NAME(Space) names.emplace_back(Space::name());
  KFVM_FOR_EACH_BACKEND(KFVM_PUSH_NAME)
#undef KFVM_PUSH_NAME
  return names;
}

}  // namespace kfvm

#endif
