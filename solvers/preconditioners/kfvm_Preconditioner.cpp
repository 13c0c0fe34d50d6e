// The preconditioner base class, makePreconditioner() (the one place that maps names to
// preconditioners) and "none".
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Preconditioner.hpp>

#include "detail/kfvm_PreconditionerMakers.hpp"

#include <algorithm>

namespace kfvm {

template <class ExecSpace>
void Preconditioner<ExecSpace>::setup(const LinearOperator<ExecSpace>& op) {
  const bool sizeChanged = size_ != op.size();
  const bool structureChanged =
      sizeChanged || op_ != &op || version_ != op.structureVersion();
  op_ = &op;
  size_ = op.size();
  version_ = op.structureVersion();
  setupImpl(op, sizeChanged, structureChanged);
}

namespace Details {

template <class ExecSpace>
class Identity final : public Preconditioner<ExecSpace> {
 public:
  Identity() : Preconditioner<ExecSpace>("none") {}
  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    Blas::copy(r, z);
  }
  bool isIdentity() const override { return true; }

 private:
  void setupImpl(const LinearOperator<ExecSpace>&, bool, bool) override {}
};

}  // namespace Details

std::vector<std::string> preconditionerNames() {
  return {"none", "jacobi", "ilu0", "block-jacobi", "chebyshev", "mg"};
}

std::set<std::string> preconditionerParameters(const std::string& name) {
  if (name == "chebyshev")
    return {"chebyshev_degree", "chebyshev_eigen_iterations", "chebyshev_boost",
            "chebyshev_ratio", "chebyshev_estimate"};
  if (name == "mg")
    return {"mg_degree",        "mg_sweeps",     "mg_coarse_cells",
            "mg_coarse_degree", "mg_levels",     "mg_cycle",
            "mg_estimate",      "mg_sweep_loop", "mg_smoother"};
  return {};
}

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makePreconditioner(
    const std::string& name, const Parameters& parameters) {
  const auto names = preconditionerNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    fail("unknown preconditioner '", name, "' (known: ", known, ")");
  }
  if (name == "none") return std::make_unique<Details::Identity<ExecSpace>>();
  if (name == "jacobi") return Details::makeJacobi<ExecSpace>();
  if (name == "ilu0") return Details::makeIncompleteLU<ExecSpace>(false);
  if (name == "block-jacobi") return Details::makeIncompleteLU<ExecSpace>(true);
  if (name == "mg") return Details::makeMultigrid<ExecSpace>(parameters);
  return Details::makeChebyshev<ExecSpace>(parameters);
}

#define KFVM_INSTANTIATE_PRECONDITIONER(Space)                               \
  template class Preconditioner<Space>;                                      \
  template std::unique_ptr<Preconditioner<Space>> makePreconditioner<Space>( \
      const std::string&, const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_PRECONDITIONER)

}  // namespace kfvm
