#ifndef KFVM_RESOURCE_WATCH_HPP
#define KFVM_RESOURCE_WATCH_HPP

#include <string>

namespace kfvm {

/// What a ResourceWatch saw: Kokkos allocations, and deep copies between two different
/// memory spaces (host <-> device), with the labels of the first of each.
struct ResourceCounts {
  int allocations = 0;
  int crossSpaceCopies = 0;
  std::string firstAllocation;
  std::string firstCopy;  ///< "SOURCE -> DESTINATION"
};

/// Counts allocations and cross-space copies while it lives, through Kokkos' profiling
/// hooks (the Kokkos Tools interface): the test that a time step allocates nothing and
/// copies nothing between host and device, in C++ and from Python. One watch at a time
/// (a second one throws kfvm::Error); it replaces any Kokkos tool's allocate and
/// deep-copy callbacks while it lives. Needs Kokkos initialized.
class ResourceWatch {
 public:
  ResourceWatch();
  ~ResourceWatch();
  ResourceWatch(const ResourceWatch&) = delete;
  ResourceWatch& operator=(const ResourceWatch&) = delete;

  /// The counts so far (fence first to see the work launched before).
  ResourceCounts counts() const;
};

}  // namespace kfvm

#endif
