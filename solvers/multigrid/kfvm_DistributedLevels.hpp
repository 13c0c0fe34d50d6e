#ifndef KFVM_DISTRIBUTED_LEVELS_HPP
#define KFVM_DISTRIBUTED_LEVELS_HPP

#include <kfvm_GridDistribution.hpp>
#include <kfvm_GridLevel.hpp>

#include <memory>
#include <vector>

namespace kfvm {

/// A multigrid hierarchy across ranks: this rank's block of each level (GridLevel with
/// its Placement), the level's split of the global grid, and the exchange of its ghost
/// cells. Level 0 is the operator's own block (its ghost layers); each coarser level
/// halves the finer split along the merged axes (GridLevel::coarserVertices() of the
/// global vertices) and has one ghost layer. An axis is merged only while every block
/// along it starts at an even cell (a coarse cell's children then have one owner); the
/// levels stop at maxLevels, at coarseCells global cells or fewer, or when no axis can
/// be merged. Every rank builds the same levels. Along a periodic axis of the split
/// the blocks wrap (Placement::wrapped: ghosts beyond an end are the other end's cells,
/// vertices continued past it), and the axis merges while its global count is 2 or a
/// multiple of 4.
template <class ExecSpace>
struct DistributedLevels {
  std::vector<std::unique_ptr<GridLevel<ExecSpace>>> grids;
  std::vector<Decomposition> splits;
  std::vector<typename GridDistribution<ExecSpace>::Exchange> exchanges;

  /// localGrid: the operator's block with its ghost layers (its assembler's mesh).
  DistributedLevels(const GridDistribution<ExecSpace>& distribution,
                    const CartesianGrid& localGrid, int maxLevels, Ordinal coarseCells);
};

/// The coarsest level of a distributed hierarchy solved whole on every rank: setup()
/// gathers every rank's owned rows of the level's matrix and factorizes the whole
/// (CoarseSolve::invert()); apply() gathers the owned entries of b (through the host)
/// and gives each rank its own entries of A^-1 b. For levels of at most
/// CoarseSolve::maxCells cells in all.
template <class ExecSpace>
class GatheredCoarseSolve {
 public:
  /// level: this rank's block of the coarsest level; split: the level's split.
  GatheredCoarseSolve(const GridLevel<ExecSpace>& level, const Decomposition& split,
                      const GridDistribution<ExecSpace>& distribution);
  void setup(const GridLevel<ExecSpace>& level);
  /// x's owned entries = those of A^-1 b; its ghosts 0.
  void apply(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) const;

 private:
  const GridDistribution<ExecSpace>* distribution_;
  Ordinal cells_ = 0;                         // in all
  std::vector<Ordinal> ownedLocal_;           // this rank's owned cells (local index)
  std::vector<Ordinal> localPosition_;        // local cell -> position in the whole
  Ordinal offset_ = 0;                        // position of this rank's first owned cell
  std::vector<int> counts_;                   // every rank's owned cells
  DeviceView<Real**, ExecSpace> localDense_;  // the block's dense matrix
  std::vector<double> inverseRows_;           // this rank's rows of the inverse
  DeviceView<Ordinal*, ExecSpace> owned_;
  Vector<ExecSpace> packed_;
  typename Vector<ExecSpace>::HostMirror packedHost_;
  mutable std::vector<double> mine_, all_;
};

}  // namespace kfvm

#endif
