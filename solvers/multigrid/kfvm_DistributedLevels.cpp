#include <kfvm_Backends.hpp>
#include <kfvm_CoarseSolve.hpp>
#include <kfvm_DistributedLevels.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_WrappedVertices.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace kfvm {

namespace Details {

/// True when every block of split along axis starts at an even cell.
inline bool evenStarts(const Decomposition& split, int axis) {
  for (int p = 1; p < split.processGrid()[axis]; ++p)
    if (split.firstAlong(axis, p) % 2 != 0) return false;
  return true;
}

inline std::int64_t globalCells(const std::array<std::vector<double>, 3>& vertices) {
  std::int64_t n = 1;
  for (const auto& v : vertices) n *= std::int64_t(v.size()) - 1;
  return n;
}

/// packed(q) = x(owned(q)), or back: x(owned(q)) = packed(q).
template <class ExecSpace>
struct PackOwned {
  DeviceView<Ordinal*, ExecSpace> owned;
  Vector<ExecSpace> x, packed;
  bool unpack;
  KOKKOS_FUNCTION void operator()(Ordinal q) const {
    if (unpack)
      x(owned(q)) = packed(q);
    else
      packed(q) = x(owned(q));
  }
};

}  // namespace Details

template <class ExecSpace>
DistributedLevels<ExecSpace>::DistributedLevels(
    const GridDistribution<ExecSpace>& distribution, const CartesianGrid& localGrid,
    int maxLevels, Ordinal coarseCells) {
  const CartesianGrid& grid = distribution.grid();
  const int dimension = grid.dimension(), rank = distribution.rank();
  Decomposition split = distribution.decomposition();
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) periodic[a] = split.isPeriodic(a);
  std::array<std::vector<double>, 3> vertices{grid.vertices(0), grid.vertices(1),
                                              grid.vertices(2)};
  const auto layers = distribution.ghostLayers();
  {  // level 0: the operator's block
    const auto block = split.block(rank);
    typename GridLevel<ExecSpace>::Placement placement;
    for (int a = 0; a < 3; ++a) {
      placement.first[a] = block.first[a] - layers[0][a];
      placement.global[a] = split.cells()[a];
      placement.ownedBegin[a] = layers[0][a];
      placement.ownedEnd[a] = layers[0][a] + block.count[a];
      placement.wrapped[a] = periodic[a];
    }
    grids.push_back(std::make_unique<GridLevel<ExecSpace>>(
        dimension,
        std::array<std::vector<double>, 3>{localGrid.vertices(0), localGrid.vertices(1),
                                           localGrid.vertices(2)},
        placement));
    splits.push_back(split);
    exchanges.push_back(
        [&distribution](const Vector<ExecSpace>& x) { distribution.exchange(x); });
  }
  while (int(grids.size()) < maxLevels && Details::globalCells(vertices) > coarseCells) {
    // A periodic axis merges while its count is 2 or a multiple of 4, as on one process
    // (every level even: red-black colours by global index stay independent across the
    // wrap, and a coarse cell's two children are one cell apart around the ends).
    std::array<bool, 3> allowed{}, merged{};
    for (int a = 0; a < 3; ++a) {
      const int count = int(vertices[a].size()) - 1;
      allowed[a] =
          Details::evenStarts(split, a) && (!periodic[a] || count == 2 || count % 4 == 0);
    }
    auto coarse =
        GridLevel<ExecSpace>::coarserVertices(dimension, vertices, allowed, merged);
    if (!merged[0] && !merged[1] && !merged[2]) break;
    std::array<std::vector<int>, 3> firsts;
    for (int a = 0; a < 3; ++a) {
      const int ranks = split.processGrid()[a];
      for (int p = 0; p < ranks; ++p)
        firsts[a].push_back(merged[a] ? split.firstAlong(a, p) / 2
                                      : split.firstAlong(a, p));
      firsts[a].push_back(int(coarse[a].size()) - 1);
    }
    split =
        Decomposition::withBlocks(split.dimension(), firsts).withPeriodicAxes(periodic);
    vertices = coarse;
    // This rank's block with one ghost layer on each side facing another rank (both
    // sides of a periodic axis, wrapping around it).
    const auto block = split.block(rank);
    typename GridLevel<ExecSpace>::Placement placement;
    std::array<std::vector<double>, 3> local;
    for (int a = 0; a < 3; ++a) {
      const int below = split.neighbour(rank, a, 0) >= 0 ? 1 : 0;
      const int above = split.neighbour(rank, a, 1) >= 0 ? 1 : 0;
      placement.first[a] = block.first[a] - below;
      placement.global[a] = split.cells()[a];
      placement.ownedBegin[a] = below;
      placement.ownedEnd[a] = below + block.count[a];
      placement.wrapped[a] = periodic[a];
      if (a < dimension)
        local[a] = wrappedVertices(vertices[a], placement.first[a],
                                   below + block.count[a] + above);
      else
        local[a] = vertices[a];
    }
    grids.push_back(std::make_unique<GridLevel<ExecSpace>>(dimension, local, placement));
    splits.push_back(split);
    exchanges.push_back(distribution.exchangeOver(split));
  }
}

