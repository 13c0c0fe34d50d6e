#include "kfvm_SystemInfo.hpp"

#include "kfvm_Backends.hpp"
#include "kfvm_Config.hpp"
#include "kfvm_KokkosCompat.hpp"

#include <Kokkos_Core.hpp>

#include <fstream>
#include <sstream>

#include <unistd.h>

namespace kfvm {

namespace {

#define KFVM_STRINGIFY_IMPL(x) #x
#define KFVM_STRINGIFY(x) KFVM_STRINGIFY_IMPL(x)

MemoryInfo hostMemory() {
  MemoryInfo memory;
  memory.where = "host";
  memory.backend = Kokkos::DefaultHostExecutionSpace::name();
  const long pageSize = sysconf(_SC_PAGESIZE);
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pageSize > 0 && pages > 0)
    memory.totalBytes = std::size_t(pageSize) * std::size_t(pages);
  // MemAvailable counts reclaimable caches; sysconf's free pages do not.
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kibibytes = 0;
  std::string unit;
  while (meminfo >> key >> kibibytes >> unit) {
    if (key == "MemAvailable:") {
      memory.freeBytes = kibibytes * 1024;
      break;
    }
  }
  if (memory.freeBytes == 0) {
    const long available = sysconf(_SC_AVPHYS_PAGES);
    if (pageSize > 0 && available > 0)
      memory.freeBytes = std::size_t(pageSize) * std::size_t(available);
  }
  return memory;
}

#if defined(KOKKOS_ENABLE_CUDA)
MemoryInfo deviceMemory() {
  MemoryInfo memory;
  memory.backend = "Cuda";
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&properties, device) == cudaSuccess)
    memory.where = properties.name;
  cudaMemGetInfo(&memory.freeBytes, &memory.totalBytes);
  return memory;
}
#elif defined(KOKKOS_ENABLE_HIP)
MemoryInfo deviceMemory() {
  MemoryInfo memory;
  memory.backend = "HIP";
  int device = 0;
  hipDeviceProp_t properties{};
  if (hipGetDevice(&device) == hipSuccess &&
      hipGetDeviceProperties(&properties, device) == hipSuccess)
    memory.where = properties.name;
  (void)hipMemGetInfo(&memory.freeBytes, &memory.totalBytes);
  return memory;
}
#endif

}  // namespace

std::vector<std::string> kokkosExecutionSpaces() {
  std::vector<std::string> spaces;
#ifdef KOKKOS_ENABLE_SERIAL
  spaces.emplace_back("Serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  spaces.emplace_back("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  spaces.emplace_back("Threads");
#endif
#ifdef KOKKOS_ENABLE_HPX
  spaces.emplace_back("HPX");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  spaces.emplace_back("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  spaces.emplace_back("HIP");
#endif
#ifdef KOKKOS_ENABLE_SYCL
  spaces.emplace_back("SYCL");
#endif
#ifdef KOKKOS_ENABLE_OPENMPTARGET
  spaces.emplace_back("OpenMPTarget");
#endif
  return spaces;
}

SystemInfo systemInfo() {
  SystemInfo info;
  info.kfvmVersion = KFVM_VERSION_STRING;
  info.kokkosVersion = Compat::kokkosVersion();
  info.realType = KFVM_STRINGIFY(KFVM_REAL_TYPE);
  info.kokkosExecutionSpaces = kokkosExecutionSpaces();
  info.kfvmBackends = enabledBackends();
  info.defaultExecutionSpace = Kokkos::DefaultExecutionSpace::name();
  info.hostConcurrency = Kokkos::DefaultHostExecutionSpace().concurrency();
#ifdef KFVM_HAVE_KOKKOSKERNELS
  info.kokkosKernels = true;
#endif
#ifdef KFVM_HAVE_TRILINOS
  info.trilinos = true;
#endif
#ifdef KFVM_HAVE_MPI
  info.mpi = true;
#endif
  info.memories.push_back(hostMemory());
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  info.memories.push_back(deviceMemory());
#endif
  return info;
}

std::string kokkosConfigurationText() {
  std::ostringstream text;
  Kokkos::print_configuration(text, true);
  return text.str();
}

}  // namespace kfvm
