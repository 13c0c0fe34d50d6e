// Preconditioned conjugate gradients for symmetric positive definite matrices, in two
// fused kernels per iteration:
//   1. p = z + beta p_old, q = A p, and p.q            (one pass: SpMV + update + dot)
//   2. x += alpha p, r -= alpha q, z = M^-1 r, r.z, r.r (one pass: updates + 2 dots)
// Each kernel returns its sums to the host: two scalar round trips per iteration.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_ForEach.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#include <cmath>
#include <utility>

namespace kfvm::Details {

/// Kernel 1: pNew = z + beta pOld, q = A pNew, returns pNew . q. The matrix reads
/// z + beta pOld at the neighbours, so pNew and pOld must be different Views.
template <class ExecSpace>
double cgDirectionAndProduct(const CrsMatrix<ExecSpace>& A, const Vector<ExecSpace>& z,
                             const Vector<ExecSpace>& pOld, const Vector<ExecSpace>& pNew,
                             const Vector<ExecSpace>& q, Real beta) {
  auto offsets = A.rowOffsets();
  auto columns = A.columns();
  auto values = A.values();
  double pq = 0;
  Kokkos::parallel_reduce(
      "kfvm::ConjugateGradient::directionAndProduct",
      indexRange(ExecSpace(), A.numRows()),
      KOKKOS_LAMBDA(Ordinal row, double& sum) {
        Real Ap = 0;
        for (Offset e = offsets(row); e < offsets(row + 1); ++e) {
          const Ordinal column = columns(e);
          Ap += values(e) * (z(column) + beta * pOld(column));
        }
        const Real p = z(row) + beta * pOld(row);
        pNew(row) = p;
        q(row) = Ap;
        sum += double(p) * double(Ap);
      },
      pq);
  return pq;
}

/// Kernel 2: x += alpha p, r -= alpha q, z = inverseDiagonal .* r (or r), sums r.z, r.r.
template <class ExecSpace>
struct CgUpdate {
  using value_type = double[];
  unsigned value_count;
  Real alpha;
  Vector<ExecSpace> p, q, x, r, inverseDiagonal, z;
  bool jacobi;

  KOKKOS_FUNCTION void operator()(Ordinal i, double sums[]) const {
    x(i) += alpha * p(i);
    const Real ri = r(i) - alpha * q(i);
    r(i) = ri;
    const Real zi = jacobi ? inverseDiagonal(i) * ri : ri;
    z(i) = zi;
    sums[0] += double(ri) * double(zi);
    sums[1] += double(ri) * double(ri);
  }
  KOKKOS_FUNCTION void init(double sums[]) const { sums[0] = sums[1] = 0; }
  KOKKOS_FUNCTION void join(double dst[], const double src[]) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
  KOKKOS_FUNCTION void join(volatile double dst[], const volatile double src[]) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
};

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
    pOld_ = Vector<ExecSpace>("kfvm::ConjugateGradient::pOld", n);
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
    double rz = Blas::dot(r_, z_);
    Kokkos::deep_copy(ExecSpace(), pOld_, Real(0));  // beta = 0 in the first iteration
    Real beta = 0;
    const auto& inverseDiagonal = this->jacobiInverseDiagonal();
    while (iteration < this->maxIterations()) {
      const double pq = cgDirectionAndProduct(A, z_, pOld_, p_, q_, beta);
      if (!(pq > 0)) break;  // not positive definite, or breakdown
      const Real alpha = Real(rz / pq);
      CgUpdate<ExecSpace> update{
          2, alpha, p_, q_, x, r_, inverseDiagonal, z_, inverseDiagonal.extent(0) > 0};
      double sums[2] = {0, 0};
      Kokkos::parallel_reduce("kfvm::ConjugateGradient::update",
                              indexRange(ExecSpace(), A.numRows()), update, sums);
      ++iteration;
      residual = std::sqrt(sums[1]);
      if (residual <= target || !std::isfinite(residual)) break;
      beta = Real(sums[0] / rz);
      rz = sums[0];
      std::swap(p_, pOld_);
    }
    return finishReport("cg", iteration, initial, residual, target,
                        iteration >= this->maxIterations());
  }

  Vector<ExecSpace> r_, z_, p_, pOld_, q_;
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
