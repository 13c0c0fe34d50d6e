#ifndef KFVM_GRID_DISTRIBUTION_HPP
#define KFVM_GRID_DISTRIBUTION_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Decomposition.hpp>
#include <kfvm_Types.hpp>

#include <array>
#include <functional>
#include <vector>

namespace kfvm {

/// What geometric multigrid needs of an operator whose vectors are one rank's block of a
/// structured grid with its ghost layers (DistributedOperator, kfvm::distributed): the
/// global grid and its split, ghost exchanges on coarser splits of it, and collectives.
/// Host-side interface, no MPI here, so that the multigrid needs none.
template <class ExecSpace>
class GridDistribution {
 public:
  /// Fills the ghost cells of a vector over a split (one value per cell).
  using Exchange = std::function<void(const Vector<ExecSpace>&)>;

  virtual ~GridDistribution() = default;
  /// The whole grid, its split over the ranks and this rank.
  virtual const CartesianGrid& grid() const = 0;
  virtual const Decomposition& decomposition() const = 0;
  virtual int rank() const = 0;
  /// The ghost layers of the operator's vectors below ([0]) and above ([1]) its owned
  /// cells along each axis (0 at the grid's boundary).
  virtual std::array<std::array<int, 3>, 2> ghostLayers() const = 0;
  /// Fills x's ghost cells (the operator's layout) from their owners.
  virtual void exchange(const Vector<ExecSpace>& x) const = 0;
  /// An exchange of one ghost layer over another split of a grid (every rank makes the
  /// same split, at the same time: a coarser level's). Its buffers are made here.
  virtual Exchange exchangeOver(const Decomposition& split) const = 0;
  /// Maxima over the ranks, in place.
  virtual void maxOverRanks(double* values, int count) const = 0;
  /// Every rank's count values, concatenated in rank order into all (the same on every
  /// rank; resized, so that a buffer kept between calls is not allocated again).
  virtual void gather(const double* mine, int count, std::vector<double>& all) const = 0;
  /// The same with every rank's count known (counts, in rank order, from an earlier
  /// gather): one collective instead of two.
  virtual void gather(const double* mine, const std::vector<int>& counts,
                      std::vector<double>& all) const = 0;
};

}  // namespace kfvm

#endif
