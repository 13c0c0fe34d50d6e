// Preconditioned conjugate gradients, for symmetric positive definite operators, and
// flexible CG (Notay's FCG(1)) for preconditioners that are not a fixed operator.
//
// The fused iteration (one process, Jacobi or no preconditioner, plain CG) is three
// kernels and one host round trip: (1) q = A p with p.q (LinearOperator::applyAndDot:
// one pass for the CRS matrix and the stencil, into device memory); (2) x += alpha
// p, r -= alpha q, z = M^-1 r with r.z and r.r, alpha = r.z / p.q read on the device;
// (3) p = z + beta p, beta read on the device. The sums stay in device Views; a
// one-thread kernel publishes (r.z, r.r, p.q) to pinned host memory, and the host waits
// once (a fence) to read them and decide convergence. Otherwise (any preconditioner, or
// many processes) the general loop runs: two reductions per iteration, (p.q) and (r.z,
// r.r) together. With Jacobi on an operator that offers JacobiCgPasses (the matrix-free
// stencil with uniform weights), the iteration is two passes that compute A p themselves
// and the publication: (1) p = w r + beta p_old with p.A p; (2) x += alpha p,
// r -= alpha A p with r.z and r.r; p alternates between two vectors (p and q).
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <cmath>

namespace kfvm::Details {

// (r.z, r.r, p.q) of one iteration: CgSums (kfvm_JacobiCgPasses.hpp).
enum { RZ = cgRZ, RR = cgRR, PQ = cgPAP };

/// alpha = r.z (previous) / p.q (this product; 0 when p.q <= 0, so that a breakdown
/// changes nothing); x += alpha p; r -= alpha q; z = r / diagonal (Jacobi) or r; sums
/// r.z and r.r, and carries p.q along for the host.
template <class ExecSpace>
struct UpdateAndDots {
  Vector<ExecSpace> x, r, z, p, q, inverseDiagonal;
  CgSumsView<ExecSpace> previous;
  DeviceScalar<ExecSpace> product;
  bool jacobi;
  KOKKOS_FUNCTION void operator()(Ordinal i, CgSums& sums) const {
    const double pq = product();
    const Real alpha = pq > 0 ? Real(previous().value[RZ] / pq) : Real(0);
    x(i) += alpha * p(i);
    const Real ri = r(i) - alpha * q(i);
    r(i) = ri;
    const Real zi = jacobi ? ri * inverseDiagonal(i) : ri;
    if (jacobi) z(i) = zi;
    sums.value[RZ] += double(ri) * double(zi);
    sums.value[RR] += double(ri) * double(ri);
    if (i == 0) sums.value[PQ] += pq;
  }
};

/// p = z + (r.z new / r.z previous) p.
template <class ExecSpace>
struct NextDirection {
  Vector<ExecSpace> z, p;
  CgSumsView<ExecSpace> previous, current;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    const Real beta = Real(current().value[RZ] / previous().value[RZ]);
    p(i) = z(i) + beta * p(i);
  }
};

/// Copies the iteration's sums to host memory the host reads after a fence.
template <class ExecSpace>
struct PublishSums {
  CgSumsView<ExecSpace> current;
  Kokkos::View<CgSums, Compat::HostPinnedSpace> host;
  KOKKOS_FUNCTION void operator()(Ordinal) const { host() = current(); }
};

/// r.z and r.r (z = r / diagonal, or r) of the initial residual.
template <class ExecSpace>
struct InitialDots {
  Vector<ExecSpace> r, z, inverseDiagonal;
  bool jacobi;
  KOKKOS_FUNCTION void operator()(Ordinal i, CgSums& sums) const {
    const Real zi = jacobi ? r(i) * inverseDiagonal(i) : r(i);
    if (jacobi) z(i) = zi;
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
    const bool fusable = !flexible_ && pointwise && !A.space().distributed();
    if (fusable && A.jacobiCgPasses() && M.invertsDiagonal() && M.isSetUpFor(A))
      return twoPasses(*A.jacobiCgPasses(), *M.pointwiseWeights(), x, initial, target,
                       criterion.maxIterations);
    return fusable ? fused(A, M, x, initial, target, criterion.maxIterations)
                   : general(A, M, x, initial, target, criterion.maxIterations);
  }

