#ifndef KFVM_STREAMING_STORES_HPP
#define KFVM_STREAMING_STORES_HPP

// Non-temporal ("streaming") stores for loops that write a large array on an x86-64 host.
// A normal store first reads the cache line it writes (read for ownership), so a loop
// that fills a fresh array moves that array twice; a streaming store writes whole lines
// to memory without reading them, as memcpy does for large copies. Only the host pass
// of an x86-64 build has them; everywhere else storeRange() is the plain loop.

#include <kfvm_Types.hpp>

#include <cstdint>

#if defined(__x86_64__) && defined(__SSE2__)
#define KFVM_HOST_HAS_STREAMING_STORES 1
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define KFVM_HAVE_STREAMING_STORES 1  // this pass compiles host code
#include <emmintrin.h>
#endif
#endif

namespace kfvm::Details {

/// True when storeRange() can stream on this build's host.
constexpr bool hostHasStreamingStores() {
#ifdef KFVM_HOST_HAS_STREAMING_STORES
  return true;
#else
  return false;
#endif
}

#ifdef KFVM_HAVE_STREAMING_STORES
/// Writes one 64-byte line, dst and line 64-byte aligned, with streaming stores.
inline void streamLine(double* dst, const double* line) {
  for (int b = 0; b < 8; b += 2) _mm_stream_pd(dst + b, _mm_load_pd(line + b));
}
inline void streamLine(float* dst, const float* line) {
  for (int b = 0; b < 16; b += 4) _mm_stream_ps(dst + b, _mm_load_ps(line + b));
}
#endif

/// Writes ys[iBegin .. iEnd) as computed by compute(from, to, out), which writes the
/// values of [from, to) to out[0 .. to - from) (out may be ys + from). Plainly, that is
/// one call, compute(iBegin, iEnd, ys + iBegin). With `streaming` on an x86-64 host, the
/// whole 64-byte lines of the range are computed a block of lines at a time into a
/// buffer that stays in L1, then written with streaming stores and fenced (sfence), so
/// they are visible before the kernel ends; the partial lines at either end take normal
/// stores. compute's loop is meant to vectorize: keep it a plain loop writing `out`.
template <class Compute>
KOKKOS_INLINE_FUNCTION void storeRange(Real* ys, int iBegin, int iEnd, bool streaming,
                                       const Compute& compute) {
#ifdef KFVM_HAVE_STREAMING_STORES
  if (streaming) {
    constexpr int perLine = 64 / int(sizeof(Real)), perBlock = 32 * perLine;
    int i = iBegin;
    while (i < iEnd && reinterpret_cast<std::uintptr_t>(ys + i) % 64 != 0) ++i;
    if (i > iBegin) compute(iBegin, i, ys + iBegin);
    alignas(64) Real block[perBlock];
    while (iEnd - i >= perLine) {
      const int lines = (iEnd - i) / perLine < 32 ? (iEnd - i) / perLine : 32;
      compute(i, i + lines * perLine, block);
      for (int line = 0; line < lines; ++line)
        streamLine(ys + i + line * perLine, block + line * perLine);
      i += lines * perLine;
    }
    if (i < iEnd) compute(i, iEnd, ys + i);
    _mm_sfence();
    return;
  }
#else
  (void)streaming;
#endif
  compute(iBegin, iEnd, ys + iBegin);
}

}  // namespace kfvm::Details

#endif
