// "jacobi": z = r / diag(A).
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_PreconditionerMakers.hpp"

namespace kfvm::Details {

/// inverse = 1 / diagonal on owned entries (all, when the mask is empty), 0 on ghosts;
/// the first owned entry whose diagonal is 0 or not finite goes to first.
template <class ExecSpace>
struct InvertDiagonal {
  Vector<ExecSpace> owned, inverse;
  bool masked;
  KOKKOS_FUNCTION void operator()(Ordinal i, Ordinal& first) const {
    const Real d = inverse(i);
    const bool isOwned = !masked || owned(i) != 0;
    const bool bad = isOwned && !(d != 0 && Compat::isfinite(d));
    inverse(i) = isOwned && !bad ? Real(1) / d : Real(0);
    if (bad && i < first) first = i;
  }
};

template <class ExecSpace>
class Jacobi final : public Preconditioner<ExecSpace> {
 public:
  Jacobi() : Preconditioner<ExecSpace>("jacobi") {}

  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    Blas::multiplyElements(inverse_, r, z);
  }
  const Vector<ExecSpace>* pointwiseWeights() const override { return &inverse_; }
  UniformInteriorEntries uniformWeights() const override { return uniform_; }

 private:
  void setupImpl(const LinearOperator<ExecSpace>& op, bool sizeChanged, bool) override {
    const Ordinal n = op.size();
    if (sizeChanged) inverse_ = Vector<ExecSpace>("kfvm::Jacobi::inverseDiagonal", n);
    op.diagonal(inverse_);
    uniform_ = op.uniformDiagonal();
    const auto& owned = op.space().ownedMask();
    Ordinal first = n;
    Kokkos::parallel_reduce(
        "kfvm::Jacobi::setup", indexRange(ExecSpace(), n),
        InvertDiagonal<ExecSpace>{owned, inverse_, owned.extent(0) > 0},
        Kokkos::Min<Ordinal>(first));
    require(first >= n, "Jacobi preconditioner: the diagonal entry of row ", first,
            " of the ", op.description(), " is zero or not finite");
  }

  Vector<ExecSpace> inverse_;
  UniformInteriorEntries uniform_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeJacobi() {
  return std::make_unique<Jacobi<ExecSpace>>();
}

#define KFVM_INSTANTIATE_JACOBI(Space) \
  template std::unique_ptr<Preconditioner<Space>> makeJacobi<Space>();
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_JACOBI)

}  // namespace kfvm::Details
