#ifndef KFVM_DETAIL_STENCIL_STRUCTURE_HPP
#define KFVM_DETAIL_STENCIL_STRUCTURE_HPP

// The CRS structure of a cell stencil, built on the device: row c holds c and the cells
// reachable from it through up to `hops` interior faces (1: the face neighbours, the
// second-order terms; 2: also theirs, the fourth-order term), columns increasing.

#include <kfvm_Mesh.hpp>

namespace kfvm::Details {

/// Faces a cell may have; the structure and the assembler handle up to this many.
constexpr int maxFacesPerCell = 12;

template <class ExecSpace>
struct StencilStructure {
  DeviceView<Offset*, ExecSpace> rowOffsets;
  DeviceView<Ordinal*, ExecSpace> columns;
  DeviceView<Offset*, ExecSpace> diagonalEntries;  // per cell: its own entry
  DeviceView<Offset*, ExecSpace> faceEntries;  // per cell-face slot; 0 on the boundary
  /// Some cell has two faces to the same neighbour (a general mesh's split face): two
  /// slots share an entry, which a row fill must then sum into.
  bool repeatedNeighbours = false;
};

/// hops is 1 or 2.
template <class ExecSpace>
StencilStructure<ExecSpace> buildStencilStructure(const Mesh<ExecSpace>& mesh, int hops);

/// Position of column in row, which holds it (binary search).
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION Offset entryOf(
    const DeviceView<const Offset*, ExecSpace>& rowOffsets,
    const DeviceView<const Ordinal*, ExecSpace>& columns, Ordinal row, Ordinal column) {
  Offset low = rowOffsets(row), high = rowOffsets(row + 1) - 1;
  while (low < high) {
    const Offset middle = low + (high - low) / 2;
    if (columns(middle) < column)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

}  // namespace kfvm::Details

#endif
