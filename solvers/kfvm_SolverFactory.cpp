// makeLinearSolver(): the one place that maps solver names to implementations, native
// and (when built with it) Trilinos.
#include <kfvm_Backends.hpp>
#include <kfvm_Config.hpp>
#include <kfvm_DirectSolver.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_FallbackSolver.hpp>
#include <kfvm_KrylovMethod.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_Preconditioner.hpp>

#include "detail/kfvm_NativeSolvers.hpp"

#ifdef KFVM_HAVE_TRILINOS
#include <kfvm_TrilinosSolver.hpp>
#endif

#include <algorithm>

namespace kfvm {

std::vector<std::string> linearSolverNames() {
  std::vector<std::string> names = krylovMethodNames();
  for (const auto& name : directSolverNames()) names.push_back(name);
#ifdef KFVM_HAVE_TRILINOS
  for (const auto& name : trilinosSolverNames()) names.push_back(name);
#endif
  return names;
}

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeLinearSolver(const std::string& name,
                                                          const Parameters& parameters) {
  const auto native = krylovMethodNames();
  if (std::find(native.begin(), native.end(), name) != native.end()) {
    std::set<std::string> known = {"tolerance",      "absolute_tolerance",
                                   "max_iterations", "preconditioner",
                                   "criterion",      "fallback"};
    for (const auto& key : krylovMethodParameters(name)) known.insert(key);
    const std::string preconditioner = parameters.getString("preconditioner", "jacobi");
    for (const auto& key : preconditionerParameters(preconditioner)) known.insert(key);
    parameters.requireKnown(
        known, "solver '" + name + "' with preconditioner '" + preconditioner + "'");
    auto solver = Details::makeKrylovSolver<ExecSpace>(name, parameters);
    const std::string fallback = parameters.getString("fallback", "none");
    if (fallback == "none") return solver;
    return std::make_unique<FallbackSolver<ExecSpace>>(std::move(solver), fallback,
                                                       parameters);
  }
  const auto direct = directSolverNames();
  if (std::find(direct.begin(), direct.end(), name) != direct.end()) {
    parameters.requireKnown({"tolerance", "absolute_tolerance", "max_iterations",
                             "preconditioner", "criterion", "package"},
                            "solver '" + name + "'");
    return std::make_unique<DirectSolver<ExecSpace>>(name, parameters);
  }
#ifdef KFVM_HAVE_TRILINOS
  if (isTrilinosSolverName(name)) return makeTrilinosSolver<ExecSpace>(name, parameters);
#endif
  std::string known;
  for (const auto& n : linearSolverNames()) known += (known.empty() ? "" : ", ") + n;
  fail("unknown solver '", name, "' (known: ", known, ")");
}

#define KFVM_INSTANTIATE_FACTORY(Space)                                  \
  template std::unique_ptr<LinearSolver<Space>> makeLinearSolver<Space>( \
      const std::string&, const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_FACTORY)

}  // namespace kfvm
