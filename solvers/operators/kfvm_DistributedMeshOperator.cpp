#include <kfvm_Backends.hpp>
#include <kfvm_DistributedMeshOperator.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_MatrixOperator.hpp>

#include "../detail/kfvm_StructureVersions.hpp"

#include <mpi.h>

#include <vector>

namespace kfvm {

namespace Details {

/// y(row) = A(row, :) x for the owned rows 0 .. owned - 1.
template <class ExecSpace>
struct OwnedRowsProduct {
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal row) const {
    y(row) = rowProduct(columns, values, x, offsets(row), offsets(row + 1));
  }
};

/// owned(c) = 1 for c < owned, 0 for the ghosts after them.
template <class ExecSpace>
struct FirstCellsOwned {
  Vector<ExecSpace> mask;
  Ordinal owned;
  KOKKOS_FUNCTION void operator()(Ordinal c) const { mask(c) = c < owned ? 1 : 0; }
};

/// Rows of the part's vectors (the halo's components per cell): the owned cells' first.
template <class ExecSpace>
VectorSpace<ExecSpace> partSpace(const MeshHaloExchange<ExecSpace>& halo) {
  const Ordinal local = halo.localCells() * halo.components(),
                owned = halo.ownedCells() * halo.components();
  Vector<ExecSpace> mask("kfvm::DistributedMeshOperator::owned", local);
  forEachIndex("kfvm::DistributedMeshOperator::ownedMask", ExecSpace(), local,
               FirstCellsOwned<ExecSpace>{mask, owned});
  std::vector<Ordinal> ghosts;
  for (Ordinal c = owned; c < local; ++c) ghosts.push_back(c);
  const MPI_Comm comm = halo.communicator();
  const int rank = halo.rank();
  return VectorSpace<ExecSpace>(
      mask,
      copyToDevice<Ordinal, ExecSpace>(ghosts, "kfvm::DistributedMeshOperator::ghosts"),
      [comm, rank](double* values, int count) {
        const int status =
            MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
        require(status == MPI_SUCCESS,
                "distributed mesh operator: MPI_Allreduce failed on rank ", rank);
      });
}

/// halo, when it exchanges one value per cell (an equation's); kfvm::Error otherwise.
template <class ExecSpace>
MeshHaloExchange<ExecSpace>& scalarHalo(MeshHaloExchange<ExecSpace>& halo) {
  require(halo.components() == 1, "distributed mesh operator: an equation's matrix over ",
          "a halo of ", halo.components(), " values per cell");
  return halo;
}

}  // namespace Details

template <class ExecSpace>
DistributedMeshOperator<ExecSpace>::DistributedMeshOperator(
    MeshHaloExchange<ExecSpace>& halo, const Assembler<ExecSpace>& assembler)
    : DistributedMeshOperator(Details::scalarHalo(halo), assembler.matrix()) {
  assembler_ = &assembler;
}

template <class ExecSpace>
DistributedMeshOperator<ExecSpace>::DistributedMeshOperator(
    MeshHaloExchange<ExecSpace>& halo, const CrsMatrix<ExecSpace>& matrix)
    : halo_(&halo),
      matrix_(&matrix),
      space_(Details::partSpace(halo)),
      version_(Details::newStructureVersion()) {
  require(matrix.numRows() == halo.localCells() * halo.components(),
          "distributed mesh operator: the matrix has ", matrix.numRows(),
          " rows, the part ", halo.localCells(), " cells of ", halo.components(),
          " unknowns");
}

template <class ExecSpace>
void DistributedMeshOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                               const Vector<ExecSpace>& y) const {
  halo_->exchange(x);
  const auto& A = *matrix_;
  forEachIndex("kfvm::DistributedMeshOperator::ownedRows", ExecSpace(),
               halo_->ownedCells() * halo_->components(),
               Details::OwnedRowsProduct<ExecSpace>{A.rowOffsets(), A.columns(),
                                                    A.values(), x, y});
  space_.zeroGhosts(y);
}

template <class ExecSpace>
void DistributedMeshOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  if (assembler_)
    Kokkos::deep_copy(ExecSpace(), d, assembler_->diagonal());
  else
    matrixDiagonal(*matrix_, d);
  space_.zeroGhosts(d);
}

#define KFVM_INSTANTIATE_DISTRIBUTED_MESH_OPERATOR(Space) \
  template class DistributedMeshOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_MESH_OPERATOR)

}  // namespace kfvm
