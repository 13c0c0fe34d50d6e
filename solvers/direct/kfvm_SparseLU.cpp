#include "kfvm_SparseLU.hpp"

#include <kfvm_Config.hpp>
#include <kfvm_Error.hpp>

#ifdef KFVM_HAVE_SUITESPARSE
#include "detail/kfvm_SparseLUPackages.hpp"
#endif

namespace kfvm::Details {

std::vector<std::string> sparseLUPackages() {
#ifdef KFVM_HAVE_SUITESPARSE
  return {"klu", "umfpack"};
#else
  return {};
#endif
}

std::unique_ptr<SparseLU> makeSparseLU(const std::string& package) {
#ifdef KFVM_HAVE_SUITESPARSE
  if (package == "klu") return makeKluLU();
  if (package == "umfpack") return makeUmfpackLU();
  fail("unknown sparse LU package '", package, "' (known: klu, umfpack)");
#else
  fail("the direct solver 'lu' (package '", package,
       "') needs SuiteSparse's KLU and UMFPACK, which this build of kfvm lacks (Debian: "
       "libsuitesparse-dev; then configure kfvm again); for an iterative solve name "
       "gmres or bicgstab with ilu0, or cg with jacobi");
#endif
}

}  // namespace kfvm::Details

namespace kfvm {

std::vector<std::string> directSolverNames() {
  return {"lu", "direct"};
}

long long directDefaultCells(int dimension) {
  // The fill of a nested-dissection-like ordering grows as n log n in 2D and n^(4/3) in
  // 3D; these bounds keep a factorization of the fourth-order term within seconds and a
  // few GB (perf/RESULTS.md).
  return dimension <= 2 ? 250000 : 30000;
}

bool haveDirectSolver() {
  return !Details::sparseLUPackages().empty();
}

bool directSolverByDefault(int dimension, long long cells) {
  return haveDirectSolver() && cells <= directDefaultCells(dimension);
}

}  // namespace kfvm
