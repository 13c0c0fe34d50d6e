#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CompileTimeCount.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_VectorSpace.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace kfvm {

namespace Details {

/// Sums of a . b and c . d over the entries the mask keeps (all when it is empty). A
/// ghost entry is skipped, not multiplied by 0: it may hold anything, inf included.
template <class ExecSpace>
struct OwnedDots {
  Vector<ExecSpace> owned, a, b, c, d;
  bool masked;
  KOKKOS_FUNCTION void operator()(Ordinal i, Compat::Sums<2>& sums) const {
    if (masked && owned(i) == 0) return;
    sums.value[0] += double(a(i)) * double(b(i));
    sums.value[1] += double(c(i)) * double(d(i));
  }
};

/// Sums of v[q] . w for q < Count, then w . w, over the entries the mask keeps: one
/// index a block of rows (block rows a host thread, one a device thread), summed in
/// registers (Count is fixed at compile time), then into the reduction.
template <class ExecSpace, int Count>
struct OwnedDotsWith {
  Vector<ExecSpace> owned, w, v[Count > 0 ? Count : 1];
  bool masked;
  Ordinal size, block;
  KOKKOS_FUNCTION void operator()(Ordinal b, Compat::Sums<Count + 1>& sums) const {
    double local[Count + 1] = {};
    const Ordinal begin = b * block, end = begin + block < size ? begin + block : size;
    for (Ordinal i = begin; i < end; ++i) {
      if (masked && owned(i) == 0) continue;
      const double wi = double(w(i));
      for (int q = 0; q < Count; ++q) local[q] += double(v[q](i)) * wi;
      local[Count] += wi * wi;
    }
    for (int q = 0; q <= Count; ++q) sums.value[q] += local[q];
  }
};

/// out[q] = basis[q] . w for q < Count and self = w . w (this process's sums), one pass
/// over w.
template <class ExecSpace, int Count>
void ownedDotsWith(Ordinal size, const Vector<ExecSpace>& owned,
                   const Vector<ExecSpace>& w, const Vector<ExecSpace>* basis,
                   double* out, double& self) {
  constexpr Ordinal block = Blas::multiVectorBlock<ExecSpace>();
  OwnedDotsWith<ExecSpace, Count> dots{owned, w, {}, owned.extent(0) > 0, size, block};
  for (int q = 0; q < Count; ++q) dots.v[q] = basis[q];
  Compat::Sums<Count + 1> sums;
  reduceOverIndex("kfvm::VectorSpace::dotsWith", ExecSpace(), (size + block - 1) / block,
                  dots, sums, block);
  for (int q = 0; q < Count; ++q) out[q] = sums.value[q];
  self = sums.value[Count];
}

template <class ExecSpace>
struct ZeroGhosts {
  DeviceView<Ordinal*, ExecSpace> ghosts;
  Vector<ExecSpace> x;
  KOKKOS_FUNCTION void operator()(Ordinal g) const { x(ghosts(g)) = 0; }
};

}  // namespace Details

template <class ExecSpace>
VectorSpace<ExecSpace>::VectorSpace(Ordinal size) : size_(size) {
  require(size >= 0, "vector space: size must be >= 0, got ", size);
}

template <class ExecSpace>
VectorSpace<ExecSpace>::VectorSpace(const Vector<ExecSpace>& owned,
                                    const DeviceView<Ordinal*, ExecSpace>& ghosts,
                                    Reduction sumOverProcesses)
    : size_(Ordinal(owned.extent(0))),
      owned_(owned),
      ghosts_(ghosts),
      sumOverProcesses_(std::move(sumOverProcesses)) {
  require(bool(sumOverProcesses_),
          "vector space: a distributed space needs a reduction over processes");
}

template <class ExecSpace>
void VectorSpace<ExecSpace>::dots(const Vector<ExecSpace>& a, const Vector<ExecSpace>& b,
                                  const Vector<ExecSpace>& c, const Vector<ExecSpace>& d,
                                  double out[2]) const {
  Compat::Sums<2> sums;
  reduceOverIndex("kfvm::VectorSpace::dots", ExecSpace(), size_,
                  Details::OwnedDots<ExecSpace>{owned_, a, b, c, d, owned_.extent(0) > 0},
                  sums);
  out[0] = sums.value[0];
  out[1] = sums.value[1];
  sum(out, 2);
}

template <class ExecSpace>
void VectorSpace<ExecSpace>::dotsWith(const Vector<ExecSpace>& w,
                                      const Vector<ExecSpace>* basis, int count,
                                      double* out) const {
  require(count >= 0, "vector space: dotsWith of ", count, " vectors");
  int first = 0;
  do {  // w . w from the first pass
    double self = 0;
    withCompileTimeCount<Blas::multiVectorChunk>(
        std::min(Blas::multiVectorChunk, count - first), [&](auto chunk) {
          Details::ownedDotsWith<ExecSpace, decltype(chunk)::value>(
              size_, owned_, w, basis + first, out + first, self);
        });
    if (first == 0) out[count] = self;
    first += Blas::multiVectorChunk;
  } while (first < count);
  sum(out, count + 1);
}

template <class ExecSpace>
double VectorSpace<ExecSpace>::dot(const Vector<ExecSpace>& x,
                                   const Vector<ExecSpace>& y) const {
  double out[2];
  dots(x, y, x, y, out);  // one pass; the second sum is free (the same loads)
  return out[0];
}

template <class ExecSpace>
double VectorSpace<ExecSpace>::norm2(const Vector<ExecSpace>& x) const {
  return std::sqrt(dot(x, x));
}

template <class ExecSpace>
void VectorSpace<ExecSpace>::sum(double* values, int count) const {
  if (sumOverProcesses_) sumOverProcesses_(values, count);
}

template <class ExecSpace>
void VectorSpace<ExecSpace>::zeroGhosts(const Vector<ExecSpace>& x) const {
  if (ghosts_.extent(0) == 0) return;
  forEachIndex("kfvm::VectorSpace::zeroGhosts", ExecSpace(), Ordinal(ghosts_.extent(0)),
               Details::ZeroGhosts<ExecSpace>{ghosts_, x});
}

#define KFVM_INSTANTIATE_VECTOR_SPACE(Space) template class VectorSpace<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_VECTOR_SPACE)

}  // namespace kfvm
