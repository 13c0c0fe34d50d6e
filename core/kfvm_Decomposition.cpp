#include <kfvm_Decomposition.hpp>
#include <kfvm_Error.hpp>

#include <limits>
#include <utility>

namespace kfvm {

namespace {

/// First cell of block p of n cells over P blocks (the first n mod P hold one more).
int firstOf(int n, int P, int p) {
  const int base = n / P, extra = n % P;
  return p * base + (p < extra ? p : extra);
}

void requireShape(int dimension, const std::array<int, 3>& cells) {
  require(dimension >= 1 && dimension <= 3,
          "decomposition: dimension must be 1, 2 or 3, got ", dimension);
  for (int a = 0; a < 3; ++a) {
    require(cells[a] >= 1, "decomposition: cells along axis ", a, " must be >= 1, got ",
            cells[a]);
    require(a < dimension || cells[a] == 1, "decomposition: a ", dimension,
            "D grid has 1 cell along axis ", a, ", got ", cells[a]);
  }
}

}  // namespace

Decomposition::Decomposition(int dimension, std::array<int, 3> cells,
                             std::array<int, 3> processes)
    : dimension_(dimension), cells_(cells), processes_(processes) {}

Decomposition Decomposition::balanced(int dimension, std::array<int, 3> cells,
                                      int ranks) {
  requireShape(dimension, cells);
  require(ranks >= 1, "decomposition: the number of ranks must be >= 1, got ", ranks);
  std::array<int, 3> best{0, 0, 0};
  std::int64_t bestLargest = std::numeric_limits<std::int64_t>::max(), bestHalo = 0;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px != 0 || px > cells[0]) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py != 0 || py > cells[1]) continue;
      const int pz = ranks / px / py;
      if (pz > cells[2]) continue;
      // The largest block (the first along each axis) and the most halo cells a block
      // can have.
      std::array<std::int64_t, 3> n{};
      for (int a = 0; a < 3; ++a) {
        const int p = a == 0 ? px : a == 1 ? py : pz;
        n[a] = (cells[a] + p - 1) / p;
      }
      const std::int64_t largest = n[0] * n[1] * n[2];
      // Neighbours along an axis: none, one (two ranks) or two (an inner block).
      const auto faces = [](int p) {
        return p == 1 ? 0 : p == 2 ? 1 : 2;
      };
      const std::int64_t halo =
          faces(px) * n[1] * n[2] + faces(py) * n[0] * n[2] + faces(pz) * n[0] * n[1];
      if (largest < bestLargest || (largest == bestLargest && halo < bestHalo)) {
        best = {px, py, pz};
        bestLargest = largest;
        bestHalo = halo;
      }
    }
  }
  require(best[0] > 0, "decomposition: ", ranks, " ranks cannot split ", cells[0], " x ",
          cells[1], " x ", cells[2],
          " cells into blocks of at least one cell (more ranks than cells allow)");
  return Decomposition(dimension, cells, best);
}

Decomposition Decomposition::withProcessGrid(int dimension, std::array<int, 3> cells,
                                             int ranks, std::array<int, 3> grid) {
  requireShape(dimension, cells);
  const auto shown = [&] {
    return Details::concatenate(grid[0], " x ", grid[1], " x ", grid[2]);
  };
  for (int a = 0; a < 3; ++a) {
    require(grid[a] >= 1, "decomposition: process grid ", shown(),
            " has an entry below 1");
    require(a < dimension || grid[a] == 1, "decomposition: process grid ", shown(),
            " splits axis ", a, " of a ", dimension, "D grid");
    require(grid[a] <= cells[a], "decomposition: process grid ", shown(), " puts ",
            grid[a], " ranks along axis ", a, ", which has only ", cells[a], " cells");
  }
  require(std::int64_t(grid[0]) * grid[1] * grid[2] == ranks,
          "decomposition: process grid ", shown(), " has ",
          std::int64_t(grid[0]) * grid[1] * grid[2], " ranks, the run has ", ranks);
  return Decomposition(dimension, cells, grid);
}

