#ifndef KFVM_ADAPTIVE_OPTIONS_HPP
#define KFVM_ADAPTIVE_OPTIONS_HPP

// Host only, no Kokkos: the deck reader fills these too.

#include <limits>

namespace kfvm {

/// Settings of AdaptiveStepper. The allowed local error of a step, per field, is
/// absoluteTolerance + tolerance * max |phi| (phi the step's result); the step is
/// accepted when its estimated error is at most that (normalized error <= 1).
struct AdaptiveOptions {
  double tolerance = 1e-3;       ///< relative part of the allowed local error
  double absoluteTolerance = 0;  ///< absolute part (for fields that pass through 0)
  double dtMin = 0;  ///< smallest step; a step of dtMin is taken whatever its error
  double dtMax = std::numeric_limits<double>::infinity();  ///< largest step
  double maxGrowth = 2;    ///< dt of the next step over dt of this one, at most
  double minShrink = 0.1;  ///< and at least (also on a rejection)
  double proportional = 0.075, integral = 0.175, derivative = 0.01;  ///< PID exponents
  int maxRejections = 40;  ///< rejected tries of one step before it fails

  /// Throws kfvm::Error naming the first bad setting.
  void validate() const;
};

}  // namespace kfvm

#endif
