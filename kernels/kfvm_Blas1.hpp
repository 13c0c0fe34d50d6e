#ifndef KFVM_BLAS1_HPP
#define KFVM_BLAS1_HPP

// BLAS-1 on kfvm vectors: Kokkos Kernels where it is available and provides the
// operation, kfvm's own Kokkos loops otherwise. Every function fences nothing beyond what
// returning a scalar to the host needs.

#include <kfvm_CompileTimeCount.hpp>
#include <kfvm_Config.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_Types.hpp>

#include <algorithm>

#ifdef KFVM_HAVE_KOKKOSKERNELS
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#endif

namespace kfvm::Blas {

// Named functors, not KOKKOS_LAMBDA: these templates are instantiated in many translation
// units, and nvcc's extended-lambda wrappers in a header template then break the one-
// definition rule (a call through a null pointer in axpby at -O3).
namespace Functors {

template <class ExecSpace>
struct Dot {
  Vector<ExecSpace> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Real& sum) const {
    sum += x(i) * y(i);
  }
};

/// x . y accumulated in double (the Krylov methods' device-side sums).
template <class ExecSpace>
struct DotInDouble {
  Vector<ExecSpace> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, double& sum) const {
    sum += double(x(i)) * double(y(i));
  }
};

template <class ExecSpace>
struct Axpby {
  Real alpha;
  Vector<ExecSpace> x;
  Real beta;
  Vector<ExecSpace> y;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const {
    y(i) = alpha * x(i) + beta * y(i);
  }
};

/// y = sum of c[q] x[q] for q < Count, plus y's own value when accumulate: one pass over
/// y (GMRES's Gram-Schmidt and its update), one index a block of rows (block rows a host
/// thread, one a device thread). Count is fixed at compile time, so that the loop over q
/// unrolls. Without accumulate y is not read (it may hold anything).
template <class ExecSpace, int Count>
struct Combination {
  Vector<ExecSpace> x[Count];
  Real c[Count];
  Vector<ExecSpace> y;
  Ordinal size, block;
  bool accumulate;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal b) const {
    Real coefficient[Count];
    for (int q = 0; q < Count; ++q) coefficient[q] = c[q];
    const Ordinal begin = b * block, end = begin + block < size ? begin + block : size;
    for (Ordinal i = begin; i < end; ++i) {
      Real sum = accumulate ? y(i) : Real(0);
      for (int q = 0; q < Count; ++q) sum += coefficient[q] * x[q](i);
      y(i) = sum;
    }
  }
};

template <class ExecSpace>
struct MultiplyElements {
  Vector<ExecSpace> x, y, z;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const { z(i) = x(i) * y(i); }
};

template <class ExecSpace>
struct Fill {
  Vector<ExecSpace> x;
  Real value;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const { x(i) = value; }
};

}  // namespace Functors

/// x . y
template <class ExecSpace>
Real dot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) {
#ifdef KFVM_HAVE_KOKKOSKERNELS
  return KokkosBlas::dot(x, y);
#else
  return sumOverIndex("kfvm::Blas::dot", ExecSpace(), Ordinal(x.extent(0)),
                      Functors::Dot<ExecSpace>{x, y});
#endif
}

/// x . y summed in double into result, which stays in device memory (no wait).
template <class ExecSpace>
void dotInto(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
             const DeviceScalar<ExecSpace>& result) {
  reduceIntoView("kfvm::Blas::dotInto", ExecSpace(), Ordinal(x.extent(0)),
                 Functors::DotInDouble<ExecSpace>{x, y}, result);
}

/// ||x||_2
template <class ExecSpace>
Real norm2(const Vector<ExecSpace>& x) {
  return Compat::sqrt(dot(x, x));
}

/// y = alpha x + beta y
template <class ExecSpace>
void axpby(Real alpha, const Vector<ExecSpace>& x, Real beta,
           const Vector<ExecSpace>& y) {
#ifdef KFVM_HAVE_KOKKOSKERNELS
  KokkosBlas::axpby(alpha, x, beta, y);
#else
  forEachIndex("kfvm::Blas::axpby", ExecSpace(), Ordinal(x.extent(0)),
               Functors::Axpby<ExecSpace>{alpha, x, beta, y});
#endif
}

