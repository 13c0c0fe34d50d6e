// The native LinearSolver: a Krylov method and a preconditioner, each chosen by name,
// composed over a LinearOperator (the assembled matrix given to setMatrix(), or any
// operator given to setOperator()).
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_KrylovMethod.hpp>
#include <kfvm_MatrixOperator.hpp>
#include <kfvm_Preconditioner.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

namespace kfvm::Details {

/// The preconditioners in the order LinearSolver takes them: the default first.
inline std::vector<std::string> nativePreconditioners() {
  std::vector<std::string> names = {"jacobi"};
  for (const auto& name : preconditionerNames())
    if (name != "jacobi") names.push_back(name);
  return names;
}

template <class ExecSpace>
class KrylovSolver final : public LinearSolver<ExecSpace> {
 public:
  KrylovSolver(const std::string& name, const Parameters& parameters)
      : LinearSolver<ExecSpace>(name, parameters, nativePreconditioners()),
        method_(makeKrylovMethod<ExecSpace>(name, parameters)),
        preconditioner_(
            makePreconditioner<ExecSpace>(this->preconditionerName(), parameters)) {}

 private:
  void setupImpl(Ordinal size) override { method_->allocate(size); }

  void updateImpl(bool) override {  // setMatrix(): the solver's own matrix operator
    ownOperator_.setMatrix(this->matrix(), this->blockSize());
    use(ownOperator_);
  }

  void operatorImpl(const LinearOperator<ExecSpace>& op) override { use(op); }
  void discretizationImpl(const GridDiscretization<ExecSpace>& discretization) override {
    preconditioner_->setDiscretization(discretization);
  }
  bool needsMatrix() const override { return preconditioner_->needsMatrix(); }

  void use(const LinearOperator<ExecSpace>& op) {
    op_ = &op;
    preconditioner_->setup(op);
  }

  SolverReport solveImpl(const Vector<ExecSpace>& b,
                         const Vector<ExecSpace>& x) override {
    SolverReport report = method_->solve(*op_, *preconditioner_, b, x, this->criterion());
    if (preconditioner_->name() != "none") report.solver += "+" + preconditioner_->name();
    return report;
  }

  std::unique_ptr<KrylovMethod<ExecSpace>> method_;
  std::unique_ptr<Preconditioner<ExecSpace>> preconditioner_;
  MatrixOperator<ExecSpace> ownOperator_;
  const LinearOperator<ExecSpace>* op_ = nullptr;
};

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeKrylovSolver(const std::string& name,
                                                          const Parameters& parameters) {
  return std::make_unique<KrylovSolver<ExecSpace>>(name, parameters);
}

#define KFVM_INSTANTIATE_KRYLOV_SOLVER(Space)                            \
  template std::unique_ptr<LinearSolver<Space>> makeKrylovSolver<Space>( \
      const std::string&, const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_KRYLOV_SOLVER)

}  // namespace kfvm::Details
