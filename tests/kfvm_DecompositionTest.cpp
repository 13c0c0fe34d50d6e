// Cartesian block decomposition (host logic, the same on every rank): balanced choices,
// a given process grid, numbering, ownership, and clear errors.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Decomposition.hpp>

#include <set>

namespace kfvm::Test {
namespace {

TEST(Decomposition, BalancedSplitPicksTheSmallestBlocksThenTheLeastHalo) {
  // 4 ranks on a 64^3 cube: 1 x 1 x 4 and 1 x 2 x 2 both give 65536-cell blocks; the
  // 1 x 2 x 2 blocks have less halo (two 64 x 32 faces, against two 64 x 64). Ties go to
  // fewer ranks along x, so that rows stay whole.
  EXPECT_EQ(Decomposition::balanced(3, {64, 64, 64}, 4).processGrid(),
            (std::array<int, 3>{1, 2, 2}));
  EXPECT_EQ(Decomposition::balanced(3, {64, 64, 64}, 8).processGrid(),
            (std::array<int, 3>{2, 2, 2}));
  // A long thin grid is cut across its length.
  EXPECT_EQ(Decomposition::balanced(2, {400, 10, 1}, 4).processGrid(),
            (std::array<int, 3>{4, 1, 1}));
  EXPECT_EQ(Decomposition::balanced(1, {10, 1, 1}, 3).processGrid(),
            (std::array<int, 3>{3, 1, 1}));
  // 6 ranks, 3 cells along x: x takes at most 3.
  const auto d = Decomposition::balanced(2, {3, 100, 1}, 6);
  EXPECT_LE(d.processGrid()[0], 3);
  EXPECT_EQ(d.numRanks(), 6);
}

TEST(Decomposition, BlocksTileTheGridAndNumberingIsConsistent) {
  for (const auto& d : {Decomposition::balanced(3, {7, 5, 6}, 4),
                        Decomposition::withProcessGrid(3, {7, 5, 6}, 6, {3, 1, 2}),
                        Decomposition::balanced(2, {9, 7, 1}, 3)}) {
    std::set<std::int64_t> seen;
    std::int64_t total = 0;
    for (int r = 0; r < d.numRanks(); ++r) {
      EXPECT_EQ(d.rankAt(d.coordinatesOf(r)), r);
      const auto b = d.block(r);
      total += b.numCells();
      for (int k = 0; k < b.count[2]; ++k)
        for (int j = 0; j < b.count[1]; ++j)
          for (int i = 0; i < b.count[0]; ++i) {
            const auto id = d.globalCell(r, {i, j, k});
            EXPECT_TRUE(seen.insert(id).second) << "cell " << id << " owned twice";
            const int gi = b.first[0] + i, gj = b.first[1] + j, gk = b.first[2] + k;
            EXPECT_EQ(id, gi + std::int64_t(d.cells()[0]) * (gj + d.cells()[1] * gk));
            EXPECT_EQ(d.ownerOf({gi, gj, gk}), r);
          }
      for (int a = 0; a < 3; ++a) {  // neighbours are symmetric
        const int up = d.neighbour(r, a, 1);
        if (up >= 0) {
          EXPECT_EQ(d.neighbour(up, a, 0), r);
          EXPECT_EQ(d.block(up).first[a], b.first[a] + b.count[a]);
        } else {
          EXPECT_EQ(b.first[a] + b.count[a], d.cells()[a]);
        }
      }
    }
    EXPECT_EQ(total, std::int64_t(d.cells()[0]) * d.cells()[1] * d.cells()[2]);
  }
  // Uneven split: 7 cells over 3 ranks are 3, 2, 2.
  const auto d = Decomposition::withProcessGrid(1, {7, 1, 1}, 3, {3, 1, 1});
  EXPECT_EQ(d.block(0).count[0], 3);
  EXPECT_EQ(d.block(1).count[0], 2);
  EXPECT_EQ(d.block(2).first[0], 5);
}

TEST(Decomposition, MoreRanksThanCellsOrABadProcessGridAreClearErrors) {
  expectError(
      [] {
        Decomposition::balanced(1, {3, 1, 1}, 4);
      },
      {"4 ranks cannot split 3 x 1 x 1 cells"});
  expectError(
      [] {
        Decomposition::balanced(2, {2, 2, 1}, 5);
      },
      {"5 ranks cannot split 2 x 2 x 1 cells"});
  expectError(
      [] {
        Decomposition::withProcessGrid(3, {8, 8, 8}, 4, {2, 2, 2});
      },
      {"process grid 2 x 2 x 2 has 8 ranks, the run has 4"});
  expectError(
      [] {
        Decomposition::withProcessGrid(3, {8, 2, 8}, 4, {1, 4, 1});
      },
      {"puts 4 ranks along axis 1, which has only 2 cells"});
  expectError(
      [] {
        Decomposition::withProcessGrid(2, {8, 8, 1}, 2, {1, 1, 2});
      },
      {"process grid 1 x 1 x 2 splits axis 2 of a 2D grid"});
  expectError(
      [] {
        Decomposition::withProcessGrid(2, {8, 8, 1}, 0, {0, 1, 1});
      },
      {"has an entry below 1"});
  expectError(
      [] {
        Decomposition::balanced(3, {8, 8, 8}, 0);
      },
      {"number of ranks must be >= 1, got 0"});
  expectError(
      [] {
        Decomposition::balanced(2, {8, 8, 3}, 2);
      },
      {"a 2D grid has 1 cell along axis 2, got 3"});
  const auto d = Decomposition::balanced(2, {8, 8, 1}, 2);
  expectError([&] { d.block(2); }, {"rank 2 is out of range for 2 ranks"});
  expectError([&] { d.ownerOf({8, 0, 0}); }, {"cell index 8 along axis 0 is outside"});
}

// Multigrid's coarse splits: blocks given by their starts, owners and neighbours as
// for the balanced split.
TEST(Decomposition, GivenBlocksAreTheSplitAndBadStartsAreErrors) {
  using Starts = std::array<std::vector<int>, 3>;
  const auto d = Decomposition::withBlocks(2, Starts{{{0, 3, 8}, {0, 2, 4, 5}, {0, 1}}});
  EXPECT_EQ(d.numRanks(), 6);
  EXPECT_EQ(d.processGrid(), (std::array<int, 3>{2, 3, 1}));
  EXPECT_EQ(d.cells(), (std::array<int, 3>{8, 5, 1}));
  const auto b = d.block(3);  // process (1, 1)
  EXPECT_EQ(b.first, (std::array<int, 3>{3, 2, 0}));
  EXPECT_EQ(b.count, (std::array<int, 3>{5, 2, 1}));
  EXPECT_EQ(d.ownerOf({2, 4, 0}), 4);
  EXPECT_EQ(d.ownerOf({3, 1, 0}), 1);
  EXPECT_EQ(d.neighbour(3, 1, 1), 5);
  EXPECT_EQ(d.firstAlong(1, 3), 5);
  expectError(
      [] {
        Decomposition::withBlocks(1, Starts{{{0, 4, 4}, {0, 1}, {0, 1}}});
      },
      {"do not rise (4 then 4)"});
  expectError(
      [] {
        Decomposition::withBlocks(1, Starts{{{1, 4}, {0, 1}, {0, 1}}});
      },
      {"must begin at 0"});
  expectError(
      [] {
        Decomposition::withBlocks(1, Starts{{{0, 4}, {0, 1, 2}, {0, 1}}});
      },
      {"split along axis 1"});
}

}  // namespace
}  // namespace kfvm::Test
