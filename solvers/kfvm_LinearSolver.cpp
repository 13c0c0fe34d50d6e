#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_LinearSolver.hpp>

#include <algorithm>
#include <cmath>

namespace kfvm {

template <class ExecSpace>
LinearSolver<ExecSpace>::LinearSolver(std::string name, const Parameters& parameters,
                                      const std::vector<std::string>& preconditioners)
    : name_(std::move(name)) {
  criterion_.tolerance = parameters.getDouble("tolerance", 1e-8);
  criterion_.absoluteTolerance = parameters.getDouble("absolute_tolerance", 0);
  criterion_.maxIterations = parameters.getInt("max_iterations", 1000);
  const std::string criterion = parameters.getString("criterion", "rhs");
  require(criterion == "rhs" || criterion == "initial", "unknown criterion '", criterion,
          "' for solver '", name_, "' (known: rhs, initial)");
  criterion_.relativeToInitial = criterion == "initial";
  const double tolerance = criterion_.tolerance;
  const double absoluteTolerance = criterion_.absoluteTolerance;
  const int maxIterations = criterion_.maxIterations;
  preconditioner_ = parameters.getString("preconditioner", preconditioners.front());
  if (std::find(preconditioners.begin(), preconditioners.end(), preconditioner_) ==
      preconditioners.end()) {
    std::string known;
    for (const auto& p : preconditioners) known += (known.empty() ? "" : ", ") + p;
    fail("unknown preconditioner '", preconditioner_, "' for solver '", name_,
         "' (known: ", known, ")");
  }
  require(std::isfinite(tolerance) && tolerance >= 0 && tolerance < 1,
          "solver tolerance must be in [0, 1), got ", tolerance);
  require(std::isfinite(absoluteTolerance) && absoluteTolerance >= 0,
          "solver absolute_tolerance must be finite and >= 0, got ", absoluteTolerance);
  require(tolerance > 0 || absoluteTolerance > 0,
          "solver tolerance and absolute_tolerance cannot both be 0");
  require(maxIterations > 0, "solver max_iterations must be positive, got ",
          maxIterations);
}

template <class ExecSpace>
void LinearSolver<ExecSpace>::setMatrix(const CrsMatrix<ExecSpace>& matrix,
                                        int blockSize) {
  require(matrix.numRows() > 0 &&
              (matrix.numRows() == matrix.numColumns() ||
               (takesGhostColumns() && matrix.numColumns() > matrix.numRows())),
          "solver '", name_, "' needs a ",
          takesGhostColumns() ? "non-empty matrix with at least as many columns as rows"
                              : "square non-empty matrix",
          ", got ", matrix.numRows(), " x ", matrix.numColumns());
  require(blockSize >= 1 && matrix.numRows() % blockSize == 0, "solver '", name_,
          "': block size ", blockSize, " does not divide the ", matrix.numRows(),
          " rows");
  const bool structureChanged =
      setupSize_ != matrix.numRows() || blockSize != blockSize_ ||
      matrix.rowOffsets().data() != matrix_.rowOffsets().data() ||
      matrix.columns().data() != matrix_.columns().data() ||
      matrix.values().data() != matrix_.values().data();
  matrix_ = matrix;
  blockSize_ = blockSize;
  if (setupSize_ != matrix.numRows()) {
    setupSize_ = matrix.numRows();
    setupImpl(setupSize_);
  }
  updateImpl(structureChanged);
}

template <class ExecSpace>
void LinearSolver<ExecSpace>::setOperator(const LinearOperator<ExecSpace>& op) {
  require(op.size() > 0, "solver '", name_, "' needs a non-empty operator, got the ",
          op.description(), " of size ", op.size());
  if (setupSize_ != op.size()) {
    setupSize_ = op.size();
    setupImpl(setupSize_);
  }
  operatorImpl(op);
}

template <class ExecSpace>
void LinearSolver<ExecSpace>::operatorImpl(const LinearOperator<ExecSpace>& op) {
  require(op.matrix() != nullptr, "solver '", name_,
          "' needs an assembled matrix; the operator is a ", op.description());
  setMatrix(*op.matrix(), op.blockSize());
}

template <class ExecSpace>
SolverReport LinearSolver<ExecSpace>::solve(const Vector<ExecSpace>& b,
                                            const Vector<ExecSpace>& x) {
  require(setupSize_ > 0, "solver '", name_,
          "': setMatrix() or setOperator() must come before solve()");
  require(
      b.extent(0) == std::size_t(setupSize_) && x.extent(0) == std::size_t(setupSize_),
      "solver '", name_, "': the operator has ", setupSize_, " rows but b has ",
      b.extent(0), " and x has ", x.extent(0), " entries");
  return solveImpl(b, x);
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
