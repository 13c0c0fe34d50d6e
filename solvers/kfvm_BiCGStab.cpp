// Right-preconditioned BiCGStab (van der Vorst), for non-symmetric matrices.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#include <cmath>

namespace kfvm::Details {

template <class ExecSpace>
class BiCGStab final : public LinearSolver<ExecSpace> {
 public:
  explicit BiCGStab(const Parameters& parameters)
      : LinearSolver<ExecSpace>("bicgstab", parameters) {}

 private:
  void setupImpl(Ordinal n) override {
    r_ = Vector<ExecSpace>("kfvm::BiCGStab::r", n);
    shadow_ = Vector<ExecSpace>("kfvm::BiCGStab::shadow", n);
    p_ = Vector<ExecSpace>("kfvm::BiCGStab::p", n);
    pHat_ = Vector<ExecSpace>("kfvm::BiCGStab::pHat", n);
    v_ = Vector<ExecSpace>("kfvm::BiCGStab::v", n);
    sHat_ = Vector<ExecSpace>("kfvm::BiCGStab::sHat", n);
    t_ = Vector<ExecSpace>("kfvm::BiCGStab::t", n);
  }

  SolverReport solveImpl(const Vector<ExecSpace>& b,
                         const Vector<ExecSpace>& x) override {
    const auto& A = this->matrix();
    const double initial = this->residual(b, x, r_);
    const double target = this->target(Blas::norm2(b), initial);
    double residual = initial;
    int iteration = 0;
    if (residual <= target)
      return finishReport("bicgstab", 0, initial, residual, target, false);
    bool breakdown = false;
    // The recursive residual can drift from the true one (strongly non-normal matrices,
    // e.g. convection-dominated ones): a claimed convergence is checked against the true
    // residual, and the iteration restarts from it when they disagree.
    while (iteration < this->maxIterations()) {
      breakdown = false;
      Blas::copy(r_, shadow_);
      Blas::fill(p_, Real(0));
      Blas::fill(v_, Real(0));
      double rho = 1, alpha = 1, omega = 1;
      while (iteration < this->maxIterations()) {
        const double rhoNext = Blas::dot(shadow_, r_);
        if (rhoNext == 0 || omega == 0) {
          breakdown = true;
          break;
        }
        const double beta = (rhoNext / rho) * (alpha / omega);
        rho = rhoNext;
        Blas::axpby(Real(-omega), v_, Real(1), p_);  // p = r + beta (p - omega v)
        Blas::axpby(Real(1), r_, Real(beta), p_);
        this->precondition(p_, pHat_);
        multiply(A, pHat_, v_);
        const double shadowV = Blas::dot(shadow_, v_);
        if (shadowV == 0) {
          breakdown = true;
          break;
        }
        alpha = rho / shadowV;
        Blas::axpby(Real(-alpha), v_, Real(1), r_);  // r now holds s
        Blas::axpby(Real(alpha), pHat_, Real(1), x);
        ++iteration;
        residual = Blas::norm2(r_);
        if (residual <= target || !std::isfinite(residual)) break;
        this->precondition(r_, sHat_);
        multiply(A, sHat_, t_);
        const double tt = Blas::dot(t_, t_);
        omega = tt > 0 ? Blas::dot(t_, r_) / tt : 0.0;
        Blas::axpby(Real(omega), sHat_, Real(1), x);
        Blas::axpby(Real(-omega), t_, Real(1), r_);
        residual = Blas::norm2(r_);
        if (residual <= target || !std::isfinite(residual)) break;
      }
      if (!std::isfinite(residual)) break;
      const double recursive = residual;
      residual = this->residual(b, x, r_);  // the true residual, into r_
      if (residual <= target) break;
      if (breakdown && !(recursive <= target)) break;
    }
    return finishReport("bicgstab", iteration, initial, residual, target,
                        !breakdown && iteration >= this->maxIterations());
  }

  Vector<ExecSpace> r_, shadow_, p_, pHat_, v_, sHat_, t_;
};

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeBiCGStab(const Parameters& parameters) {
  return std::make_unique<BiCGStab<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_BICGSTAB(Space) \
  template std::unique_ptr<LinearSolver<Space>> makeBiCGStab<Space>(const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_BICGSTAB)

}  // namespace kfvm::Details
