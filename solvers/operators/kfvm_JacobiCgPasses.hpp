#ifndef KFVM_JACOBI_CG_PASSES_HPP
#define KFVM_JACOBI_CG_PASSES_HPP

#include <kfvm_KokkosCompat.hpp>
#include <kfvm_Types.hpp>

namespace kfvm {

/// The sums CG's iteration hands the host, in this order: r.z, r.r and p.(A p).
using CgSums = Compat::Sums<3>;
enum CgSum { cgRZ = 0, cgRR = 1, cgPAP = 2 };
template <class ExecSpace>
using CgSumsView = Kokkos::View<CgSums, typename ExecSpace::memory_space>;

/// Conjugate gradients with the Jacobi preconditioner (z = w r, w = 1 / diag(A)) in two
/// passes an iteration, each of which computes A p itself instead of reading a stored
/// q = A p and z: for an operator whose product costs less than the traffic of a vector
/// (the matrix-free stencil: one pass reads x and writes y). Per iteration they move 8
/// vectors (direction: r and p read, p written; update: x, r and p read, x and r
/// written) against 13 for the product, update and direction kernels of CG's fused
/// iteration. Offered by LinearOperator::jacobiCgPasses(); ConjugateGradient uses them
/// with a Jacobi preconditioner set up from that operator.
///
/// Both passes only queue work on the device: their scalars are read from and written to
/// device memory.
template <class ExecSpace>
class JacobiCgPasses {
 public:
  virtual ~JacobiCgPasses() = default;

  /// pNew = w r + beta pOld, beta = previous(r.z) / beforePrevious(r.z) (when first,
  /// pNew = w r and neither pOld nor beforePrevious is read), and pNew . A pNew into pAp.
  /// pNew must not be pOld (its neighbours are still read).
  virtual void direction(const Vector<ExecSpace>& weights, const Vector<ExecSpace>& r,
                         const Vector<ExecSpace>& pOld, const Vector<ExecSpace>& pNew,
                         const CgSumsView<ExecSpace>& previous,
                         const CgSumsView<ExecSpace>& beforePrevious, bool first,
                         const DeviceScalar<ExecSpace>& pAp) const = 0;

  /// alpha = previous(r.z) / pAp (0 when pAp <= 0: x and r unchanged); x += alpha p;
  /// r -= alpha A p; into sums: r.(w r), r.r and pAp.
  virtual void update(const Vector<ExecSpace>& weights, const Vector<ExecSpace>& p,
                      const Vector<ExecSpace>& x, const Vector<ExecSpace>& r,
                      const CgSumsView<ExecSpace>& previous,
                      const DeviceScalar<ExecSpace>& pAp,
                      const CgSumsView<ExecSpace>& sums) const = 0;
};

}  // namespace kfvm

#endif
