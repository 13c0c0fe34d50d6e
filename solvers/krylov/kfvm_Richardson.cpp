// Preconditioned Richardson iteration, x += M (b - A x): the preconditioner as a
// stationary solver (standalone multigrid: "richardson" with the "mg" preconditioner,
// one cycle an iteration). Each iteration computes the true residual and its norm.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <cmath>

namespace kfvm::Details {

template <class ExecSpace>
class Richardson final : public KrylovMethod<ExecSpace> {
 public:
  Richardson() : KrylovMethod<ExecSpace>("richardson") {}

  void allocate(Ordinal n) override {
    r_ = Vector<ExecSpace>("kfvm::Richardson::r", n);
    z_ = Vector<ExecSpace>("kfvm::Richardson::z", n);
  }

  SolverReport solve(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x,
                     const StoppingCriterion& criterion) override {
    const double initial = residual(A, b, x, r_);
    const double target = criterion.target(A.space().norm2(b), initial);
    double norm = initial;
    int iteration = 0;
    while (norm > target && std::isfinite(norm) && iteration < criterion.maxIterations) {
      M.apply(r_, z_);
      Blas::axpby(Real(1), z_, Real(1), x);
      ++iteration;
      norm = residual(A, b, x, r_);
    }
    return finishReport(this->name(), iteration, initial, norm, target,
                        iteration >= criterion.maxIterations);
  }

  // A preconditioner that changes between applications only changes the iteration's
  // rate.
  bool flexible() const override { return true; }

 private:
  Vector<ExecSpace> r_, z_;
};

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeRichardson() {
  return std::make_unique<Richardson<ExecSpace>>();
}

#define KFVM_INSTANTIATE_RICHARDSON(Space) \
  template std::unique_ptr<KrylovMethod<Space>> makeRichardson<Space>();
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_RICHARDSON)

}  // namespace kfvm::Details
