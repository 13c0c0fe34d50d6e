// Restarted GMRES(m) with right preconditioning, modified Gram-Schmidt and Givens
// rotations; the small Hessenberg least-squares problem lives on the host.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#include <cmath>
#include <vector>

namespace kfvm::Details {

template <class ExecSpace>
class Gmres final : public LinearSolver<ExecSpace> {
 public:
  explicit Gmres(const Parameters& parameters)
      : LinearSolver<ExecSpace>("gmres", parameters),
        restart_(parameters.getInt("restart", 30)) {
    require(restart_ > 0 && restart_ <= 1000, "gmres restart must be in [1, 1000], got ",
            restart_);
    const std::size_t m = std::size_t(restart_);
    hessenberg_.assign((m + 1) * m, 0.0);
    cosines_.assign(m, 0.0);
    sines_.assign(m, 0.0);
    g_.assign(m + 1, 0.0);
    y_.assign(m, 0.0);
  }

 private:
  double& h(int row, int column) {
    return hessenberg_[std::size_t(column) * (restart_ + 1) + row];
  }

  void setupImpl(Ordinal n) override {
    basis_.clear();
    for (int j = 0; j <= restart_; ++j) {
      basis_.emplace_back("kfvm::Gmres::basis", n);
    }
    w_ = Vector<ExecSpace>("kfvm::Gmres::w", n);
    z_ = Vector<ExecSpace>("kfvm::Gmres::z", n);
  }

  SolverReport solveImpl(const Vector<ExecSpace>& b,
                         const Vector<ExecSpace>& x) override {
    const auto& A = this->matrix();
    auto& r = basis_[0];
    const double initial = this->residual(b, x, r);
    const double target = this->target(Blas::norm2(b), initial);
    double residual = initial;
    int iteration = 0;
    bool breakdown = false;
    while (residual > target && std::isfinite(residual) &&
           iteration < this->maxIterations() && !breakdown) {
      // r = basis_[0] holds the residual here.
      Blas::axpby(Real(0), r, Real(1 / residual), r);
      std::fill(g_.begin(), g_.end(), 0.0);
      g_[0] = residual;
      int j = 0;
      for (; j < restart_ && iteration < this->maxIterations(); ++j) {
        this->precondition(basis_[j], z_);
        multiply(A, z_, w_);
        for (int i = 0; i <= j; ++i) {
          h(i, j) = Blas::dot(w_, basis_[i]);
          Blas::axpby(Real(-h(i, j)), basis_[i], Real(1), w_);
        }
        h(j + 1, j) = Blas::norm2(w_);
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
      // Solve the triangular system and update x += M^-1 (V y).
      const int k = j;
      for (int i = k - 1; i >= 0; --i) {
        double sum = g_[i];
        for (int l = i + 1; l < k; ++l) sum -= h(i, l) * y_[l];
        y_[i] = sum / h(i, i);
      }
      Blas::fill(w_, Real(0));
      for (int i = 0; i < k; ++i) Blas::axpby(Real(y_[i]), basis_[i], Real(1), w_);
      this->precondition(w_, z_);
      Blas::axpby(Real(1), z_, Real(1), x);
      // True residual for the next cycle (and the report).
      residual = this->residual(b, x, r);
      if (breakdown && residual <= target) breakdown = false;
    }
    return finishReport("gmres", iteration, initial, residual, target,
                        !breakdown && iteration >= this->maxIterations());
  }

  int restart_;
  std::vector<double> hessenberg_, cosines_, sines_, g_, y_;
  std::vector<Vector<ExecSpace>> basis_;
  Vector<ExecSpace> w_, z_;
};

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeGmres(const Parameters& parameters) {
  return std::make_unique<Gmres<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_GMRES(Space) \
  template std::unique_ptr<LinearSolver<Space>> makeGmres<Space>(const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_GMRES)

}  // namespace kfvm::Details
