#ifndef KFVM_KOKKOS_COMPAT_HPP
#define KFVM_KOKKOS_COMPAT_HPP

// Every difference between Kokkos 3.4 (Debian 12) and Kokkos 4.x that kfvm meets lives
// here, behind kfvm::Compat. Nothing else in kfvm tests KOKKOS_VERSION.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>

#if KOKKOS_VERSION >= 30700
#define KFVM_KOKKOS_HAS_MATH_FUNCTIONS 1
#endif

// Kokkos' mdspan-based View (the default from 4.6.99 on) is miscompiled by GCC before 13
// on the host: a default View's tracker is zeroed, and copying onto it crashes
// (kokkos/kokkos#7464). Refuse the combination rather than build a library that crashes.
#if KOKKOS_VERSION >= 40699 && !defined(KOKKOS_ENABLE_IMPL_VIEW_LEGACY) && \
    defined(__GNUC__) && !defined(__clang__) && !defined(__NVCC__) &&      \
    !defined(__CUDACC__) && __GNUC__ < 13
#error \
    "kfvm: GCC < 13 miscompiles this Kokkos' mdspan View (kokkos/kokkos#7464): \
configure Kokkos with -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON, or build with GCC 13+ or Clang"
#endif

namespace kfvm::Compat {

#ifdef KFVM_KOKKOS_HAS_MATH_FUNCTIONS
using Kokkos::abs;
using Kokkos::atan2;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::isfinite;
using Kokkos::sin;
using Kokkos::sqrt;
#else
// Kokkos 3.4 has only Kokkos::Experimental math; these overloads are what kfvm uses.
KOKKOS_INLINE_FUNCTION double sqrt(double x) {
  return ::sqrt(x);
}
KOKKOS_INLINE_FUNCTION float sqrt(float x) {
  return ::sqrtf(x);
}
KOKKOS_INLINE_FUNCTION double abs(double x) {
  return ::fabs(x);
}
KOKKOS_INLINE_FUNCTION float abs(float x) {
  return ::fabsf(x);
}
KOKKOS_INLINE_FUNCTION double sin(double x) {
  return ::sin(x);
}
KOKKOS_INLINE_FUNCTION float sin(float x) {
  return ::sinf(x);
}
KOKKOS_INLINE_FUNCTION double cos(double x) {
  return ::cos(x);
}
KOKKOS_INLINE_FUNCTION double atan2(double y, double x) {
  return ::atan2(y, x);
}
KOKKOS_INLINE_FUNCTION float cos(float x) {
  return ::cosf(x);
}
KOKKOS_INLINE_FUNCTION double exp(double x) {
  return ::exp(x);
}
KOKKOS_INLINE_FUNCTION float exp(float x) {
  return ::expf(x);
}
KOKKOS_INLINE_FUNCTION bool isfinite(double x) {
  return std::isfinite(x);
}
KOKKOS_INLINE_FUNCTION bool isfinite(float x) {
  return std::isfinite(x);
}
#endif

/// Host memory that kernels write to directly (pinned on GPUs): a solver's iteration
/// publishes its convergence scalar there and the host reads it after a fence, with no
/// deep_copy. Kokkos 3.4 (Debian, host backends only) has no such space: HostSpace.
#if KOKKOS_VERSION >= 30700
using HostPinnedSpace = Kokkos::SharedHostPinnedSpace;
#else
using HostPinnedSpace = Kokkos::HostSpace;
#endif

/// Sums of several values in one reduction (kfvm's fused CG): Kokkos::Sum joins them
/// with +=, on volatile operands in Kokkos 3.4 and plain ones in 4.x.
template <int N>
struct Sums {
  double value[N] = {};

  KOKKOS_INLINE_FUNCTION Sums& operator+=(const Sums& other) {
    for (int i = 0; i < N; ++i) value[i] += other.value[i];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile Sums& other) volatile {
    for (int i = 0; i < N; ++i) value[i] += other.value[i];
  }
};

/// Maxima of several values in one reduction (a multigrid level's summary), by the same
/// route as Sums: Kokkos::Sum joins with +=, which here keeps the larger of each pair,
/// and a NaN over any number once it is there (a NaN among the values is seen). Its
/// identity (reduction_identity below) is the lowest value.
template <int N>
struct Maxima {
  double value[N];

  KOKKOS_INLINE_FUNCTION Maxima() {
    for (int i = 0; i < N; ++i) value[i] = -1e308;
  }
  KOKKOS_INLINE_FUNCTION Maxima& operator+=(const Maxima& other) {
    for (int i = 0; i < N; ++i)
      if (other.value[i] != other.value[i] || other.value[i] > value[i])
        value[i] = other.value[i];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile Maxima& other) volatile {
    for (int i = 0; i < N; ++i)
      if (other.value[i] != other.value[i] || other.value[i] > value[i])
        value[i] = other.value[i];
  }
  /// value[i] = max(value[i], x); NaN when x is.
  KOKKOS_INLINE_FUNCTION void raise(int i, double x) {
    if (x != x || x > value[i]) value[i] = x;
  }
};

/// Fences one execution space instance, with a label where Kokkos supports it.
template <class ExecSpace>
void fence(const ExecSpace& space, const std::string& label) {
#if KOKKOS_VERSION >= 30600
  space.fence(label);
#else
  (void)label;
  space.fence();
#endif
}

/// Kokkos version as "major.minor.patch".
inline std::string kokkosVersion() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." +
         std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}

}  // namespace kfvm::Compat

namespace Kokkos {
template <int N>
struct reduction_identity<kfvm::Compat::Sums<N>> {
  KOKKOS_FORCEINLINE_FUNCTION static kfvm::Compat::Sums<N> sum() { return {}; }
};
template <int N>
struct reduction_identity<kfvm::Compat::Maxima<N>> {
  KOKKOS_FORCEINLINE_FUNCTION static kfvm::Compat::Maxima<N> sum() { return {}; }
};
}  // namespace Kokkos

#endif
