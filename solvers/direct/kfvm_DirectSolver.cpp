#include "kfvm_DirectSolver.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_Config.hpp>
#include <kfvm_Error.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cmath>

namespace kfvm {

namespace {

/// KLU factors matrices whose predicted L + U hold at most this many entries a row
/// faster than UMFPACK (second-order 2D stencils: about 40 to 55); above it UMFPACK's
/// dense fronts win (fourth-order and 3D stencils: 200 and more). perf/RESULTS.md has
/// the measurements.
constexpr double kluEntriesPerRow = 100;

/// Solves at most: one, then iterative refinement (FiPy's LU also stops at 10).
constexpr int maxSolves = 10;

double norm2(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x * x;
  return std::sqrt(sum);
}

}  // namespace

template <class ExecSpace>
DirectSolver<ExecSpace>::DirectSolver(const std::string& name,
                                      const Parameters& parameters)
    : LinearSolver<ExecSpace>(name, parameters, {"none"}),
      asked_(parameters.getString("package", "auto")) {
  const auto packages = Details::sparseLUPackages();
  if (asked_ != "auto" || packages.empty()) {
    Details::makeSparseLU(asked_ == "auto" ? "umfpack"
                                           : asked_);  // names what is missing
  }
  package_ = asked_ == "auto" ? "klu" : asked_;
}

template <class ExecSpace>
void DirectSolver<ExecSpace>::operatorImpl(const LinearOperator<ExecSpace>& op) {
  require(!op.space().distributed(), "solver '", this->name(),
          "' is a direct solve on one process, and this operator is distributed over MPI "
          "ranks; across ranks name an iterative solver: gmres or bicgstab with ilu0 or "
          "block-jacobi (per rank), or cg with jacobi or mg"
#ifdef KFVM_HAVE_TRILINOS
          ", or Trilinos' belos:gmres with muelu"
#endif
  );
  require(op.matrix() != nullptr, "solver '", this->name(),
          "' factors an assembled matrix; the operator is a ", op.description(),
          " (turn matrix_free off)");
  this->setMatrix(*op.matrix(), op.blockSize());
}

template <class ExecSpace>
void DirectSolver<ExecSpace>::setupImpl(Ordinal size) {
  b_.assign(std::size_t(size), 0.0);
  x_.assign(std::size_t(size), 0.0);
  r_.assign(std::size_t(size), 0.0);
  d_.assign(std::size_t(size), 0.0);
  bHost_ = HostVector("kfvm::DirectSolver::b", std::size_t(size));
  xHost_ = HostVector("kfvm::DirectSolver::x", std::size_t(size));
  analyzed_ = factored_ = false;
}

template <class ExecSpace>
void DirectSolver<ExecSpace>::updateImpl(bool structureChanged) {
  if (structureChanged) analyzed_ = false;
  factored_ = false;
}

template <class ExecSpace>
void DirectSolver<ExecSpace>::analyze() {
  const auto& A = this->matrix();
  require(A.numEntries() <= std::size_t(INT_MAX), "solver '", this->name(),
          "': ", A.numEntries(), " matrix entries exceed the ", INT_MAX,
          " a sparse LU here takes; name an iterative solver (gmres, bicgstab, cg)");
  const auto offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.rowOffsets());
  const auto columns =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.columns());
  a_.rows = A.numRows();
  a_.offsets.assign(offsets.data(), offsets.data() + offsets.extent(0));
  a_.columns.assign(columns.data(), columns.data() + columns.extent(0));
  a_.values.assign(a_.columns.size(), 0.0);
  valuesHost_ = Kokkos::create_mirror_view(A.values());
  copyValues();  // UMFPACK's analysis looks at the values too
  if (asked_ == "auto") {
    lu_ = Details::makeSparseLU("klu");
    lu_->analyze(a_);
    const auto packages = Details::sparseLUPackages();
    if (lu_->predictedEntries() > kluEntriesPerRow * a_.rows &&
        std::find(packages.begin(), packages.end(), "umfpack") != packages.end()) {
      lu_ = Details::makeSparseLU("umfpack");
      lu_->analyze(a_);
    }
  } else {
    lu_ = Details::makeSparseLU(asked_);
    lu_->analyze(a_);
  }
  package_ = lu_->package();
  analyzed_ = true;
  factored_ = pivotsReused_ = false;
  ++analyses_;
}

