// Restarted GMRES(m) with right preconditioning and Givens rotations; the small
// Hessenberg least-squares problem lives on the host. Orthogonalization (parameter
// "orthogonalization"): "cgs", classical Gram-Schmidt with selective reorthogonalization,
// each pass one multi-vector dot product (one reduction over processes) and one
// combination over the basis, 16 vectors a kernel, and a second pass only when the first
// left less than 1/sqrt(2) of w's norm (the DGKS criterion, one of Belos's
// orthogonalizations); or "mgs", modified Gram-Schmidt, 2 (j + 1) kernels and j + 1
// reductions in iteration j. "cgs" by default, except on Serial (see makeKrylovMethod).
// Flexible GMRES (Saad's FGMRES) keeps each preconditioned basis vector z_j = M_j^-1 v_j
// and updates x with them, so the preconditioner may change from one application to the
// next (m more vectors).
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <cmath>
#include <vector>

namespace kfvm::Details {

template <class ExecSpace>
class Gmres final : public KrylovMethod<ExecSpace> {
 public:
  Gmres(int restart, bool flexible, bool classical)
      : KrylovMethod<ExecSpace>(flexible ? "fgmres" : "gmres"),
        restart_(restart),
        flexible_(flexible),
        classical_(classical) {
    const std::size_t m = std::size_t(restart_);
    hessenberg_.assign((m + 1) * m, 0.0);
    cosines_.assign(m, 0.0);
    sines_.assign(m, 0.0);
    g_.assign(m + 1, 0.0);
    y_.assign(m, 0.0);
    projection_.assign(m + 2, 0.0);
    negated_.assign(m + 1, 0.0);
  }

  bool flexible() const override { return flexible_; }

  void allocate(Ordinal n) override {
    basis_.clear();
    preconditioned_.clear();
    for (int j = 0; j <= restart_; ++j) {
      basis_.emplace_back("kfvm::Gmres::basis", n);
    }
    if (flexible_)
      for (int j = 0; j < restart_; ++j)
        preconditioned_.emplace_back("kfvm::Gmres::preconditionedBasis", n);
    w_ = Vector<ExecSpace>("kfvm::Gmres::w", n);
    z_ = Vector<ExecSpace>("kfvm::Gmres::z", n);
  }

  SolverReport solve(const LinearOperator<ExecSpace>& A,
                     const Preconditioner<ExecSpace>& M, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x,
                     const StoppingCriterion& criterion) override {
    const auto& space = A.space();
    const int maxIterations = criterion.maxIterations;
    auto& r = basis_[0];
    const double initial = Details::residual(A, b, x, r);
    const double target = criterion.target(space.norm2(b), initial);
    double residual = initial;
    int iteration = 0;
    bool breakdown = false;
    while (residual > target && std::isfinite(residual) && iteration < maxIterations &&
           !breakdown) {
      // r = basis_[0] holds the residual here.
      Blas::axpby(Real(0), r, Real(1 / residual), r);
      std::fill(g_.begin(), g_.end(), 0.0);
      g_[0] = residual;
      int j = 0;
      for (; j < restart_ && iteration < maxIterations; ++j) {
        const Vector<ExecSpace>& z = flexible_ ? preconditioned_[j] : z_;
        M.apply(basis_[j], z);
        A.apply(z, w_);
        h(j + 1, j) =
            classical_ ? orthogonalize(space, j) : orthogonalizeModified(space, j);
        for (int i = 0; i < j; ++i) {  // apply the earlier rotations to column j
          const double upper = cosines_[i] * h(i, j) + sines_[i] * h(i + 1, j);
          h(i + 1, j) = -sines_[i] * h(i, j) + cosines_[i] * h(i + 1, j);
          h(i, j) = upper;
        }
        const double norm = std::hypot(h(j, j), h(j + 1, j));
        if (norm == 0) {
          breakdown = true;
          break;
        }
        cosines_[j] = h(j, j) / norm;
        sines_[j] = h(j + 1, j) / norm;
        const double subdiagonal = h(j + 1, j);
        h(j, j) = norm;
        h(j + 1, j) = 0;
        g_[j + 1] = -sines_[j] * g_[j];
        g_[j] = cosines_[j] * g_[j];
        ++iteration;
        residual = std::abs(g_[j + 1]);
        if (residual <= target || subdiagonal == 0 || !std::isfinite(residual)) {
          ++j;
          break;
        }
        Blas::axpby(Real(1 / subdiagonal), w_, Real(0), basis_[j + 1]);
      }
      // Solve the triangular system, then update x.
      const int k = j;
      for (int i = k - 1; i >= 0; --i) {
        double sum = g_[i];
        for (int l = i + 1; l < k; ++l) sum -= h(i, l) * y_[l];
        y_[i] = sum / h(i, i);
      }
      if (flexible_) {  // x += Z y
        Blas::addCombination(preconditioned_.data(), y_.data(), k, x);
      } else {  // x += M^-1 (V y)
        Blas::setCombination(basis_.data(), y_.data(), k, w_);
        M.apply(w_, z_);
        Blas::axpby(Real(1), z_, Real(1), x);
      }
      // True residual for the next cycle (and the report).
      residual = Details::residual(A, b, x, r);
      if (breakdown && residual <= target) breakdown = false;
    }
    return finishReport(this->name(), iteration, initial, residual, target,
                        !breakdown && iteration >= maxIterations);
  }

