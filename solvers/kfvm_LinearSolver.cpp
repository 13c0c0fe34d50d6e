#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_LinearSolver.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#include <algorithm>
#include <cmath>

namespace kfvm {

namespace Details {

SolverReport finishReport(const std::string& solver, int iterations,
                          double initialResidual, double residual, double target,
                          bool stoppedByLimit) {
  SolverReport report;
  report.solver = solver;
  report.iterations = iterations;
  report.initialResidual = initialResidual;
  report.finalResidual = residual;
  report.converged = std::isfinite(residual) && residual <= target;
  if (report.converged) {
    report.reason = concatenate("converged: residual ", residual, " <= target ", target);
  } else if (!std::isfinite(target)) {  // the target is the tolerance times |b|
    report.reason = concatenate(
        "not converged: the right-hand side's norm is not finite (target ", target,
        "): it holds NaN or inf, or values so large that their squares overflow");
  } else if (!std::isfinite(residual)) {
    report.reason = concatenate("not converged: residual became ", residual, " after ",
                                iterations, " iterations");
  } else if (stoppedByLimit) {
    report.reason =
        concatenate("not converged: iteration limit ", iterations,
                    " reached with residual ", residual, " > target ", target);
  } else {
    report.reason = concatenate("not converged: breakdown after ", iterations,
                                " iterations with residual ", residual);
  }
  return report;
}

/// inverse = 1 / diag(matrix); returns the first row whose diagonal is zero, or -1.
template <class ExecSpace>
Ordinal invertDiagonal(const CrsMatrix<ExecSpace>& matrix,
                       const Vector<ExecSpace>& inverse) {
  auto offsets = matrix.rowOffsets();
  auto columns = matrix.columns();
  auto values = matrix.values();
  const Ordinal n = matrix.numRows();
  Ordinal firstZero = n;
  Kokkos::parallel_reduce(
      "kfvm::LinearSolver::jacobiSetup", indexRange(ExecSpace(), n),
      KOKKOS_LAMBDA(Ordinal row, Ordinal & first) {
        Real diagonal = 0;
        for (Offset e = offsets(row); e < offsets(row + 1); ++e) {
          if (columns(e) == row) diagonal = values(e);
        }
        inverse(row) = diagonal != 0 ? Real(1) / diagonal : Real(0);
        if (diagonal == 0 && row < first) first = row;
      },
      Kokkos::Min<Ordinal>(firstZero));
  return firstZero < n ? firstZero : -1;
}

}  // namespace Details

template <class ExecSpace>
LinearSolver<ExecSpace>::LinearSolver(std::string name, const Parameters& parameters,
                                      const std::vector<std::string>& preconditioners)
    : name_(std::move(name)),
      tolerance_(parameters.getDouble("tolerance", 1e-8)),
      absoluteTolerance_(parameters.getDouble("absolute_tolerance", 0)),
      maxIterations_(parameters.getInt("max_iterations", 1000)) {
  const std::string criterion = parameters.getString("criterion", "rhs");
  require(criterion == "rhs" || criterion == "initial", "unknown criterion '", criterion,
          "' for solver '", name_, "' (known: rhs, initial)");
  relativeToInitial_ = criterion == "initial";
  preconditioner_ = parameters.getString("preconditioner", preconditioners.front());
  if (std::find(preconditioners.begin(), preconditioners.end(), preconditioner_) ==
      preconditioners.end()) {
    std::string known;
    for (const auto& p : preconditioners) known += (known.empty() ? "" : ", ") + p;
    fail("unknown preconditioner '", preconditioner_, "' for solver '", name_,
         "' (known: ", known, ")");
  }
  require(std::isfinite(tolerance_) && tolerance_ >= 0 && tolerance_ < 1,
          "solver tolerance must be in [0, 1), got ", tolerance_);
  require(std::isfinite(absoluteTolerance_) && absoluteTolerance_ >= 0,
          "solver absolute_tolerance must be finite and >= 0, got ", absoluteTolerance_);
  require(tolerance_ > 0 || absoluteTolerance_ > 0,
          "solver tolerance and absolute_tolerance cannot both be 0");
  require(maxIterations_ > 0, "solver max_iterations must be positive, got ",
          maxIterations_);
}

template <class ExecSpace>
void LinearSolver<ExecSpace>::setMatrix(const CrsMatrix<ExecSpace>& matrix) {
  require(matrix.numRows() > 0 &&
              (matrix.numRows() == matrix.numColumns() ||
               (takesGhostColumns() && matrix.numColumns() > matrix.numRows())),
          "solver '", name_, "' needs a ",
          takesGhostColumns() ? "non-empty matrix with at least as many columns as rows"
                              : "square non-empty matrix",
          ", got ", matrix.numRows(), " x ", matrix.numColumns());
  const bool structureChanged =
      setupSize_ != matrix.numRows() ||
      matrix.rowOffsets().data() != matrix_.rowOffsets().data() ||
      matrix.columns().data() != matrix_.columns().data() ||
      matrix.values().data() != matrix_.values().data();
  matrix_ = matrix;
  if (setupSize_ != matrix.numRows()) {
    setupSize_ = matrix.numRows();
    if (preconditioner_ == "jacobi") {
      inverseDiagonal_ =
          Vector<ExecSpace>("kfvm::LinearSolver::inverseDiagonal", setupSize_);
    }
    setupImpl(setupSize_);
  }
  if (preconditioner_ == "jacobi") {
    const Ordinal zeroRow = Details::invertDiagonal(matrix_, inverseDiagonal_);
    require(zeroRow < 0, "Jacobi preconditioner of solver '", name_,
            "': diagonal entry of row ", zeroRow, " is zero");
  }
  if (preconditioner_ == "ilu0") {
    if (structureChanged) incompleteLU_.analyze(matrix_);
    incompleteLU_.factorize(matrix_);
  }
  updateImpl(structureChanged);
}

template <class ExecSpace>
SolverReport LinearSolver<ExecSpace>::solve(const Vector<ExecSpace>& b,
                                            const Vector<ExecSpace>& x) {
  require(setupSize_ > 0, "solver '", name_, "': setMatrix() must come before solve()");
  require(
      b.extent(0) == std::size_t(setupSize_) && x.extent(0) == std::size_t(setupSize_),
      "solver '", name_, "': matrix has ", setupSize_, " rows but b has ", b.extent(0),
      " and x has ", x.extent(0), " entries");
  return solveImpl(b, x);
}

template <class ExecSpace>
void LinearSolver<ExecSpace>::precondition(const Vector<ExecSpace>& r,
                                           const Vector<ExecSpace>& z) const {
  if (preconditioner_ == "jacobi") {
    Blas::multiplyElements(inverseDiagonal_, r, z);
  } else if (preconditioner_ == "ilu0") {
    incompleteLU_.apply(r, z);
  } else {
    Blas::copy(r, z);
  }
}

template <class ExecSpace>
double LinearSolver<ExecSpace>::target(double normB, double initialResidual) const {
  return std::max(tolerance_ * (relativeToInitial_ ? initialResidual : normB),
                  absoluteTolerance_);
}

template <class ExecSpace>
double LinearSolver<ExecSpace>::residual(const Vector<ExecSpace>& b,
                                         const Vector<ExecSpace>& x,
                                         const Vector<ExecSpace>& r) const {
  multiply(matrix_, x, r);
  Blas::axpby(Real(1), b, Real(-1), r);
  return Blas::norm2(r);
}

#define KFVM_INSTANTIATE_SOLVER(Space) template class LinearSolver<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_SOLVER)

}  // namespace kfvm
