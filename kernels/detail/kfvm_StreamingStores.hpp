#ifndef KFVM_STREAMING_STORES_HPP
#define KFVM_STREAMING_STORES_HPP

// Non-temporal ("streaming") stores for loops that write a large array on an x86-64 host.
// A normal store first reads the cache line it writes (read for ownership), so a loop
// that fills a fresh array moves that array twice; a streaming store writes whole lines
// to memory without reading them, as memcpy does for large copies. Only the host pass
// of an x86-64 build has them; everywhere else storeRow() is the plain loop.

#include <kfvm_Types.hpp>

#include <cstdint>

#if defined(__x86_64__) && defined(__SSE2__) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__)
#define KFVM_HAVE_STREAMING_STORES 1
#include <emmintrin.h>
#endif

namespace kfvm::Details {

/// True when storeRow() can stream on this build's host.
constexpr bool hostHasStreamingStores() {
#if defined(__x86_64__) && defined(__SSE2__)
  return true;
#else
  return false;
#endif
}

#ifdef KFVM_HAVE_STREAMING_STORES
/// Writes one 64-byte line, dst 64-byte aligned, with streaming stores.
inline void streamLine(double* dst, const double* line) {
  for (int b = 0; b < 8; b += 2) _mm_stream_pd(dst + b, _mm_loadu_pd(line + b));
}
inline void streamLine(float* dst, const float* line) {
  for (int b = 0; b < 16; b += 4) _mm_stream_ps(dst + b, _mm_loadu_ps(line + b));
}
#endif

/// ys[i] = value(i) for i in [iBegin, iEnd). With `streaming` on an x86-64 host, the
/// whole 64-byte lines of the range are computed a line at a time and written with
/// streaming stores, then fenced (sfence), so they are visible before the kernel ends;
/// the partial lines at either end take normal stores.
template <class CellValue>
KOKKOS_INLINE_FUNCTION void storeRow(Real* KOKKOS_RESTRICT ys, int iBegin, int iEnd,
                                     bool streaming, const CellValue& value) {
#ifdef KFVM_HAVE_STREAMING_STORES
  if (streaming) {
    constexpr int perLine = 64 / int(sizeof(Real));
    int i = iBegin;
    for (; i < iEnd && reinterpret_cast<std::uintptr_t>(ys + i) % 64 != 0; ++i)
      ys[i] = value(i);
    for (; i + perLine <= iEnd; i += perLine) {
      Real line[perLine];
      for (int b = 0; b < perLine; ++b) line[b] = value(i + b);
      streamLine(ys + i, line);
    }
    for (; i < iEnd; ++i) ys[i] = value(i);
    _mm_sfence();
    return;
  }
#else
  (void)streaming;
#endif
  for (int i = iBegin; i < iEnd; ++i) ys[i] = value(i);
}

}  // namespace kfvm::Details

#endif
