// "ilu0" and "block-jacobi": ILU(0) of the assembled matrix, or of each variable's
// diagonal block of a coupled system.
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_IncompleteLU.hpp>

#include "detail/kfvm_PreconditionerMakers.hpp"

#include <vector>

namespace kfvm::Details {

/// The kept matrix's values: entry e is entry sources(e) of the whole matrix, or 1 where
/// sources(e) is unitDiagonal (a ghost row's).
constexpr Offset unitDiagonal = ~Offset(0);

template <class ExecSpace>
struct GatherEntries {
  DeviceView<const Offset*, ExecSpace> sources;
  DeviceView<const Real*, ExecSpace> all;
  DeviceView<Real*, ExecSpace> kept;
  KOKKOS_FUNCTION void operator()(Ordinal e) const {
    kept(e) = sources(e) != unitDiagonal ? all(sources(e)) : Real(1);
  }
};

/// ILU(0) of the operator's assembled matrix, or of a part of it:
///  - on a distributed space, of the block of owned rows and columns (block Jacobi across
///    ranks): the couplings to ghost entries are dropped and a ghost row is a unit
///    diagonal. (A rank's whole ghosted matrix may be singular: in the middle of a
///    steady 1D problem its ghost cells see no boundary condition.)
///  - for "block-jacobi" of a coupled system, of each variable's diagonal block.
template <class ExecSpace>
class IncompleteLUPreconditioner final : public Preconditioner<ExecSpace> {
 public:
  explicit IncompleteLUPreconditioner(bool perVariable)
      : Preconditioner<ExecSpace>(perVariable ? "block-jacobi" : "ilu0"),
        perVariable_(perVariable) {}

  bool needsMatrix() const override { return true; }
  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    factors_.apply(r, z);
    this->op().space().zeroGhosts(z);
  }

 private:
  void setupImpl(const LinearOperator<ExecSpace>& op, bool,
                 bool structureChanged) override {
    const CrsMatrix<ExecSpace>* matrix = op.matrix();
    require(matrix != nullptr, "preconditioner '", this->name(),
            "' needs an assembled matrix; the operator is a ", op.description(),
            " (use jacobi or chebyshev)");
    const int blocks = perVariable_ ? op.blockSize() : 1;
    const Vector<ExecSpace>& owned = op.space().ownedMask();
    if (blocks == 1 && owned.extent(0) == 0) {  // the whole matrix
      if (structureChanged) factors_.analyze(*matrix);
      factors_.factorize(*matrix);
      return;
    }
    if (structureChanged) {
      keepEntries(*matrix, blocks, owned);
      factors_.analyze(kept_);
    }
    forEachIndex("kfvm::IncompleteLU::keptEntries", ExecSpace(),
                 Ordinal(sources_.extent(0)),
                 GatherEntries<ExecSpace>{sources_, matrix->values(), kept_.values()});
    factors_.factorize(kept_);
  }

  /// The pattern of the entries kept (row and column of the same variable of `blocks`,
  /// entry cell * blocks + variable; both owned where owned is not empty, and a unit
  /// diagonal in a ghost row), and where each comes from.
  void keepEntries(const CrsMatrix<ExecSpace>& matrix, int blocks,
                   const Vector<ExecSpace>& ownedMask) {
    const auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.rowOffsets());
    const auto columns =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.columns());
    const auto owned =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ownedMask);
    const bool masked = owned.extent(0) > 0;
    const auto isOwned = [&](Ordinal i) {
      return !masked || owned(i) != 0;
    };
    const Ordinal n = matrix.numRows();
    std::vector<Offset> keptOffsets{0};
    std::vector<Ordinal> keptColumns;
    std::vector<Offset> sources;
    for (Ordinal row = 0; row < n; ++row) {
      if (!isOwned(row)) {  // a ghost row: its unit diagonal only
        keptColumns.push_back(row);
        sources.push_back(unitDiagonal);
        keptOffsets.push_back(keptColumns.size());
        continue;
      }
      for (Offset e = offsets(row); e < offsets(row + 1); ++e) {
        if (columns(e) % blocks != row % blocks || !isOwned(columns(e))) continue;
        keptColumns.push_back(columns(e));
        sources.push_back(e);
      }
      keptOffsets.push_back(keptColumns.size());
    }
    kept_ = CrsMatrix<ExecSpace>(
        "kfvm::IncompleteLU::kept", n, n,
        copyToDevice<Offset, ExecSpace>(keptOffsets, "kfvm::IncompleteLU::keptOffsets"),
        copyToDevice<Ordinal, ExecSpace>(keptColumns, "kfvm::IncompleteLU::keptColumns"));
    sources_ =
        copyToDevice<Offset, ExecSpace>(sources, "kfvm::IncompleteLU::keptSources");
  }

  bool perVariable_;
  IncompleteLU<ExecSpace> factors_;
  CrsMatrix<ExecSpace> kept_;
  DeviceView<Offset*, ExecSpace> sources_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeIncompleteLU(bool perVariable) {
  return std::make_unique<IncompleteLUPreconditioner<ExecSpace>>(perVariable);
}

#define KFVM_INSTANTIATE_ILU_PRECONDITIONER(Space) \
  template std::unique_ptr<Preconditioner<Space>> makeIncompleteLU<Space>(bool);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_ILU_PRECONDITIONER)

}  // namespace kfvm::Details
