#include <kfvm_Backends.hpp>
#include <kfvm_DistributedOperator.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_MatrixOperator.hpp>

#include "../detail/kfvm_StructureVersions.hpp"

#include <vector>

namespace kfvm {

namespace Details {

/// owned(e) = 1 for the entries of owned cells, blockSize entries per cell.
template <class ExecSpace>
struct OwnedMask {
  GhostedBlock layout;
  Vector<ExecSpace> owned;
  int blockSize = 1;
  KOKKOS_FUNCTION void operator()(Ordinal e) const {
    owned(e) = layout.isOwned(e / blockSize) ? Real(1) : Real(0);
  }
};

/// y(row) = sum of A(row, :) x over a list of rows.
template <class ExecSpace>
struct RowsProduct {
  DeviceView<const Ordinal*, ExecSpace> rows;
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    const Ordinal row = rows(m);
    y(row) = rowProduct(columns, values, x, offsets(row), offsets(row + 1));
  }
};

/// The owned cells of a ghosted block, split into those with no ghost among their face
/// neighbours and those with one.
template <class ExecSpace>
void splitOwnedRows(const GhostedBlock& layout, DeviceView<Ordinal*, ExecSpace>& inner,
                    DeviceView<Ordinal*, ExecSpace>& edge, int blockSize) {
  std::vector<Ordinal> innerCells, edgeCells;
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i) {
        const bool nextToGhost = (i == 0 && layout.lower[0]) ||
                                 (i == layout.owned[0] - 1 && layout.upper[0]) ||
                                 (j == 0 && layout.lower[1]) ||
                                 (j == layout.owned[1] - 1 && layout.upper[1]) ||
                                 (k == 0 && layout.lower[2]) ||
                                 (k == layout.owned[2] - 1 && layout.upper[2]);
        for (int v = 0; v < blockSize; ++v)  // each cell's rows, one per variable
          (nextToGhost ? edgeCells : innerCells)
              .push_back(layout.index(i, j, k) * blockSize + v);
      }
  inner = copyToDevice<Ordinal, ExecSpace>(innerCells,
                                           "kfvm::DistributedOperator::innerRows");
  edge =
      copyToDevice<Ordinal, ExecSpace>(edgeCells, "kfvm::DistributedOperator::edgeRows");
}

template <class ExecSpace>
VectorSpace<ExecSpace> ghostedSpace(const GhostedBlock& layout, MPI_Comm comm, int rank,
                                    int blockSize) {
  const Ordinal size = layout.size() * blockSize;
  Vector<ExecSpace> owned("kfvm::DistributedOperator::owned", size);
  forEachIndex("kfvm::DistributedOperator::ownedMask", ExecSpace(), size,
               OwnedMask<ExecSpace>{layout, owned, blockSize});
  std::vector<Ordinal> ghosts;
  for (Ordinal entry = 0; entry < size; ++entry)
    if (!layout.isOwned(entry / blockSize)) ghosts.push_back(entry);
  const auto ghostList =
      copyToDevice<Ordinal, ExecSpace>(ghosts, "kfvm::DistributedOperator::ghosts");
  return VectorSpace<ExecSpace>(
      owned, ghostList, [comm, rank](double* values, int count) {
        const int status =
            MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
        require(status == MPI_SUCCESS,
                "distributed operator: MPI_Allreduce failed on rank ", rank);
      });
}

}  // namespace Details

template <class ExecSpace>
DistributedOperator<ExecSpace>::DistributedOperator(HaloExchange<ExecSpace>& halo,
                                                    MPI_Comm comm,
                                                    const Assembler<ExecSpace>& assembler)
    : halo_(&halo),
      assembler_(&assembler),
      matrix_(&assembler.matrix()),
      space_(Details::ghostedSpace<ExecSpace>(halo.layout(), comm, halo.rank(), 1)),
      fullExchange_(assembler.equation().hasHigherOrder()),
      version_(Details::newStructureVersion()) {
  const GhostedBlock& layout = halo.layout();
  require(assembler.matrix().numRows() == layout.size() && halo.components() == 1,
          "distributed operator: the assembler's matrix has ",
          assembler.matrix().numRows(), " rows, the ghosted block ", layout.size(),
          " cells of ", halo.components(), " values");
  Details::splitOwnedRows(layout, innerRows_, edgeRows_, 1);
  // The same split in boxes of local cells for the stencil: the rim peeled axis by
  // axis (one layer on each side facing a rank), the interior what is left.
  std::array<int, 3> lo{0, 0, 0}, hi{layout.owned[0], layout.owned[1], layout.owned[2]};
  const auto local = [&](std::array<int, 3> cell) {
    for (int a = 0; a < 3; ++a) cell[a] += layout.lower[a];
    return cell;
  };
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      if ((side == 0 ? layout.lower[a] : layout.upper[a]) == 0 || lo[a] >= hi[a])
        continue;
      std::array<int, 3> begin = lo, end = hi;
      if (side == 0)
        end[a] = ++lo[a];
      else
        begin[a] = --hi[a];
      rimBoxes_.emplace_back(local(begin), local(end));
    }
  }
  innerBegin_ = local(lo);
  innerEnd_ = local(hi);
}

