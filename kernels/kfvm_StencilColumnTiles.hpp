#ifndef KFVM_STENCIL_COLUMN_TILES_HPP
#define KFVM_STENCIL_COLUMN_TILES_HPP

#include <kfvm_Types.hpp>

#include <Kokkos_Core.hpp>

#include <array>

namespace kfvm::Details {

/// The work items of a structured grid's column loops (StencilOperator's Columns loop,
/// the multigrid levels' sweeps): one per column (i, j) and chunk of `depth` cells along
/// k, the columns taken in tiles of tileI x tileJ, so that a GPU block of 128 (or a
/// multiple) reads its x neighbours in j from lines its own warps loaded.
struct StencilColumnTiles {
  static constexpr int tileI = 32, tileJ = 4, depth = 8;
  int nx = 0, ny = 0, tilesI = 0, tilesJ = 0;
  Ordinal items = 0;

  StencilColumnTiles() = default;
  explicit StencilColumnTiles(const std::array<int, 3>& cellCounts)
      : nx(cellCounts[0]),
        ny(cellCounts[1]),
        tilesI((cellCounts[0] + tileI - 1) / tileI),
        tilesJ((cellCounts[1] + tileJ - 1) / tileJ),
        items(Ordinal(tilesI) * tilesJ * tileI * tileJ *
              ((cellCounts[2] + depth - 1) / depth)) {}

  /// The column (i, j) and first k of work item index; false outside the grid.
  KOKKOS_INLINE_FUNCTION bool chunkOf(Ordinal index, int& i, int& j, int& kBegin) const {
    const int inTile = int(index % (tileI * tileJ));
    const Ordinal tile = index / (tileI * tileJ);
    i = int(tile % tilesI) * tileI + inTile % tileI;
    j = int((tile / tilesI) % tilesJ) * tileJ + inTile / tileI;
    kBegin = int(tile / (Ordinal(tilesI) * tilesJ)) * depth;
    return i < nx && j < ny;
  }
};

}  // namespace kfvm::Details

#endif