 private:
  SolverReport fused(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& x,
                     double initial, double target, int maxIterations) {
    const ExecSpace space;
    const Ordinal n = A.size();
    const bool jacobi = !M.isIdentity();
    const Vector<ExecSpace> weights =
        jacobi ? *M.pointwiseWeights() : Vector<ExecSpace>();
    const Vector<ExecSpace>& z = jacobi ? z_ : r_;  // no preconditioner: z is r
    Kokkos::parallel_reduce(
        "kfvm::ConjugateGradient::initialDots", indexRange(space, n),
        InitialDots<ExecSpace>{r_, z_, weights, jacobi},
        Kokkos::Sum<CgSums, typename ExecSpace::memory_space>(sums_[1]));
    Kokkos::deep_copy(space, p_, z);
    double residual = initial;
    int iteration = 0;
    while (iteration < maxIterations) {
      // Iteration i reads r.z from sums_[(i + 1) % 2] and writes sums_[i % 2].
      const auto& previous = sums_[(iteration + 1) % 2];
      const auto& current = sums_[iteration % 2];
      A.applyAndDot(p_, q_, product_);
      Kokkos::parallel_reduce(
          "kfvm::ConjugateGradient::updateAndDots", indexRange(space, n),
          UpdateAndDots<ExecSpace>{x, r_, z_, p_, q_, weights, previous, product_,
                                   jacobi},
          Kokkos::Sum<CgSums, typename ExecSpace::memory_space>(current));
      forEachIndex("kfvm::ConjugateGradient::publishSums", space, 1,
                   PublishSums<ExecSpace>{current, published_});
      Compat::fence(space, "kfvm::ConjugateGradient::convergence");  // the round trip
      const CgSums sums = published_();
      if (!(sums.value[PQ] > 0))
        break;  // not positive definite, or breakdown: x unchanged
      ++iteration;
      residual = std::sqrt(sums.value[RR]);
      if (residual <= target || !std::isfinite(residual)) break;
      forEachIndex("kfvm::ConjugateGradient::nextDirection", space, n,
                   NextDirection<ExecSpace>{z, p_, previous, current});
    }
    return finishReport(this->name(), iteration, initial, residual, target,
                        iteration >= maxIterations);
  }

  /// Jacobi through the operator's two passes (see the top of the file).
  SolverReport twoPasses(const JacobiCgPasses<ExecSpace>& passes,
                         const Vector<ExecSpace>& weights, const Vector<ExecSpace>& x,
                         double initial, double target, int maxIterations) {
    const ExecSpace space;
    Kokkos::parallel_reduce(
        "kfvm::ConjugateGradient::initialDots", indexRange(space, Ordinal(x.extent(0))),
        InitialDots<ExecSpace>{r_, z_, weights, true},
        Kokkos::Sum<CgSums, typename ExecSpace::memory_space>(sums_[1]));
    const Vector<ExecSpace> directions[2] = {p_, q_};
    double residual = initial;
    int iteration = 0;
    while (iteration < maxIterations) {
      // As fused(); the direction of iteration i goes to directions[i % 2].
      const auto& previous = sums_[(iteration + 1) % 2];
      const auto& current = sums_[iteration % 2];
      const auto& p = directions[iteration % 2];
      passes.direction(weights, r_, directions[(iteration + 1) % 2], p, previous, current,
                       iteration == 0, product_);
      passes.update(weights, p, x, r_, previous, product_, current);
      forEachIndex("kfvm::ConjugateGradient::publishSums", space, 1,
                   PublishSums<ExecSpace>{current, published_});
      Compat::fence(space, "kfvm::ConjugateGradient::convergence");  // the round trip
      const CgSums sums = published_();
      if (!(sums.value[PQ] > 0)) break;  // not positive definite, or breakdown
      ++iteration;
      residual = std::sqrt(sums.value[RR]);
      if (residual <= target || !std::isfinite(residual)) break;
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