/// Rows one index of a multi-vector kernel takes (addCombination, VectorSpace::dotsWith):
/// 512 on a host (sums and loads in registers over a stretch of each vector), 1 on a
/// device (coalesced loads).
template <class ExecSpace>
constexpr Ordinal multiVectorBlock() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename ExecSpace::memory_space>::accessible
             ? 512
             : 1;
}

/// Vectors one pass of a multi-vector kernel takes (addCombination,
/// VectorSpace::dotsWith); more take ceil(count / multiVectorChunk) passes.
constexpr int multiVectorChunk = 16;

namespace Details {
template <class ExecSpace, int Count>
void combinationPass(const Vector<ExecSpace>* xs, const double* coefficients,
                     const Vector<ExecSpace>& y, bool accumulate) {
  constexpr Ordinal block = multiVectorBlock<ExecSpace>();
  Functors::Combination<ExecSpace, Count> add{};
  for (int q = 0; q < Count; ++q) {
    add.x[q] = xs[q];
    add.c[q] = Real(coefficients[q]);
  }
  add.y = y;
  add.size = Ordinal(y.extent(0));
  add.block = block;
  add.accumulate = accumulate;
  forEachIndex("kfvm::Blas::combination", ExecSpace(), (add.size + block - 1) / block,
               add, block);
}

/// y = sum of coefficients[q] xs[q] for q < count (plus y when accumulate), in
/// ceil(count / multiVectorChunk) passes over y.
template <class ExecSpace>
void combination(const Vector<ExecSpace>* xs, const double* coefficients, int count,
                 const Vector<ExecSpace>& y, bool accumulate) {
  for (int first = 0; first < count; first += multiVectorChunk, accumulate = true)
    withCompileTimeCount<multiVectorChunk>(
        std::min(count - first, multiVectorChunk), [&](auto chunk) {
          constexpr int n = decltype(chunk)::value;
          if constexpr (n > 0)
            combinationPass<ExecSpace, n>(xs + first, coefficients + first, y,
                                          accumulate);
        });
}
}  // namespace Details

/// y += sum of coefficients[q] xs[q] for q < count, in ceil(count / 16) passes over y.
template <class ExecSpace>
void addCombination(const Vector<ExecSpace>* xs, const double* coefficients, int count,
                    const Vector<ExecSpace>& y) {
  Details::combination(xs, coefficients, count, y, true);
}

/// z = x .* y (elementwise product)
template <class ExecSpace>
void multiplyElements(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                      const Vector<ExecSpace>& z) {
#ifdef KFVM_HAVE_KOKKOSKERNELS
  KokkosBlas::mult(Real(0), z, Real(1), x, y);
#else
  forEachIndex("kfvm::Blas::multiplyElements", ExecSpace(), Ordinal(x.extent(0)),
               Functors::MultiplyElements<ExecSpace>{x, y, z});
#endif
}

/// x = value, by a kernel on ExecSpace (a scalar deep_copy may go through the host).
template <class ExecSpace>
void fill(const Vector<ExecSpace>& x, Real value) {
  forEachIndex("kfvm::Blas::fill", ExecSpace(), Ordinal(x.extent(0)),
               Functors::Fill<ExecSpace>{x, value});
}

/// y = sum of coefficients[q] xs[q] for q < count (0 when count is 0), in
/// ceil(count / 16) passes over y; y's old values are not read.
template <class ExecSpace>
void setCombination(const Vector<ExecSpace>* xs, const double* coefficients, int count,
                    const Vector<ExecSpace>& y) {
  if (count == 0)
    fill(y, Real(0));
  else
    Details::combination(xs, coefficients, count, y, false);
}

/// y = x
template <class ExecSpace>
void copy(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) {
  Kokkos::deep_copy(ExecSpace(), y, x);
}

}  // namespace kfvm::Blas

#endif
