// "ilu0" and "block-jacobi": ILU(0) of the assembled matrix, or of each variable's
// diagonal block of a coupled system.
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_IncompleteLU.hpp>

#include "detail/kfvm_PreconditionerMakers.hpp"

#include <vector>

namespace kfvm::Details {

/// The block matrix's values on the kept entries: entry e is entry sources(e).
template <class ExecSpace>
struct GatherEntries {
  DeviceView<const Offset*, ExecSpace> sources;
  DeviceView<const Real*, ExecSpace> all;
  DeviceView<Real*, ExecSpace> kept;
  KOKKOS_FUNCTION void operator()(Ordinal e) const { kept(e) = all(sources(e)); }
};

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
    const int blocks = op.blockSize();
    if (!perVariable_ || blocks == 1) {
      if (structureChanged) factors_.analyze(*matrix);
      factors_.factorize(*matrix);
      return;
    }
    if (structureChanged) {
      keepVariableBlocks(*matrix, blocks);
      factors_.analyze(blockMatrix_);
    }
    forEachIndex(
        "kfvm::IncompleteLU::variableBlocks", ExecSpace(), Ordinal(sources_.extent(0)),
        GatherEntries<ExecSpace>{sources_, matrix->values(), blockMatrix_.values()});
    factors_.factorize(blockMatrix_);
  }

  /// The pattern of the entries that couple a variable with itself (row and column of
  /// the same variable, entry cell * blocks + variable), and where each comes from.
  void keepVariableBlocks(const CrsMatrix<ExecSpace>& matrix, int blocks) {
    const auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.rowOffsets());
    const auto columns =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.columns());
    const Ordinal n = matrix.numRows();
    std::vector<Offset> keptOffsets{0};
    std::vector<Ordinal> keptColumns;
    std::vector<Offset> sources;
    for (Ordinal row = 0; row < n; ++row) {
      for (Offset e = offsets(row); e < offsets(row + 1); ++e) {
        if (columns(e) % blocks != row % blocks) continue;
        keptColumns.push_back(columns(e));
        sources.push_back(e);
      }
      keptOffsets.push_back(keptColumns.size());
    }
    blockMatrix_ = CrsMatrix<ExecSpace>(
        "kfvm::IncompleteLU::variableBlocks", n, n,
        copyToDevice<Offset, ExecSpace>(keptOffsets, "kfvm::IncompleteLU::blockOffsets"),
        copyToDevice<Ordinal, ExecSpace>(keptColumns,
                                         "kfvm::IncompleteLU::blockColumns"));
    sources_ =
        copyToDevice<Offset, ExecSpace>(sources, "kfvm::IncompleteLU::blockSources");
  }

  bool perVariable_;
  IncompleteLU<ExecSpace> factors_;
  CrsMatrix<ExecSpace> blockMatrix_;
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
