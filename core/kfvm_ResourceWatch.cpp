#include <kfvm_Error.hpp>
#include <kfvm_ResourceWatch.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <mutex>

namespace kfvm {

namespace {

std::mutex watchMutex;
bool watching = false;
ResourceCounts watchCounts;

void countAllocation(const Kokkos_Profiling_SpaceHandle, const char* label, const void*,
                     const uint64_t) {
  std::lock_guard<std::mutex> lock(watchMutex);
  if (watchCounts.allocations++ == 0) watchCounts.firstAllocation = label;
}

void countDeepCopy(Kokkos_Profiling_SpaceHandle destinationSpace, const char* destination,
                   const void*, Kokkos_Profiling_SpaceHandle sourceSpace,
                   const char* source, const void*, uint64_t) {
  if (std::strcmp(destinationSpace.name, sourceSpace.name) == 0) return;
  std::lock_guard<std::mutex> lock(watchMutex);
  if (watchCounts.crossSpaceCopies++ == 0)
    watchCounts.firstCopy = std::string(source) + " -> " + destination;
}

}  // namespace

ResourceWatch::ResourceWatch() {
  require(Kokkos::is_initialized(), "a ResourceWatch needs Kokkos initialized");
  std::lock_guard<std::mutex> lock(watchMutex);
  require(!watching, "another ResourceWatch is already counting");
  watching = true;
  watchCounts = ResourceCounts();
  Kokkos::Tools::Experimental::set_allocate_data_callback(countAllocation);
  Kokkos::Tools::Experimental::set_begin_deep_copy_callback(countDeepCopy);
}

ResourceWatch::~ResourceWatch() {
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_deep_copy_callback(nullptr);
  std::lock_guard<std::mutex> lock(watchMutex);
  watching = false;
}

ResourceCounts ResourceWatch::counts() const {
  std::lock_guard<std::mutex> lock(watchMutex);
  return watchCounts;
}

}  // namespace kfvm
