#ifndef KFVM_FIXED_DIVISOR_HPP
#define KFVM_FIXED_DIVISOR_HPP

#include <kfvm_Error.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace kfvm {

/// Division of indices 0 <= n < 2^31 by a divisor fixed in advance, by one 64-bit
/// multiply and a shift instead of an integer division (Granlund and Montgomery,
/// "Division by invariant integers using multiplication", 1994, theorem 4.2): with
/// l = ceil(log2 d) and m = ceil(2^(31 + l) / d), floor(n / d) = floor(n m / 2^(31 + l)).
/// A GPU has no integer divider: a division by a run-time number there is a
/// long instruction sequence, this is two or three instructions. Used where a flat cell
/// index becomes (i, j, k) in kernels that are otherwise bound by memory traffic.
class FixedDivisor {
 public:
  FixedDivisor() = default;  // divides by 1
  explicit FixedDivisor(int divisor) : divisor_(divisor) {
    if (divisor < 1)
      throw Error("kfvm::FixedDivisor: the divisor must be at least 1, not " +
                  std::to_string(divisor));
    int l = 0;
    while ((std::int64_t(1) << l) < divisor) ++l;
    shift_ = 31 + l;
    multiplier_ = ((std::uint64_t(1) << shift_) + std::uint64_t(divisor) - 1) /
                  std::uint64_t(divisor);
  }

  int divisor() const { return divisor_; }

  /// floor(n / divisor) for 0 <= n < 2^31 (m <= 2^32, so n m < 2^63).
  KOKKOS_INLINE_FUNCTION int quotient(int n) const {
    return int((std::uint64_t(n) * multiplier_) >> shift_);
  }

 private:
  int divisor_ = 1;
  std::uint64_t multiplier_ = std::uint64_t(1) << 31;
  int shift_ = 31;
};

}  // namespace kfvm

#endif
