#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_FallbackSolver.hpp>

#include <algorithm>

namespace kfvm {

namespace {

Parameters targetOf(const Parameters& parameters) {
  Parameters target;
  for (const char* key : {"tolerance", "absolute_tolerance", "criterion"})
    if (parameters.has(key)) target.set(key, parameters.entries().at(key));
  return target;
}

}  // namespace

template <class ExecSpace>
FallbackSolver<ExecSpace>::FallbackSolver(std::unique_ptr<LinearSolver<ExecSpace>> first,
                                          const std::string& fallback,
                                          const Parameters& parameters)
    : LinearSolver<ExecSpace>(first->name(), parameters, {first->preconditionerName()}),
      first_(std::move(first)),
      fallbackName_(fallback),
      fallbackParameters_(targetOf(parameters)) {
  require(fallbackName_ != first_->name(), "solver '", first_->name(),
          "' cannot fall back to itself");
  const auto names = linearSolverNames();
  if (std::find(names.begin(), names.end(), fallbackName_) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    fail("solver '", first_->name(), "': parameter fallback names an unknown solver '",
         fallbackName_, "' (known: none, ", known, ")");
  }
  // Made now, so that a bad name or parameter is an error here, not at the first miss;
  // it allocates nothing before its first matrix.
  fallback_ = makeLinearSolver<ExecSpace>(fallbackName_, fallbackParameters_);
}

template <class ExecSpace>
void FallbackSolver<ExecSpace>::setupImpl(Ordinal size) {
  start_ = Vector<ExecSpace>("kfvm::FallbackSolver::start", std::size_t(size));
}

template <class ExecSpace>
void FallbackSolver<ExecSpace>::updateImpl(bool structureChanged) {
  (void)structureChanged;  // the solvers below see it themselves
  first_->setMatrix(this->matrix(), this->blockSize());
  matrix_ = this->matrix();
  blockSize_ = this->blockSize();
  fallbackStale_ = true;
}

template <class ExecSpace>
void FallbackSolver<ExecSpace>::operatorImpl(const LinearOperator<ExecSpace>& op) {
  require(op.matrix() != nullptr, "solver '", this->name(), "' with fallback '",
          fallbackName_, "' needs an assembled matrix; the operator is a ",
          op.description());
  require(!op.space().distributed(), "solver '", this->name(), "' with fallback '",
          fallbackName_,
          "' runs on one process; this operator is distributed over MPI "
          "ranks (leave fallback out there)");
  first_->setOperator(op);
  matrix_ = *op.matrix();
  blockSize_ = op.blockSize();
  fallbackStale_ = true;
}

template <class ExecSpace>
SolverReport FallbackSolver<ExecSpace>::solveImpl(const Vector<ExecSpace>& b,
                                                  const Vector<ExecSpace>& x) {
  Kokkos::deep_copy(ExecSpace(), start_, x);
  SolverReport missed = first_->solve(b, x);
  if (missed.converged) return missed;
  Kokkos::deep_copy(ExecSpace(), x, start_);
  if (fallbackStale_) {
    fallback_->setMatrix(matrix_, blockSize_);
    fallbackStale_ = false;
  }
  SolverReport report = fallback_->solve(b, x);
  ++fallbacks_;
  report.solver = missed.solver + ", then " + report.solver;
  report.reason =
      missed.solver + " did not converge (" + missed.reason + "); " + report.reason;
  return report;
}

#define KFVM_INSTANTIATE_FALLBACK(Space) template class FallbackSolver<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_FALLBACK)

}  // namespace kfvm
