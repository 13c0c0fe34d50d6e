// Preconditioned conjugate gradients, for symmetric positive definite operators, and
// flexible CG (Notay's FCG(1)) for preconditioners that are not a fixed operator.
//
// The fused iteration (one process, Jacobi or no preconditioner, plain CG) is three
// kernels and one host round trip: (1) q = A p with p.q (LinearOperator::applyAndDot:
// one pass for the CRS matrix and the stencil, into device memory); (2) r -= alpha q
// with r.z and r.r (z = w r, w the Jacobi weights or 1, not stored), alpha = r.z / p.q
// read on the device; (3) x += alpha p and p = w r + beta p, beta read on the device
// (after the last iteration, x += alpha p alone). Moving x's update to (3), which reads
// p anyway, and not storing z leaves 12 vectors of traffic an iteration (p, q; r, q, w,
// r; r, w, p, x, p, x) against 13; where w is one number inside the grid
// (Preconditioner::uniformWeights(): Jacobi over the constant-coefficient stencil) it is
// read only at the boundary cells: 10. The sums stay in device Views; a one-thread
// kernel publishes (r.z, r.r, p.q) to pinned host memory, and the host waits once (a
// fence) to read them and decide convergence. Otherwise (any preconditioner, or many
// processes) the general loop runs: two reductions per iteration, (p.q) and (r.z, r.r)
// together.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <cmath>

namespace kfvm::Details {

/// (r.z, r.r, p.q) of one iteration.
using CgSums = Compat::Sums<3>;
enum { RZ = 0, RR = 1, PQ = 2 };

template <class ExecSpace>
using CgSumsView = Kokkos::View<CgSums, typename ExecSpace::memory_space>;

/// The preconditioner's pointwise weights as the fused kernels read them: w, one entry
/// for all the uniform ones, or 1 (no preconditioner).
template <class ExecSpace>
struct FusedWeights {
  Vector<ExecSpace> w;  // empty: no preconditioner
  UniformInteriorEntries uniform;
  KOKKOS_INLINE_FUNCTION Real operator()(Ordinal i) const {
    return w.extent(0) > 0 ? w(uniform.valueEntry(i)) : Real(1);
  }
};

/// alpha = r.z (previous) / p.q (this product; 0 when p.q <= 0, so that a breakdown
/// changes nothing).
template <class SumsView, class ScalarView>
KOKKOS_INLINE_FUNCTION Real stepLength(const SumsView& previous,
                                       const ScalarView& product) {
  const double pq = product();
  return pq > 0 ? Real(previous().value[RZ] / pq) : Real(0);
}

/// r -= alpha q; sums r.z and r.r (z = w r), and carries p.q along for the host.
template <class ExecSpace>
struct UpdateAndDots {
  Vector<ExecSpace> r, q;
  FusedWeights<ExecSpace> w;
  CgSumsView<ExecSpace> previous;
  DeviceScalar<ExecSpace> product;
  KOKKOS_FUNCTION void operator()(Ordinal i, CgSums& sums) const {
    const Real ri = r(i) - stepLength(previous, product) * q(i);
    r(i) = ri;
    sums.value[RZ] += double(ri) * double(w(i) * ri);
    sums.value[RR] += double(ri) * double(ri);
    if (i == 0) sums.value[PQ] += product();
  }
};

/// x += alpha p; then (unless last) p = w r + (r.z new / r.z previous) p.
template <class ExecSpace>
struct NextDirection {
  Vector<ExecSpace> x, r, p;
  FusedWeights<ExecSpace> w;
  CgSumsView<ExecSpace> previous, current;
  DeviceScalar<ExecSpace> product;
  bool last;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    const Real pi = p(i);
    x(i) += stepLength(previous, product) * pi;
    if (last) return;
    const Real beta = Real(current().value[RZ] / previous().value[RZ]);
    p(i) = w(i) * r(i) + beta * pi;
  }
};

/// Copies the iteration's sums to host memory the host reads after a fence.
template <class ExecSpace>
struct PublishSums {
  CgSumsView<ExecSpace> current;
  Kokkos::View<CgSums, Compat::HostPinnedSpace> host;
  KOKKOS_FUNCTION void operator()(Ordinal) const { host() = current(); }
};

/// p = z = w r, with r.z and r.r, of the initial residual.
template <class ExecSpace>
struct InitialDots {
  Vector<ExecSpace> r, p;
  FusedWeights<ExecSpace> w;
  KOKKOS_FUNCTION void operator()(Ordinal i, CgSums& sums) const {
    const Real zi = w(i) * r(i);
    p(i) = zi;
    sums.value[RZ] += double(r(i)) * double(zi);
    sums.value[RR] += double(r(i)) * double(r(i));
  }
};

template <class ExecSpace>
class ConjugateGradient final : public KrylovMethod<ExecSpace> {
 public:
  explicit ConjugateGradient(bool flexible)
      : KrylovMethod<ExecSpace>(flexible ? "fcg" : "cg"), flexible_(flexible) {}

  bool flexible() const override { return flexible_; }

  void allocate(Ordinal n) override {
    r_ = Vector<ExecSpace>("kfvm::ConjugateGradient::r", n);
    z_ = Vector<ExecSpace>("kfvm::ConjugateGradient::z", n);
    p_ = Vector<ExecSpace>("kfvm::ConjugateGradient::p", n);
    q_ = Vector<ExecSpace>("kfvm::ConjugateGradient::q", n);
    if (flexible_)
      rPrevious_ = Vector<ExecSpace>("kfvm::ConjugateGradient::rPrevious", n);
    product_ = DeviceScalar<ExecSpace>("kfvm::ConjugateGradient::product");
    for (int s = 0; s < 2; ++s)
      sums_[s] = CgSumsView<ExecSpace>("kfvm::ConjugateGradient::sums");
    published_ = Kokkos::View<CgSums, Compat::HostPinnedSpace>(
        "kfvm::ConjugateGradient::published");
  }

