#include <kfvm_Backends.hpp>
#include <kfvm_DistributedGrid.hpp>
#include <kfvm_Error.hpp>

#include <memory>

namespace kfvm {

template <class ExecSpace>
DistributedGrid<ExecSpace>::DistributedGrid(const CartesianGrid& grid,
                                            HaloExchange<ExecSpace>& halo)
    : grid_(&grid), halo_(&halo) {
  const auto& cells = halo.decomposition().cells();
  for (int a = 0; a < 3; ++a)
    require(grid.cellCounts()[a] == cells[a], "distributed grid: the grid has ",
            grid.cellCounts()[a], " cells along axis ", a, ", its decomposition ",
            cells[a]);
}

template <class ExecSpace>
std::array<std::array<int, 3>, 2> DistributedGrid<ExecSpace>::ghostLayers() const {
  const auto& layout = halo_->layout();
  std::array<std::array<int, 3>, 2> layers{};
  for (int a = 0; a < 3; ++a) {
    layers[0][a] = layout.lower[a];
    layers[1][a] = layout.upper[a];
  }
  return layers;
}

template <class ExecSpace>
typename GridDistribution<ExecSpace>::Exchange DistributedGrid<ExecSpace>::exchangeOver(
    const Decomposition& split) const {
  auto halo = std::make_shared<HaloExchange<ExecSpace>>(
      split, halo_->communicator(), halo_->direct() ? GpuAwareMpi::On : GpuAwareMpi::Off,
      1, 1);
  return [halo](const Vector<ExecSpace>& x) {
    halo->exchange(x);
  };
}

template <class ExecSpace>
void DistributedGrid<ExecSpace>::maxOverRanks(double* values, int count) const {
  const int status = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX,
                                   halo_->communicator());
  require(status == MPI_SUCCESS, "distributed grid: MPI_Allreduce failed on rank ",
          rank());
}

template <class ExecSpace>
void DistributedGrid<ExecSpace>::gather(const double* mine, int count,
                                        std::vector<double>& all) const {
  const int ranks = halo_->decomposition().numRanks();
  std::vector<int> counts(std::size_t(ranks), 0);
  const int status =
      MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, halo_->communicator());
  require(status == MPI_SUCCESS, "distributed grid: MPI_Allgather failed on rank ",
          rank());
  gather(mine, counts, all);
}

template <class ExecSpace>
void DistributedGrid<ExecSpace>::gather(const double* mine,
                                        const std::vector<int>& counts,
                                        std::vector<double>& all) const {
  const int ranks = halo_->decomposition().numRanks();
  require(int(counts.size()) == ranks, "distributed grid: gather with ", counts.size(),
          " counts over ", ranks, " ranks");
  std::vector<int>& starts =
      starts_;  // kept between calls: no allocation after the first
  starts.assign(std::size_t(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) starts[r + 1] = starts[r] + counts[r];
  all.resize(std::size_t(starts[ranks]));
  const int status =
      MPI_Allgatherv(mine, counts[std::size_t(rank())], MPI_DOUBLE, all.data(),
                     counts.data(), starts.data(), MPI_DOUBLE, halo_->communicator());
  require(status == MPI_SUCCESS, "distributed grid: MPI_Allgatherv failed on rank ",
          rank());
}

#define KFVM_INSTANTIATE_DISTRIBUTED_GRID(Space) template class DistributedGrid<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_GRID)

}  // namespace kfvm
