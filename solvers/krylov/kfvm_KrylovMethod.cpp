// makeKrylovMethod() (the one place that maps names to Krylov methods) and what the
// methods share.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>

#include "detail/kfvm_KrylovMakers.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

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

template <class ExecSpace>
double residual(const LinearOperator<ExecSpace>& A, const Vector<ExecSpace>& b,
                const Vector<ExecSpace>& x, const Vector<ExecSpace>& r) {
  A.apply(x, r);
  Blas::axpby(Real(1), b, Real(-1), r);
  A.space().zeroGhosts(r);
  return A.space().norm2(r);
}

/// Whether ExecSpace's kernels are plain loops on the calling thread (no launch, no fork
/// and join).
template <class ExecSpace>
constexpr bool isSerial() {
#ifdef KOKKOS_ENABLE_SERIAL
  return std::is_same<ExecSpace, Kokkos::Serial>::value;
#else
  return false;
#endif
}

}  // namespace Details

std::vector<std::string> krylovMethodNames() {
  return {"cg", "fcg", "bicgstab", "gmres", "fgmres", "richardson"};
}

std::set<std::string> krylovMethodParameters(const std::string& name) {
  if (name == "gmres" || name == "fgmres") return {"restart", "orthogonalization"};
  return {};
}

template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeKrylovMethod(const std::string& name,
                                                          const Parameters& parameters) {
  if (name == "cg" || name == "fcg")
    return Details::makeConjugateGradient<ExecSpace>(name == "fcg");
  if (name == "bicgstab") return Details::makeBiCGStab<ExecSpace>();
  if (name == "richardson") return Details::makeRichardson<ExecSpace>();
  if (name == "gmres" || name == "fgmres") {
    const int restart = parameters.getInt("restart", 30);
    require(restart > 0 && restart <= 1000, name, " restart must be in [1, 1000], got ",
            restart);
    // Classical Gram-Schmidt takes 2 kernels a pass where modified takes 2 (j + 1): the
    // default wherever a kernel costs a launch or a fork and join. On Serial kernels are
    // plain loops, and modified Gram-Schmidt's pass over each basis vector while w stays
    // in cache moved less memory (perf/RESULTS.md).
    const std::string orthogonalization = parameters.getString(
        "orthogonalization", Details::isSerial<ExecSpace>() ? "mgs" : "cgs");
    require(orthogonalization == "cgs" || orthogonalization == "mgs", name,
            " orthogonalization must be 'cgs' or 'mgs', got '", orthogonalization, "'");
    return Details::makeGmres<ExecSpace>(restart, name == "fgmres",
                                         orthogonalization == "cgs");
  }
  std::string known;
  for (const auto& n : krylovMethodNames()) known += (known.empty() ? "" : ", ") + n;
  fail("unknown Krylov method '", name, "' (known: ", known, ")");
}

#define KFVM_INSTANTIATE_KRYLOV(Space)                                                 \
  template std::unique_ptr<KrylovMethod<Space>> makeKrylovMethod<Space>(               \
      const std::string&, const Parameters&);                                          \
  template double Details::residual<Space>(const LinearOperator<Space>&,               \
                                           const Vector<Space>&, const Vector<Space>&, \
                                           const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_KRYLOV)

}  // namespace kfvm
