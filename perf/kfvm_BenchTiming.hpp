// Timing helpers the perf programs share: fenced wall-clock seconds and the median.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

namespace kfvm_bench {

/// Seconds since start, after every kernel launched before has finished.
inline double seconds(const std::chrono::steady_clock::time_point& start) {
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The median of values (the upper one of an even count).
inline double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace kfvm_bench