template <class ExecSpace>
DistributedOperator<ExecSpace>::DistributedOperator(HaloExchange<ExecSpace>& halo,
                                                    MPI_Comm comm,
                                                    const CrsMatrix<ExecSpace>& matrix,
                                                    int blockSize)
    : halo_(&halo),
      matrix_(&matrix),
      space_(
          Details::ghostedSpace<ExecSpace>(halo.layout(), comm, halo.rank(), blockSize)),
      blockSize_(blockSize),
      version_(Details::newStructureVersion()) {
  const GhostedBlock& layout = halo.layout();
  require(blockSize >= 1 && halo.components() == blockSize &&
              matrix.numRows() == layout.size() * blockSize,
          "distributed operator: a matrix of ", matrix.numRows(), " rows in blocks of ",
          blockSize, " over a ghosted block of ", layout.size(), " cells exchanged in ",
          halo.components(), " values each");
  Details::splitOwnedRows(layout, innerRows_, edgeRows_, blockSize);
}

template <class ExecSpace>
void DistributedOperator<ExecSpace>::setMatrixFree(bool on) {
  stencil_.reset();
  ++version_;
  if (!on) return;
  require(assembler_ != nullptr,
          "distributed operator: a block matrix has no matrix-free product");
  require(!assembler_->equation().hasHigherOrder(),
          "distributed system: the matrix-free product has no fourth-order term; use the "
          "assembled matrix");
  stencil_ = std::make_unique<StencilOperator<ExecSpace>>(*assembler_);
}

template <class ExecSpace>
std::string DistributedOperator<ExecSpace>::description() const {
  return stencil_ ? "distributed matrix-free stencil" : "distributed CRS matrix";
}

template <class ExecSpace>
const CrsMatrix<ExecSpace>* DistributedOperator<ExecSpace>::matrix() const {
  return stencil_ ? nullptr : matrix_;
}

template <class ExecSpace>
void DistributedOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                           const Vector<ExecSpace>& y) const {
  const auto& A = *matrix_;
  const auto rows = [&](const DeviceView<Ordinal*, ExecSpace>& list, const char* label) {
    forEachIndex(label, ExecSpace(), Ordinal(list.extent(0)),
                 Details::RowsProduct<ExecSpace>{list, A.rowOffsets(), A.columns(),
                                                 A.values(), x, y});
  };
  if (stencil_) {
    halo_->startFaces(x);
    stencil_->applyBox(x, y, innerBegin_, innerEnd_);
    halo_->finishFaces(x);
    for (const auto& [begin, end] : rimBoxes_) stencil_->applyBox(x, y, begin, end);
  } else if (fullExchange_) {  // rows reach edge and corner ghosts: no overlap
    halo_->exchange(x);
    rows(innerRows_, "kfvm::DistributedOperator::innerRows");
    rows(edgeRows_, "kfvm::DistributedOperator::edgeRows");
  } else {
    halo_->startFaces(x);
    rows(innerRows_, "kfvm::DistributedOperator::innerRows");
    halo_->finishFaces(x);
    rows(edgeRows_, "kfvm::DistributedOperator::edgeRows");
  }
  space_.zeroGhosts(y);
}

template <class ExecSpace>
void DistributedOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  if (assembler_) {
    Kokkos::deep_copy(ExecSpace(), d, assembler_->diagonal());
  } else {
    matrixDiagonal(*matrix_, d);
  }
  space_.zeroGhosts(d);
}

#define KFVM_INSTANTIATE_DISTRIBUTED_OPERATOR(Space) \
  template class DistributedOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_OPERATOR)

}  // namespace kfvm