  SolverReport solve(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x,
                     const StoppingCriterion& criterion) override {
    const double initial = residual(A, b, x, r_);
    const double target = criterion.target(A.space().norm2(b), initial);
    if (initial <= target)
      return finishReport(this->name(), 0, initial, initial, target, false);
    const bool pointwise = M.isIdentity() || M.pointwiseWeights() != nullptr;
    return !flexible_ && pointwise && !A.space().distributed()
               ? fused(A, M, x, initial, target, criterion.maxIterations)
               : general(A, M, x, initial, target, criterion.maxIterations);
  }

 private:
  SolverReport fused(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& x,
                     double initial, double target, int maxIterations) {
    const ExecSpace space;
    const Ordinal n = A.size();
    // On host spaces the uniform weight is not used: finding whether an entry is covered
    // cost a CPU core more than the 8 bytes it saves (measured with integer divisions,
    // before FixedDivisor; devices take it).
    constexpr bool onHost =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   typename ExecSpace::memory_space>::accessible;
    const FusedWeights<ExecSpace> w =
        M.isIdentity() ? FusedWeights<ExecSpace>{}
                       : FusedWeights<ExecSpace>{
                             *M.pointwiseWeights(),
                             onHost ? UniformInteriorEntries{} : M.uniformWeights()};
    reduceIntoView("kfvm::ConjugateGradient::initialDots", space, n,
                   InitialDots<ExecSpace>{r_, p_, w}, sums_[1]);
    double residual = initial;
    int iteration = 0;
    bool pending = false;  // x += alpha p of the last iteration not done yet
    while (iteration < maxIterations) {
      // Iteration i reads r.z from sums_[(i + 1) % 2] and writes sums_[i % 2].
      const auto& previous = sums_[(iteration + 1) % 2];
      const auto& current = sums_[iteration % 2];
      A.applyAndDot(p_, q_, product_);
      reduceIntoView("kfvm::ConjugateGradient::updateAndDots", space, n,
                     UpdateAndDots<ExecSpace>{r_, q_, w, previous, product_}, current);
      forEachIndex("kfvm::ConjugateGradient::publishSums", space, 1,
                   PublishSums<ExecSpace>{current, published_});
      Compat::fence(space, "kfvm::ConjugateGradient::convergence");  // the round trip
      const CgSums sums = published_();
      if (!(sums.value[PQ] > 0))
        break;  // not positive definite, or breakdown: x unchanged
      ++iteration;
      pending = true;
      residual = std::sqrt(sums.value[RR]);
      if (residual <= target || !std::isfinite(residual)) break;
      forEachIndex(
          "kfvm::ConjugateGradient::nextDirection", space, n,
          NextDirection<ExecSpace>{x, r_, p_, w, previous, current, product_, false});
      pending = false;
    }
    if (pending) {  // the last iteration's x += alpha p
      const int last = iteration - 1;
      forEachIndex("kfvm::ConjugateGradient::lastUpdate", space, n,
                   NextDirection<ExecSpace>{x, r_, p_, w, sums_[(last + 1) % 2],
                                            sums_[last % 2], product_, true});
    }
    return finishReport(this->name(), iteration, initial, residual, target,
                        iteration >= maxIterations);
  }

  /// Any preconditioner, any space: reductions through the space. Flexible CG takes
  /// beta = z_new . (r_new - r_old) / (z_old . r_old).
  SolverReport general(const LinearOperator<ExecSpace>& A,
                       const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& x,
                       double initial, double target, int maxIterations) {
    const auto& space = A.space();
    double residual = initial;
    int iteration = 0;
    M.apply(r_, z_);
    Blas::copy(z_, p_);
    double rz = space.dot(r_, z_);
    while (iteration < maxIterations) {
      A.apply(p_, q_);
      const double pq = space.dot(p_, q_);
      if (!(pq > 0)) break;  // not positive definite, or breakdown
      const Real alpha = Real(rz / pq);
      Blas::axpby(alpha, p_, Real(1), x);
      if (flexible_) Blas::copy(r_, rPrevious_);
      Blas::axpby(-alpha, q_, Real(1), r_);
      M.apply(r_, z_);
      double sums[2];
      space.dots(r_, z_, r_, r_, sums);
      ++iteration;
      residual = std::sqrt(sums[1]);
      if (residual <= target || !std::isfinite(residual)) break;
      double numerator = sums[0];
      if (flexible_) numerator -= space.dot(rPrevious_, z_);
      Blas::axpby(Real(1), z_, Real(numerator / rz), p_);
      rz = sums[0];
    }
    return finishReport(this->name(), iteration, initial, residual, target,
                        iteration >= maxIterations);
  }

  bool flexible_;
  Vector<ExecSpace> r_, z_, p_, q_, rPrevious_;
  DeviceScalar<ExecSpace> product_;
  CgSumsView<ExecSpace> sums_[2];
  Kokkos::View<CgSums, Compat::HostPinnedSpace> published_;
};

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeConjugateGradient(bool flexible) {
  return std::make_unique<ConjugateGradient<ExecSpace>>(flexible);
}

#define KFVM_INSTANTIATE_CG(Space) \
  template std::unique_ptr<KrylovMethod<Space>> makeConjugateGradient<Space>(bool);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CG)

}  // namespace kfvm::Details
