// Preconditioned conjugate gradients, for symmetric positive definite matrices.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#include <cmath>

namespace kfvm::Details {

template <class ExecSpace>
class ConjugateGradient final : public LinearSolver<ExecSpace> {
 public:
  explicit ConjugateGradient(const Parameters& parameters)
      : LinearSolver<ExecSpace>("cg", parameters) {}

 private:
  void setupImpl(Ordinal n) override {
    r_ = Vector<ExecSpace>("kfvm::ConjugateGradient::r", n);
    z_ = Vector<ExecSpace>("kfvm::ConjugateGradient::z", n);
    p_ = Vector<ExecSpace>("kfvm::ConjugateGradient::p", n);
    q_ = Vector<ExecSpace>("kfvm::ConjugateGradient::q", n);
  }

  SolverReport solveImpl(const Vector<ExecSpace>& b,
                         const Vector<ExecSpace>& x) override {
    const auto& A = this->matrix();
    const double target = this->target(Blas::norm2(b));
    const double initial = this->residual(b, x, r_);
    double residual = initial;
    int iteration = 0;
    if (residual <= target)
      return finishReport("cg", 0, initial, residual, target, false);
    this->precondition(r_, z_);
    Blas::copy(z_, p_);
    double rz = Blas::dot(r_, z_);
    while (iteration < this->maxIterations()) {
      multiply(A, p_, q_);
      const double pq = Blas::dot(p_, q_);
      if (!(pq > 0)) break;  // not positive definite, or breakdown
      const Real alpha = Real(rz / pq);
      Blas::axpby(alpha, p_, Real(1), x);
      Blas::axpby(-alpha, q_, Real(1), r_);
      ++iteration;
      residual = Blas::norm2(r_);
      if (residual <= target || !std::isfinite(residual)) break;
      this->precondition(r_, z_);
      const double rzNext = Blas::dot(r_, z_);
      Blas::axpby(Real(1), z_, Real(rzNext / rz), p_);
      rz = rzNext;
    }
    return finishReport("cg", iteration, initial, residual, target,
                        iteration >= this->maxIterations());
  }

  Vector<ExecSpace> r_, z_, p_, q_;
};

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeConjugateGradient(
    const Parameters& parameters) {
  return std::make_unique<ConjugateGradient<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_CG(Space)                                            \
  template std::unique_ptr<LinearSolver<Space>> makeConjugateGradient<Space>( \
      const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CG)

}  // namespace kfvm::Details
