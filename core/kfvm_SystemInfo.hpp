#ifndef KFVM_SYSTEM_INFO_HPP
#define KFVM_SYSTEM_INFO_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace kfvm {

/// One memory kfvm can run in: the host's RAM or a GPU's memory.
struct MemoryInfo {
  std::string where;  ///< "host" or the device's name, as the device reports it
  std::string backend;
  std::size_t totalBytes = 0;
  std::size_t freeBytes = 0;
};

/// What this build of kfvm is, and what it runs on. Needs Kokkos initialized.
struct SystemInfo {
  std::string kfvmVersion;
  std::string kokkosVersion;
  std::string realType;
  /// Execution spaces Kokkos was configured with, read from Kokkos' own macros.
  std::vector<std::string> kokkosExecutionSpaces;
  /// Execution spaces kfvm is built and tested for (KFVM_FOR_EACH_BACKEND).
  std::vector<std::string> kfvmBackends;
  std::string defaultExecutionSpace;
  int hostConcurrency = 0;
  bool kokkosKernels = false;
  bool trilinos = false;
  bool mpi = false;
  std::vector<MemoryInfo> memories;
};

/// Execution spaces enabled in the Kokkos kfvm is compiled against, in a fixed order.
std::vector<std::string> kokkosExecutionSpaces();

SystemInfo systemInfo();

/// Kokkos' own configuration report (Kokkos::print_configuration, verbose).
std::string kokkosConfigurationText();

}  // namespace kfvm

#endif
