#ifndef KFVM_DETAIL_STRUCTURE_VERSIONS_HPP
#define KFVM_DETAIL_STRUCTURE_VERSIONS_HPP

// Structure versions of distributed operators (LinearOperator::structureVersion()).

#include <atomic>

namespace kfvm::Details {

/// A structure version no earlier operator had (the first of a run of 2^20 of them):
/// an operator made where an earlier one was is not taken for it by a preconditioner's
/// setup.
inline long newStructureVersion() {
  static std::atomic<long> next{1};
  return next.fetch_add(1L << 20);
}

}  // namespace kfvm::Details

#endif
