// "chebyshev": the Jacobi-preconditioned Chebyshev polynomial of A (Saad, Iterative
// Methods for Sparse Linear Systems, Algorithm 12.1, with M = D): degree - 1 products
// per apply, no dot product, the same polynomial at every apply (usable inside CG). The
// largest eigenvalue of D^-1 A comes from a few steps of Jacobi-CG (their Lanczos
// tridiagonal matrix), as Ifpack2 and hypre estimate it.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

#include "detail/kfvm_PreconditionerMakers.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kfvm::Details {

/// Largest eigenvalue of the symmetric tridiagonal matrix (diagonal, offDiagonal) by
/// bisection on its Sturm sequence.
inline double largestEigenvalue(const std::vector<double>& diagonal,
                                const std::vector<double>& offDiagonal) {
  const std::size_t n = diagonal.size();
  double low = 0, high = 0;
  for (std::size_t i = 0; i < n; ++i) {  // Gershgorin
    const double radius = (i > 0 ? std::abs(offDiagonal[i - 1]) : 0.0) +
                          (i + 1 < n ? std::abs(offDiagonal[i]) : 0.0);
    low = std::min(low, diagonal[i] - radius);
    high = std::max(high, diagonal[i] + radius);
  }
  const auto countBelow = [&](double x) {  // eigenvalues < x
    int count = 0;
    double q = 1;
    for (std::size_t i = 0; i < n; ++i) {
      const double off = i > 0 ? offDiagonal[i - 1] : 0.0;
      q = diagonal[i] - x - (i > 0 ? off * off / q : 0.0);
      if (q == 0) q = 1e-300;
      if (q < 0) ++count;
    }
    return count;
  };
  for (int step = 0; step < 200 && high - low > 1e-12 * std::abs(high); ++step) {
    const double middle = 0.5 * (low + high);
    // Fewer than n eigenvalues below middle: the largest is above it.
    (countBelow(middle) < int(n) ? low : high) = middle;
  }
  return high;
}

/// A start vector with every eigencomponent present: a hash of the index in [0.5, 1.5).
template <class ExecSpace>
struct StartVector {
  Vector<ExecSpace> v;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    unsigned h = unsigned(i) * 2654435761u + 12345u;
    h ^= h >> 13;
    h *= 2246822519u;
    h ^= h >> 16;
    v(i) = Real(0.5 + double(h % 65536u) / 65536.0);
  }
};

/// Jacobi-CG from x = 0 on a hashed right-hand side; its coefficients give the Lanczos
/// tridiagonal matrix of D^-1 A, whose largest eigenvalue approximates A's from below.
template <class ExecSpace>
double largestJacobiEigenvalue(const LinearOperator<ExecSpace>& op,
                               const Vector<ExecSpace>& inverse,
                               const Vector<ExecSpace>& r, const Vector<ExecSpace>& p,
                               const Vector<ExecSpace>& q, int iterations) {
  const auto& space = op.space();
  const Ordinal n = op.size();
  forEachIndex("kfvm::Chebyshev::start", ExecSpace(), n, StartVector<ExecSpace>{r});
  space.zeroGhosts(r);
  Blas::multiplyElements(inverse, r, p);  // z
  double rz = space.dot(r, p);
  // Three vectors: r, the direction p and the product q, which also holds z = D^-1 r
  // between a product and the next.
  std::vector<double> alphas, betas;
  for (int k = 0; k < iterations && rz > 0; ++k) {
    op.apply(p, q);
    const double pq = space.dot(p, q);
    if (!(pq > 0)) break;
    const double alpha = rz / pq;
    alphas.push_back(alpha);
    Blas::axpby(Real(-alpha), q, Real(1), r);  // r -= alpha q
    // z = D^-1 r into q (q is free until the next product), then p = z + beta p.
    Blas::multiplyElements(inverse, r, q);
    const double rzNext = space.dot(r, q);
    const double beta = rzNext / rz;
    betas.push_back(beta);
    Blas::axpby(Real(1), q, Real(beta), p);
    rz = rzNext;
  }
  require(!alphas.empty(), "chebyshev: the eigenvalue estimate of the ", op.description(),
          " broke down at its first step (A is not positive)");
  const std::size_t m = alphas.size();
  std::vector<double> diagonal(m), offDiagonal(m > 1 ? m - 1 : 0);
  for (std::size_t j = 0; j < m; ++j) {
    diagonal[j] = 1 / alphas[j] + (j > 0 ? betas[j - 1] / alphas[j - 1] : 0.0);
    if (j + 1 < m) offDiagonal[j] = std::sqrt(std::max(betas[j], 0.0)) / alphas[j];
  }
  return largestEigenvalue(diagonal, offDiagonal);
}

/// First step: d = D^-1 r / theta; z = d.
template <class ExecSpace>
struct ChebyshevFirst {
  Vector<ExecSpace> inverse, r, d, z;
  Real scale;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    const Real di = scale * inverse(i) * r(i);
    d(i) = di;
    z(i) = di;
  }
};

