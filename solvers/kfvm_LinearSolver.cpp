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

}  // namespace Details

template <class ExecSpace>
LinearSolver<ExecSpace>::LinearSolver(std::string name, const Parameters& parameters)
    : name_(std::move(name)),
      tolerance_(parameters.getDouble("tolerance", 1e-8)),
      absoluteTolerance_(parameters.getDouble("absolute_tolerance", 0)),
      maxIterations_(parameters.getInt("max_iterations", 1000)) {
  const std::string preconditioner = parameters.getString("preconditioner", "jacobi");
  require(preconditioner == "jacobi" || preconditioner == "none",
          "unknown preconditioner '", preconditioner, "' for solver '", name_,
          "' (known: jacobi, none)");
  jacobi_ = preconditioner == "jacobi";
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
  require(matrix.numRows() > 0 && matrix.numRows() == matrix.numColumns(), "solver '",
          name_, "' needs a square non-empty matrix, got ", matrix.numRows(), " x ",
          matrix.numColumns());
  matrix_ = matrix;
  if (setupSize_ != matrix.numRows()) {
    setupSize_ = matrix.numRows();
    inverseDiagonal_ =
        Vector<ExecSpace>("kfvm::LinearSolver::inverseDiagonal", setupSize_);
    setupImpl(setupSize_);
  }
  if (!jacobi_) return;
  auto offsets = matrix.rowOffsets();
  auto columns = matrix.columns();
  auto values = matrix.values();
  auto inverse = inverseDiagonal_;
  Ordinal firstZero = setupSize_;
  Kokkos::parallel_reduce(
      "kfvm::LinearSolver::jacobiSetup", indexRange(ExecSpace(), setupSize_),
      KOKKOS_LAMBDA(Ordinal row, Ordinal & first) {
        Real diagonal = 0;
        for (Offset e = offsets(row); e < offsets(row + 1); ++e) {
          if (columns(e) == row) diagonal = values(e);
        }
        inverse(row) = diagonal != 0 ? Real(1) / diagonal : Real(0);
        if (diagonal == 0 && row < first) first = row;
      },
      Kokkos::Min<Ordinal>(firstZero));
  require(firstZero >= setupSize_, "Jacobi preconditioner of solver '", name_,
          "': diagonal entry of row ", firstZero, " is zero");
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
  if (jacobi_) {
    Blas::multiplyElements(inverseDiagonal_, r, z);
  } else {
    Blas::copy(r, z);
  }
}

template <class ExecSpace>
double LinearSolver<ExecSpace>::target(double normB) const {
  return std::max(tolerance_ * normB, absoluteTolerance_);
}

template <class ExecSpace>
double LinearSolver<ExecSpace>::residual(const Vector<ExecSpace>& b,
                                         const Vector<ExecSpace>& x,
                                         const Vector<ExecSpace>& r) const {
  multiply(matrix_, x, r);
  Blas::axpby(Real(1), b, Real(-1), r);
  return Blas::norm2(r);
}

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeLinearSolver(const std::string& name,
                                                          const Parameters& parameters) {
  std::set<std::string> known = {"tolerance", "absolute_tolerance", "max_iterations",
                                 "preconditioner"};
  if (name == "gmres") known.insert("restart");
  if (name == "cg" || name == "bicgstab" || name == "gmres") {
    parameters.requireKnown(known, "solver '" + name + "'");
  }
  if (name == "cg") return Details::makeConjugateGradient<ExecSpace>(parameters);
  if (name == "bicgstab") return Details::makeBiCGStab<ExecSpace>(parameters);
  if (name == "gmres") return Details::makeGmres<ExecSpace>(parameters);
  fail("unknown solver '", name, "' (known: cg, bicgstab, gmres)");
}

std::vector<std::string> linearSolverNames() {
  return {"cg", "bicgstab", "gmres"};
}

#define KFVM_INSTANTIATE_SOLVER(Space)                                   \
  template class LinearSolver<Space>;                                    \
  template std::unique_ptr<LinearSolver<Space>> makeLinearSolver<Space>( \
      const std::string&, const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_SOLVER)

}  // namespace kfvm