template <class ExecSpace>
GatheredCoarseSolve<ExecSpace>::GatheredCoarseSolve(
    const GridLevel<ExecSpace>& level, const Decomposition& split,
    const GridDistribution<ExecSpace>& distribution)
    : distribution_(&distribution) {
  const auto& p = level.placement();
  const auto& cells = level.cells();
  cells_ = Ordinal(split.cells()[0]) * split.cells()[1] * split.cells()[2];
  require(cells_ <= CoarseSolve<ExecSpace>::maxCells, "GatheredCoarseSolve: ", cells_,
          " cells in all, more than ", CoarseSolve<ExecSpace>::maxCells);
  const auto globalId = [&](Ordinal local) {
    const int idx[3] = {int(local % cells[0]), int((local / cells[0]) % cells[1]),
                        int(local / (Ordinal(cells[0]) * cells[1]))};
    int g[3];  // a ghost beyond an end of a wrapped axis is the cell at the other end
    for (int a = 0; a < 3; ++a)
      g[a] = p.wrapped[a]
                 ? ((p.first[a] + idx[a]) % p.global[a] + p.global[a]) % p.global[a]
                 : p.first[a] + idx[a];
    return double(g[0]) +
           double(p.global[0]) * (double(g[1]) + double(p.global[1]) * g[2]);
  };
  std::vector<double> mine;
  for (int k = p.ownedBegin[2]; k < p.ownedEnd[2]; ++k)
    for (int j = p.ownedBegin[1]; j < p.ownedEnd[1]; ++j)
      for (int i = p.ownedBegin[0]; i < p.ownedEnd[0]; ++i) {
        const Ordinal local = i + Ordinal(cells[0]) * (j + Ordinal(cells[1]) * k);
        ownedLocal_.push_back(local);
        mine.push_back(globalId(local));
      }
  // Positions in the whole: rank by rank, each rank's owned cells in local order.
  std::vector<double> ids;
  distribution.gather(mine.data(), int(mine.size()), ids);
  // Every rank's count of owned cells, for the gathers of each cycle.
  const double count = double(mine.size());
  std::vector<double> counts;
  distribution.gather(&count, 1, counts);
  for (const double c : counts) counts_.push_back(int(c));
  require(Ordinal(ids.size()) == cells_, "GatheredCoarseSolve: the ranks own ",
          ids.size(), " cells of ", cells_);
  std::unordered_map<std::int64_t, Ordinal> position;
  for (std::size_t q = 0; q < ids.size(); ++q)
    position[std::int64_t(ids[q])] = Ordinal(q);
  for (std::size_t q = 0; q < ids.size(); ++q)
    if (std::int64_t(ids[q]) == std::int64_t(mine.empty() ? -1 : mine[0])) {
      offset_ = Ordinal(q);
      break;
    }
  const Ordinal n = level.numCells();
  localPosition_.resize(std::size_t(n));
  for (Ordinal local = 0; local < n; ++local) {
    const auto found = position.find(std::int64_t(globalId(local)));
    localPosition_[std::size_t(local)] = found == position.end() ? -1 : found->second;
  }
  localDense_ = DeviceView<Real**, ExecSpace>("kfvm::GatheredCoarseSolve::local", n, n);
  owned_ =
      copyToDevice<Ordinal, ExecSpace>(ownedLocal_, "kfvm::GatheredCoarseSolve::owned");
  packed_ = Vector<ExecSpace>("kfvm::GatheredCoarseSolve::packed", ownedLocal_.size());
  packedHost_ = Kokkos::create_mirror_view(packed_);
  mine_.resize(ownedLocal_.size());
}