/// Later steps: d = a d + b D^-1 (r - w), w = A z; z += d.
template <class ExecSpace>
struct ChebyshevNext {
  Vector<ExecSpace> inverse, r, w, d, z;
  Real a, b;
  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    const Real di = a * d(i) + b * inverse(i) * (r(i) - w(i));
    d(i) = di;
    z(i) += di;
  }
};

template <class ExecSpace>
class Chebyshev final : public Preconditioner<ExecSpace> {
 public:
  explicit Chebyshev(const Parameters& parameters)
      : Preconditioner<ExecSpace>("chebyshev"),
        degree_(parameters.getInt("chebyshev_degree", 3)),
        eigenIterations_(parameters.getInt("chebyshev_eigen_iterations", 10)),
        boost_(parameters.getDouble("chebyshev_boost", 1.1)),
        ratio_(parameters.getDouble("chebyshev_ratio", 30)),
        estimate_(parameters.getString("chebyshev_estimate", "setup")) {
    require(degree_ >= 1 && degree_ <= 64, "chebyshev_degree must be in [1, 64], got ",
            degree_);
    require(eigenIterations_ >= 1 && eigenIterations_ <= 1000,
            "chebyshev_eigen_iterations must be in [1, 1000], got ", eigenIterations_);
    require(std::isfinite(boost_) && boost_ >= 1,
            "chebyshev_boost must be finite and >= 1, got ", boost_);
    require(std::isfinite(ratio_) && ratio_ > 1,
            "chebyshev_ratio must be finite and > 1, got ", ratio_);
    require(estimate_ == "setup" || estimate_ == "structure",
            "chebyshev_estimate must be 'setup' or 'structure', got '", estimate_, "'");
  }

  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    const ExecSpace space;
    const Ordinal n = Ordinal(r.extent(0));
    const double theta = 0.5 * (largest_ + smallest_);
    const double delta = 0.5 * (largest_ - smallest_);
    const double sigma = theta / delta;
    double rhoOld = 1 / sigma;
    forEachIndex("kfvm::Chebyshev::first", space, n,
                 ChebyshevFirst<ExecSpace>{inverse_, r, d_, z, Real(1 / theta)});
    for (int k = 1; k < degree_; ++k) {
      this->op().apply(z, w_);
      const double rho = 1 / (2 * sigma - rhoOld);
      forEachIndex("kfvm::Chebyshev::next", space, n,
                   ChebyshevNext<ExecSpace>{inverse_, r, w_, d_, z, Real(rho * rhoOld),
                                            Real(2 * rho / delta)});
      rhoOld = rho;
    }
    this->op().space().zeroGhosts(z);
  }

  /// The eigenvalue interval [smallest, largest] of D^-1 A the polynomial targets.
  double largest() const { return largest_; }

 private:
  void setupImpl(const LinearOperator<ExecSpace>& op, bool sizeChanged,
                 bool structureChanged) override {
    const Ordinal n = op.size();
    if (sizeChanged) {
      d_ = Vector<ExecSpace>("kfvm::Chebyshev::d", n);
      w_ = Vector<ExecSpace>("kfvm::Chebyshev::w", n);
      r_ = Vector<ExecSpace>("kfvm::Chebyshev::r", n);
    }
    jacobi_->setup(op);
    inverse_ = *jacobi_->pointwiseWeights();
    if (structureChanged || estimate_ == "setup") estimate(op);
  }

  void estimate(const LinearOperator<ExecSpace>& op) {
    largest_ =
        boost_ * largestJacobiEigenvalue(op, inverse_, r_, d_, w_, eigenIterations_);
    smallest_ = largest_ / ratio_;
    require(std::isfinite(largest_) && largest_ > 0,
            "chebyshev preconditioner: the largest eigenvalue estimate of the ",
            op.description(), " is ", largest_);
  }

  int degree_, eigenIterations_;
  double boost_, ratio_;
  std::string estimate_;
  double largest_ = 0, smallest_ = 0;
  std::unique_ptr<Preconditioner<ExecSpace>> jacobi_ = makeJacobi<ExecSpace>();
  Vector<ExecSpace> inverse_, r_;
  mutable Vector<ExecSpace> d_, w_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeChebyshev(const Parameters& parameters) {
  return std::make_unique<Chebyshev<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_CHEBYSHEV(Space)                                       \
  template std::unique_ptr<Preconditioner<Space>> makeChebyshev<Space>(         \
      const Parameters&);                                                       \
  template double largestJacobiEigenvalue<Space>(                               \
      const LinearOperator<Space>&, const Vector<Space>&, const Vector<Space>&, \
      const Vector<Space>&, const Vector<Space>&, int);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CHEBYSHEV)

}  // namespace kfvm::Details
