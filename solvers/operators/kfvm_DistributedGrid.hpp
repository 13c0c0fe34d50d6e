#ifndef KFVM_DISTRIBUTED_GRID_HPP
#define KFVM_DISTRIBUTED_GRID_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchange).

#include <kfvm_GridDistribution.hpp>
#include <kfvm_HaloExchange.hpp>

#include <mpi.h>

#include <vector>

namespace kfvm {

/// GridDistribution over MPI: a grid split as a HaloExchange's decomposition, ghost
/// exchanges by HaloExchange (the operator's own, and new ones of one layer over
/// coarser splits), collectives by MPI_Allreduce and MPI_Allgatherv. A failed MPI call
/// is a kfvm::Error naming the rank.
template <class ExecSpace>
class DistributedGrid final : public GridDistribution<ExecSpace> {
 public:
  /// grid: the global grid of halo's decomposition; both must outlive this.
  DistributedGrid(const CartesianGrid& grid, HaloExchange<ExecSpace>& halo);

  const CartesianGrid& grid() const override { return *grid_; }
  const Decomposition& decomposition() const override { return halo_->decomposition(); }
  int rank() const override { return halo_->rank(); }
  std::array<std::array<int, 3>, 2> ghostLayers() const override;
  void exchange(const Vector<ExecSpace>& x) const override { halo_->exchange(x); }
  typename GridDistribution<ExecSpace>::Exchange exchangeOver(
      const Decomposition& split) const override;
  void maxOverRanks(double* values, int count) const override;
  void gather(const double* mine, int count, std::vector<double>& all) const override;
  void gather(const double* mine, const std::vector<int>& counts,
              std::vector<double>& all) const override;

 private:
  const CartesianGrid* grid_;
  HaloExchange<ExecSpace>* halo_;
  mutable std::vector<int> starts_;  // gather's displacements
};

}  // namespace kfvm

#endif