template <class ExecSpace>
void GatheredCoarseSolve<ExecSpace>::setup(const GridLevel<ExecSpace>& level) {
  level.dense(localDense_);
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), localDense_);
  // (row, column, value) of this rank's owned rows, in positions of the whole.
  std::vector<double> entries, all;
  const Ordinal n = level.numCells();
  for (std::size_t q = 0; q < ownedLocal_.size(); ++q) {
    const Ordinal row = ownedLocal_[q];
    for (Ordinal column = 0; column < n; ++column) {
      const double value = double(a(row, column));
      if (value == 0) continue;
      require(localPosition_[std::size_t(column)] >= 0, "GatheredCoarseSolve: row ", row,
              " of the ", level.description(), " reaches a cell no rank owns");
      entries.insert(entries.end(), {double(offset_ + Ordinal(q)),
                                     double(localPosition_[std::size_t(column)]), value});
    }
  }
  distribution_->gather(entries.data(), int(entries.size()), all);
  std::vector<double> whole(std::size_t(cells_) * cells_, 0.0);
  for (std::size_t e = 0; e + 2 < all.size(); e += 3)
    whole[std::size_t(all[e]) * cells_ + std::size_t(all[e + 1])] += all[e + 2];
  const auto inverse =
      CoarseSolve<ExecSpace>::invert(whole, cells_,
                                     "the coarsest multigrid level of " +
                                         std::to_string(cells_) + " cells across ranks");
  const std::size_t owned = ownedLocal_.size();
  inverseRows_.assign(inverse.begin() + std::size_t(offset_) * cells_,
                      inverse.begin() + (std::size_t(offset_) + owned) * cells_);
}

template <class ExecSpace>
void GatheredCoarseSolve<ExecSpace>::apply(const Vector<ExecSpace>& b,
                                           const Vector<ExecSpace>& x) const {
  const Ordinal owned = Ordinal(ownedLocal_.size());
  forEachIndex("kfvm::GatheredCoarseSolve::pack", ExecSpace(), owned,
               Details::PackOwned<ExecSpace>{owned_, b, packed_, false});
  Kokkos::deep_copy(packedHost_, packed_);
  for (Ordinal q = 0; q < owned; ++q) mine_[std::size_t(q)] = double(packedHost_(q));
  distribution_->gather(mine_.data(), counts_, all_);
  for (Ordinal q = 0; q < owned; ++q) {
    const double* row = inverseRows_.data() + std::size_t(q) * cells_;
    double sum = 0;
    for (Ordinal c = 0; c < cells_; ++c) sum += row[c] * all_[std::size_t(c)];
    packedHost_(q) = Real(sum);
  }
  Kokkos::deep_copy(packed_, packedHost_);
  Kokkos::deep_copy(ExecSpace(), x, Real(0));
  forEachIndex("kfvm::GatheredCoarseSolve::unpack", ExecSpace(), owned,
               Details::PackOwned<ExecSpace>{owned_, x, packed_, true});
}

#define KFVM_INSTANTIATE_DISTRIBUTED_LEVELS(Space) \
  template struct DistributedLevels<Space>;        \
  template class GatheredCoarseSolve<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_LEVELS)

}  // namespace kfvm
