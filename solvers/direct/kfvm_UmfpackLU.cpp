// SparseLU by UMFPACK (SuiteSparse): multifrontal, with dense BLAS kernels on its
// fronts, so the fill of fourth-order and 3D matrices costs it far less than KLU.
#include "detail/kfvm_SparseLUPackages.hpp"
#include "kfvm_SparseLU.hpp"

#include <kfvm_Error.hpp>

#include <umfpack.h>

namespace kfvm::Details {
namespace {

class UmfpackLU final : public SparseLU {
 public:
  UmfpackLU() {
    umfpack_di_defaults(control_);
    // No iterative refinement inside UMFPACK: the direct solver refines against the
    // tolerance asked, with its own residual (kfvm_DirectSolver.cpp).
    control_[UMFPACK_IRSTEP] = 0;
    // The analysis (once per structure) tries AMD/COLAMD and METIS and keeps the ordering
    // of least fill: METIS' nested dissection on periodic and coupled grids, where the
    // factorization is faster than with AMD alone (perf/RESULTS.md).
    control_[UMFPACK_ORDERING] = UMFPACK_ORDERING_BEST;
  }
  ~UmfpackLU() override { release(); }
  UmfpackLU(const UmfpackLU&) = delete;
  UmfpackLU& operator=(const UmfpackLU&) = delete;

  std::string package() const override { return "umfpack"; }

  void analyze(const HostCsr& a) override {
    release();
    const int status =
        umfpack_di_symbolic(a.rows, a.rows, a.offsets.data(), a.columns.data(),
                            a.values.data(), &symbolic_, control_, info_);
    require(status == UMFPACK_OK, "lu (umfpack): the symbolic analysis of a ", a.rows,
            " x ", a.rows, " matrix failed (UMFPACK status ", status, ")");
    matrix_ = &a;
  }

  double predictedEntries() const override {
    return symbolic_ ? info_[UMFPACK_LNZ_ESTIMATE] + info_[UMFPACK_UNZ_ESTIMATE] : 0.0;
  }

  FactorResult factor(const HostCsr& a, bool) override {
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    const int status =
        umfpack_di_numeric(a.offsets.data(), a.columns.data(), a.values.data(), symbolic_,
                           &numeric_, control_, info_);
    matrix_ = &a;
    if (status == UMFPACK_OK) return {};
    FactorResult result;
    result.ok = false;
    result.problem =
        status == UMFPACK_WARNING_singular_matrix
            ? std::string("singular matrix (UMFPACK: a zero pivot)")
            : concatenate("factorization failed (UMFPACK status ", status, ")");
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    return result;
  }

  void solve(std::vector<double>& x) override {
    require(numeric_ != nullptr, "lu (umfpack): solve() before a successful factor()");
    right_ = x;
    // A^T was factored (the CSR arrays as columns): its transposed solve is A x = b.
    const int status = umfpack_di_solve(
        UMFPACK_At, matrix_->offsets.data(), matrix_->columns.data(),
        matrix_->values.data(), x.data(), right_.data(), numeric_, control_, info_);
    require(status == UMFPACK_OK, "lu (umfpack): the solve failed (UMFPACK status ",
            status, ")");
  }

  double factorEntries() const override {
    if (!numeric_) return 0.0;
    int lnz = 0, unz = 0, rows = 0, columns = 0, diagonal = 0;
    umfpack_di_get_lunz(&lnz, &unz, &rows, &columns, &diagonal, numeric_);
    return double(lnz) + double(unz);
  }

 private:
  void release() {
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    if (symbolic_) umfpack_di_free_symbolic(&symbolic_);
  }

  double control_[UMFPACK_CONTROL];
  double info_[UMFPACK_INFO];
  void* symbolic_ = nullptr;
  void* numeric_ = nullptr;
  const HostCsr* matrix_ = nullptr;  // the factored matrix (solves read it)
  std::vector<double> right_;        // b, which UMFPACK takes apart from x
};

}  // namespace

std::unique_ptr<SparseLU> makeUmfpackLU() {
  return std::make_unique<UmfpackLU>();
}

}  // namespace kfvm::Details