template <class ExecSpace>
void DirectSolver<ExecSpace>::copyValues() {
  Kokkos::deep_copy(valuesHost_, this->matrix().values());
  const Real* values = valuesHost_.data();
  std::copy(values, values + valuesHost_.extent(0), a_.values.begin());
}

template <class ExecSpace>
double DirectSolver<ExecSpace>::residual(const std::vector<double>& b,
                                         const std::vector<double>& x,
                                         std::vector<double>& r) const {
  for (int row = 0; row < a_.rows; ++row) {
    double sum = b[std::size_t(row)];
    for (int e = a_.offsets[std::size_t(row)]; e < a_.offsets[std::size_t(row) + 1]; ++e)
      sum -= a_.values[std::size_t(e)] * x[std::size_t(a_.columns[std::size_t(e)])];
    r[std::size_t(row)] = sum;
  }
  return norm2(r);
}

template <class ExecSpace>
SolverReport DirectSolver<ExecSpace>::solveImpl(const Vector<ExecSpace>& b,
                                                const Vector<ExecSpace>& x) {
  if (!analyzed_) analyze();
  if (!factored_) copyValues();  // the residuals below are the new matrix's
  Kokkos::deep_copy(bHost_, b);
  Kokkos::deep_copy(xHost_, x);
  std::copy(bHost_.data(), bHost_.data() + bHost_.extent(0), b_.begin());
  std::copy(xHost_.data(), xHost_.data() + xHost_.extent(0), x_.begin());
  SolverReport report;
  report.solver = this->name() + " (" + package_ + ")";
  report.initialResidual = residual(b_, x_, r_);
  const double target = this->target(norm2(b_), report.initialResidual);
  bool freshPivots = false;
  for (;;) {
    if (!factored_) {
      // KLU's refactorization keeps the last pivots; a residual it cannot bring to the
      // target below is factored again with fresh pivoting.
      const Details::FactorResult factored = lu_->factor(a_, !freshPivots);
      ++factorizations_;
      if (!factored.ok) {
        report.finalResidual = report.initialResidual;
        report.reason = "direct solve (" + package_ + "): " + factored.problem;
        return report;
      }
      factored_ = true;
      pivotsReused_ = factored.reusedPivots;
    }
    double residualNorm = report.initialResidual;
    const int solves = std::min(this->maxIterations(), maxSolves);
    std::copy(x_.begin(), x_.end(), d_.begin());  // d: the answer being refined
    int done = 0;
    for (; done < solves && !(residualNorm <= target); ++done) {
      std::vector<double>& correction = r_;  // r in, A^-1 r out
      lu_->solve(correction);
      for (std::size_t i = 0; i < d_.size(); ++i) d_[i] += correction[i];
      residualNorm = residual(b_, d_, r_);
    }
    report.iterations = done;
    report.finalResidual = residualNorm;
    report.converged = residualNorm <= target;
    if (report.converged || freshPivots || !pivotsReused_) {
      std::copy(d_.begin(), d_.end(), x_.begin());
      break;
    }
    freshPivots = true;  // the reused pivots fell short: factor afresh, solve again
    factored_ = false;
    report.initialResidual = residual(b_, x_, r_);
  }
  for (std::size_t i = 0; i < x_.size(); ++i) xHost_(i) = Real(x_[i]);
  Kokkos::deep_copy(x, xHost_);
  report.reason = Details::concatenate(
      "direct solve (", package_, "), residual ", report.finalResidual,
      report.converged ? " <= " : " > ", target, " after ", report.iterations,
      report.iterations == 1 ? " solve" : " solves");
  if (!std::isfinite(report.finalResidual)) report.converged = false;
  return report;
}

#define KFVM_INSTANTIATE_DIRECT(Space) template class DirectSolver<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DIRECT)

}  // namespace kfvm