Decomposition Decomposition::withBlocks(int dimension,
                                        std::array<std::vector<int>, 3> firsts) {
  std::array<int, 3> cells{}, processes{};
  for (int a = 0; a < 3; ++a) {
    const auto& f = firsts[a];
    require(f.size() >= 2 && f.front() == 0,
            "decomposition: the block starts along axis ", a,
            " must begin at 0 and end at the cell count");
    for (std::size_t p = 1; p < f.size(); ++p)
      require(f[p] > f[p - 1], "decomposition: the block starts along axis ", a,
              " do not rise (", f[p - 1], " then ", f[p], ")");
    cells[a] = f.back();
    processes[a] = int(f.size()) - 1;
    require(a < dimension || processes[a] == 1, "decomposition: a ", dimension,
            "D grid split along axis ", a);
  }
  requireShape(dimension, cells);
  Decomposition d(dimension, cells, processes);
  d.firsts_ = std::move(firsts);
  return d;
}

int Decomposition::firstAlong(int axis, int p) const {
  require(axis >= 0 && axis < 3 && p >= 0 && p <= processes_[axis],
          "decomposition: no block ", p, " along axis ", axis);
  return firsts_[axis].empty() ? firstOf(cells_[axis], processes_[axis], p)
                               : firsts_[axis][std::size_t(p)];
}

void Decomposition::requireRank(int rank) const {
  require(rank >= 0 && rank < numRanks(), "decomposition: rank ", rank,
          " is out of range for ", numRanks(), " ranks");
}

std::array<int, 3> Decomposition::coordinatesOf(int rank) const {
  requireRank(rank);
  return {rank % processes_[0], (rank / processes_[0]) % processes_[1],
          rank / (processes_[0] * processes_[1])};
}

int Decomposition::rankAt(const std::array<int, 3>& c) const {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= processes_[a]) return -1;
  return c[0] + processes_[0] * (c[1] + processes_[1] * c[2]);
}

int Decomposition::neighbour(int rank, int axis, int side) const {
  require(axis >= 0 && axis < 3 && (side == 0 || side == 1),
          "decomposition: neighbour needs axis 0..2 and side 0 or 1, got ", axis, ", ",
          side);
  auto c = coordinatesOf(rank);
  c[axis] += side == 0 ? -1 : 1;
  if (periodic_[axis]) c[axis] = (c[axis] + processes_[axis]) % processes_[axis];
  return rankAt(c);
}

Decomposition Decomposition::withPeriodicAxes(std::array<bool, 3> periodic) const {
  for (int a = dimension_; a < 3; ++a)
    require(!periodic[a], "decomposition: axis ", a, " of a ", dimension_,
            "D grid cannot be periodic");
  Decomposition split = *this;
  split.periodic_ = periodic;
  return split;
}

Decomposition::Block Decomposition::block(int rank) const {
  const auto c = coordinatesOf(rank);
  Block b;
  for (int a = 0; a < 3; ++a) {
    b.first[a] = firstAlong(a, c[a]);
    b.count[a] = firstAlong(a, c[a] + 1) - b.first[a];
  }
  return b;
}

std::int64_t Decomposition::globalCell(int rank, const std::array<int, 3>& local) const {
  const Block b = block(rank);
  for (int a = 0; a < 3; ++a)
    require(local[a] >= 0 && local[a] < b.count[a], "decomposition: local index ",
            local[a], " along axis ", a, " is outside rank ", rank, "'s ", b.count[a],
            " cells");
  const std::int64_t i = b.first[0] + local[0], j = b.first[1] + local[1],
                     k = b.first[2] + local[2];
  return i + std::int64_t(cells_[0]) * (j + std::int64_t(cells_[1]) * k);
}

int Decomposition::ownerOf(const std::array<int, 3>& cell) const {
  std::array<int, 3> c{};
  for (int a = 0; a < 3; ++a) {
    require(cell[a] >= 0 && cell[a] < cells_[a], "decomposition: cell index ", cell[a],
            " along axis ", a, " is outside the grid's ", cells_[a], " cells");
    const int n = cells_[a], P = processes_[a];
    if (!firsts_[a].empty()) {  // the last block starting at or before the cell
      int p = 0;
      while (p + 1 < P && firsts_[a][std::size_t(p + 1)] <= cell[a]) ++p;
      c[a] = p;
      continue;
    }
    const int base = n / P, extra = n % P;
    // The first `extra` blocks hold base + 1 cells.
    c[a] = cell[a] < extra * (base + 1) ? cell[a] / (base + 1)
                                        : extra + (cell[a] - extra * (base + 1)) / base;
  }
  return rankAt(c);
}

}  // namespace kfvm
