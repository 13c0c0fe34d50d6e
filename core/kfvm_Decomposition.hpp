#ifndef KFVM_DECOMPOSITION_HPP
#define KFVM_DECOMPOSITION_HPP

#include <array>
#include <cstdint>
#include <vector>

namespace kfvm {

/// A structured grid of cells split into Cartesian blocks, one per rank (host only, no
/// MPI: every rank computes the same decomposition). Ranks are numbered x fastest over
/// the process grid, rank = px_i + Px (py_j + Py pz_k), like cells over the grid. Along
/// each axis the cells are split as evenly as possible: the first (n mod P) blocks hold
/// one cell more. Global cell ids run x fastest over the whole grid (CartesianGrid's
/// order), so rank r's owned cells are a box of global ids; a Tpetra map with the same
/// ownership lists exactly these ids on rank r.
class Decomposition {
 public:
  struct Block {
    std::array<int, 3> first{0, 0, 0};  ///< global index of the block's first cell
    std::array<int, 3> count{1, 1, 1};  ///< cells per axis
    std::int64_t numCells() const { return std::int64_t(count[0]) * count[1] * count[2]; }
  };

  /// The balanced split of cells (per axis; 1 on axes beyond dimension) over ranks:
  /// among the process grids with Px Py Pz = ranks and at most as many ranks as cells
  /// along each axis, the one whose largest block is smallest, then the one with the
  /// fewest halo cells per block (faces shared with other blocks); ties go to
  /// fewer ranks along x, then y, so that rows of cells stay whole and contiguous. Throws
  /// kfvm::Error naming the counts when there is none (more ranks than cells allow).
  static Decomposition balanced(int dimension, std::array<int, 3> cells, int ranks);

  /// A given process grid; throws kfvm::Error naming the grid when its product is not
  /// ranks, an entry is below 1, an axis beyond dimension has more than one rank, or an
  /// axis has more ranks than cells.
  static Decomposition withProcessGrid(int dimension, std::array<int, 3> cells, int ranks,
                                       std::array<int, 3> processGrid);

  /// Given blocks: along axis a, the process grid's p-th block starts at cell
  /// firsts[a][p]; firsts[a] has one entry per rank along a and a last one, the cell
  /// count (multigrid's coarse levels: a split whose blocks are the halves of a finer
  /// level's). Throws kfvm::Error naming the axis when the entries do not rise from 0 to
  /// the cell count in steps of at least 1, or an axis beyond dimension is split.
  static Decomposition withBlocks(int dimension, std::array<std::vector<int>, 3> firsts);

  /// The same split with periodic axes: along such an axis the first and last blocks
  /// are neighbours (a rank alone along it is its own neighbour), so that ghost layers
  /// wrap around the grid (a periodic grid across ranks: each rank's ghosted block is an
  /// ordinary grid, the wrap is the halo exchange's). Throws kfvm::Error for a periodic
  /// axis beyond the dimension.
  Decomposition withPeriodicAxes(std::array<bool, 3> periodic) const;
  bool isPeriodic(int axis) const { return axis >= 0 && axis < 3 && periodic_[axis]; }

  int dimension() const { return dimension_; }
  int numRanks() const { return processes_[0] * processes_[1] * processes_[2]; }
  const std::array<int, 3>& cells() const { return cells_; }
  const std::array<int, 3>& processGrid() const { return processes_; }

  /// Position of a rank in the process grid, and back (-1 outside the grid).
  std::array<int, 3> coordinatesOf(int rank) const;
  int rankAt(const std::array<int, 3>& coordinates) const;
  /// The rank across the lower (side 0) or upper (side 1) face of rank's block along
  /// axis; -1 at the physical boundary (never along a periodic axis).
  int neighbour(int rank, int axis, int side) const;

  Block block(int rank) const;
  /// The first cell of the p-th block along axis (p = the ranks along it: the count).
  int firstAlong(int axis, int p) const;
  /// Global id of the cell at index local (0-based, within the block) of rank's block.
  std::int64_t globalCell(int rank, const std::array<int, 3>& local) const;
  /// The rank owning global cell index (i, j, k).
  int ownerOf(const std::array<int, 3>& cell) const;

 private:
  Decomposition(int dimension, std::array<int, 3> cells, std::array<int, 3> processes);
  void requireRank(int rank) const;

  int dimension_;
  std::array<int, 3> cells_, processes_;
  std::array<std::vector<int>, 3> firsts_;  // withBlocks(); empty: the balanced split
  std::array<bool, 3> periodic_{false, false, false};
};

}  // namespace kfvm

#endif
