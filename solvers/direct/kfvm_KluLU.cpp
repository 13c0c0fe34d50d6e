// SparseLU by KLU (SuiteSparse): AMD ordering of the block triangular form's blocks,
// left-looking partial pivoting, and a refactorization that keeps the pivots.
#include "detail/kfvm_SparseLUPackages.hpp"
#include "kfvm_SparseLU.hpp"

#include <kfvm_Error.hpp>

#include <klu.h>

namespace kfvm::Details {
namespace {

class KluLU final : public SparseLU {
 public:
  KluLU() { klu_defaults(&common_); }
  ~KluLU() override { release(); }
  KluLU(const KluLU&) = delete;
  KluLU& operator=(const KluLU&) = delete;

  std::string package() const override { return "klu"; }

  void analyze(const HostCsr& a) override {
    release();
    symbolic_ = klu_analyze(a.rows, const_cast<int*>(a.offsets.data()),
                            const_cast<int*>(a.columns.data()), &common_);
    require(symbolic_ != nullptr, "lu (klu): the symbolic analysis of a ", a.rows, " x ",
            a.rows, " matrix failed (KLU status ", common_.status, ")");
  }

  double predictedEntries() const override {
    return symbolic_ ? symbolic_->lnz + symbolic_->unz : 0.0;
  }

  FactorResult factor(const HostCsr& a, bool reusePivots) override {
    int* offsets = const_cast<int*>(a.offsets.data());
    int* columns = const_cast<int*>(a.columns.data());
    double* values = const_cast<double*>(a.values.data());
    if (reusePivots && numeric_ &&
        klu_refactor(offsets, columns, values, symbolic_, numeric_, &common_) &&
        common_.status == KLU_OK) {
      FactorResult result;
      result.reusedPivots = true;
      return result;
    }
    if (numeric_) klu_free_numeric(&numeric_, &common_);
    numeric_ = klu_factor(offsets, columns, values, symbolic_, &common_);
    if (numeric_ && common_.status == KLU_OK) return {};
    FactorResult result;
    result.ok = false;
    // The packages factor A^T: its singular column is A's row.
    result.problem =
        common_.status == KLU_SINGULAR
            ? concatenate("singular matrix (KLU: no pivot in row ", common_.singular_col,
                          ")")
            : concatenate("factorization failed (KLU status ", common_.status, ")");
    if (numeric_) klu_free_numeric(&numeric_, &common_);
    return result;
  }

  void solve(std::vector<double>& x) override {
    require(numeric_ != nullptr, "lu (klu): solve() before a successful factor()");
    // A^T was factored: its transposed solve is A x = b.
    klu_tsolve(symbolic_, numeric_, int(x.size()), 1, x.data(), &common_);
  }

  double factorEntries() const override {
    return numeric_ ? double(numeric_->lnz) + double(numeric_->unz) : 0.0;
  }

 private:
  void release() {
    if (numeric_) klu_free_numeric(&numeric_, &common_);
    if (symbolic_) klu_free_symbolic(&symbolic_, &common_);
  }

  klu_common common_;
  klu_symbolic* symbolic_ = nullptr;
  klu_numeric* numeric_ = nullptr;
};

}  // namespace

std::unique_ptr<SparseLU> makeKluLU() {
  return std::make_unique<KluLU>();
}

}  // namespace kfvm::Details