 private:
  /// w -= V (V^T w) over basis vectors 0 to j, into column j of the Hessenberg matrix,
  /// and once more when the first pass left less than 1/sqrt(2) of ||w|| (Daniel, Gragg,
  /// Kaufman and Stewart's criterion): classical Gram-Schmidt, each pass one
  /// multi-vector dot product (w . w with it) and one combination. Returns ||w||.
  double orthogonalize(const VectorSpace<ExecSpace>& space, int j) {
    const std::size_t count = std::size_t(j) + 1;
    double before = 0, after = 0;
    for (int pass = 0; pass < 2; ++pass) {
      space.dotsWith(w_, basis_.data(), j + 1, projection_.data());
      if (pass == 0) before = std::sqrt(projection_[count]);
      for (std::size_t i = 0; i < count; ++i) {
        h(int(i), j) = (pass == 0 ? 0.0 : h(int(i), j)) + projection_[i];
        negated_[i] = -projection_[i];
      }
      Blas::addCombination(basis_.data(), negated_.data(), j + 1, w_);
      after = space.norm2(w_);
      if (after >= reorthogonalizeBelow * before) break;
    }
    return after;
  }

  /// Modified Gram-Schmidt: w -= (w . v_i) v_i for each basis vector in turn (2 kernels
  /// and a reduction each). Returns ||w||.
  double orthogonalizeModified(const VectorSpace<ExecSpace>& space, int j) {
    for (int i = 0; i <= j; ++i) {
      h(i, j) = space.dot(w_, basis_[std::size_t(i)]);
      Blas::axpby(Real(-h(i, j)), basis_[std::size_t(i)], Real(1), w_);
    }
    return space.norm2(w_);
  }

  static constexpr double reorthogonalizeBelow = 0.70710678118654752;  // 1/sqrt(2)

  double& h(int row, int column) {
    return hessenberg_[std::size_t(column) * (restart_ + 1) + row];
  }

  int restart_;
  bool flexible_, classical_;
  std::vector<double> hessenberg_, cosines_, sines_, g_, y_;
  // A Gram-Schmidt pass's V^T w (then w . w) and -V^T w.
  std::vector<double> projection_, negated_;
  std::vector<Vector<ExecSpace>> basis_, preconditioned_;
  Vector<ExecSpace> w_, z_;
};

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeGmres(int restart, bool flexible,
                                                   bool classical) {
  return std::make_unique<Gmres<ExecSpace>>(restart, flexible, classical);
}

#define KFVM_INSTANTIATE_GMRES(Space) \
  template std::unique_ptr<KrylovMethod<Space>> makeGmres<Space>(int, bool, bool);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_GMRES)

}  // namespace kfvm::Details
