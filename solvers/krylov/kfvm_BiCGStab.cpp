// Right-preconditioned BiCGStab (van der Vorst), for non-symmetric matrices.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <cmath>

namespace kfvm::Details {

template <class ExecSpace>
class BiCGStab final : public KrylovMethod<ExecSpace> {
 public:
  BiCGStab() : KrylovMethod<ExecSpace>("bicgstab") {}

  void allocate(Ordinal n) override {
    r_ = Vector<ExecSpace>("kfvm::BiCGStab::r", n);
    shadow_ = Vector<ExecSpace>("kfvm::BiCGStab::shadow", n);
    p_ = Vector<ExecSpace>("kfvm::BiCGStab::p", n);
    pHat_ = Vector<ExecSpace>("kfvm::BiCGStab::pHat", n);
    v_ = Vector<ExecSpace>("kfvm::BiCGStab::v", n);
    sHat_ = Vector<ExecSpace>("kfvm::BiCGStab::sHat", n);
    t_ = Vector<ExecSpace>("kfvm::BiCGStab::t", n);
  }

  SolverReport solve(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x,
                     const StoppingCriterion& criterion) override {
    const auto& space = A.space();
    const int maxIterations = criterion.maxIterations;
    const double initial = residual(A, b, x, r_);
    const double target = criterion.target(space.norm2(b), initial);
    double norm = initial;
    int iteration = 0;
    if (norm <= target)
      return finishReport(this->name(), 0, initial, norm, target, false);
    bool breakdown = false;
    // The recursive residual can drift from the true one (strongly non-normal matrices,
    // e.g. convection-dominated ones): a claimed convergence is checked against the true
    // residual, and the iteration restarts from it when they disagree.
    while (iteration < maxIterations) {
      breakdown = false;
      Blas::copy(r_, shadow_);
      Blas::fill(p_, Real(0));
      Blas::fill(v_, Real(0));
      double rho = 1, alpha = 1, omega = 1;
      while (iteration < maxIterations) {
        const double rhoNext = space.dot(shadow_, r_);
        if (rhoNext == 0 || omega == 0) {
          breakdown = true;
          break;
        }
        const double beta = (rhoNext / rho) * (alpha / omega);
        rho = rhoNext;
        Blas::axpby(Real(-omega), v_, Real(1), p_);  // p = r + beta (p - omega v)
        Blas::axpby(Real(1), r_, Real(beta), p_);
        M.apply(p_, pHat_);
        A.apply(pHat_, v_);
        const double shadowV = space.dot(shadow_, v_);
        if (shadowV == 0) {
          breakdown = true;
          break;
        }
        alpha = rho / shadowV;
        Blas::axpby(Real(-alpha), v_, Real(1), r_);  // r now holds s
        Blas::axpby(Real(alpha), pHat_, Real(1), x);
        ++iteration;
        norm = space.norm2(r_);
        if (norm <= target || !std::isfinite(norm)) break;
        M.apply(r_, sHat_);
        A.apply(sHat_, t_);
        double tSums[2];  // (t.r, t.t) in one reduction
        space.dots(t_, r_, t_, t_, tSums);
        omega = tSums[1] > 0 ? tSums[0] / tSums[1] : 0.0;
        Blas::axpby(Real(omega), sHat_, Real(1), x);
        Blas::axpby(Real(-omega), t_, Real(1), r_);
        norm = space.norm2(r_);
        if (norm <= target || !std::isfinite(norm)) break;
      }
      if (!std::isfinite(norm)) break;
      const double recursive = norm;
      norm = Details::residual(A, b, x, r_);  // the true residual, into r_
      if (norm <= target) break;
      if (breakdown && !(recursive <= target)) break;
    }
    return finishReport(this->name(), iteration, initial, norm, target,
                        !breakdown && iteration >= maxIterations);
  }

  Vector<ExecSpace> r_, shadow_, p_, pHat_, v_, sHat_, t_;
};

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeBiCGStab() {
  return std::make_unique<BiCGStab<ExecSpace>>();
}

#define KFVM_INSTANTIATE_BICGSTAB(Space) \
  template std::unique_ptr<KrylovMethod<Space>> makeBiCGStab<Space>();
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_BICGSTAB)

}  // namespace kfvm::Details
