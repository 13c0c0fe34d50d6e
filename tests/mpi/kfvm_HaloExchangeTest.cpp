// Halo exchange on 1, 2 and 4 ranks (ctest runs this program under mpirun): after one
// exchange every ghost cell, on faces, edges and corners, holds the global id of the
// cell it mirrors, and the owned cells are untouched.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_Error.hpp>
#include <kfvm_HaloExchange.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Owned cells hold 1 + their global id, ghosts -1; exchange (all ghosts, or faces
/// only); check every cell: edge and corner ghosts stay -1 after a faces-only exchange.
void checkExchange(const Decomposition& decomposition, GpuAwareMpi mode,
                   bool facesOnly = false, int width = 1) {
  HaloExchange<Space> halo(decomposition, MPI_COMM_WORLD, mode, width);
  const GhostedBlock& layout = halo.layout();
  const auto block = decomposition.block(halo.rank());
  const auto& cells = decomposition.cells();
  std::vector<Real> values(std::size_t(layout.size()), Real(-1));
  const auto globalId = [&](int gi, int gj, int gk) {
    return gi + std::int64_t(cells[0]) * (gj + std::int64_t(cells[1]) * gk);
  };
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i)
        values[std::size_t(layout.index(i, j, k))] = Real(
            1 + globalId(block.first[0] + i, block.first[1] + j, block.first[2] + k));
  Vector<Space> field("kfvm::Test::ghosted", values.size());
  auto host = Kokkos::create_mirror_view(field);
  for (std::size_t c = 0; c < values.size(); ++c) host(c) = values[c];
  Kokkos::deep_copy(field, host);
  if (facesOnly) {
    halo.startFaces(field);
    halo.finishFaces(field);
  } else {
    halo.exchange(field);
  }
  Kokkos::deep_copy(host, field);
  Ordinal checked = 0, faceGhosts = 0;
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i) {
        const int g[3] = {block.first[0] + i, block.first[1] + j, block.first[2] + k};
        for (int a = 0; a < 3; ++a)  // ghosts only towards other ranks: inside the grid
          ASSERT_TRUE(g[a] >= 0 && g[a] < cells[a]);
        EXPECT_EQ(layout.isOwned(layout.index(i, j, k)),
                  i >= 0 && i < layout.owned[0] && j >= 0 && j < layout.owned[1] &&
                      k >= 0 && k < layout.owned[2]);
        const int outside = (i < 0 || i >= layout.owned[0]) +
                            (j < 0 || j >= layout.owned[1]) +
                            (k < 0 || k >= layout.owned[2]);
        faceGhosts += outside == 1;
        const double expected =
            facesOnly && outside > 1 ? -1.0 : double(1 + globalId(g[0], g[1], g[2]));
        ASSERT_EQ(double(host(std::size_t(layout.index(i, j, k)))), expected)
            << "rank " << halo.rank() << ", local (" << i << ", " << j << ", " << k
            << ")";
        ++checked;
      }
  // Every cell of the ghosted block was checked, edge and corner ghosts among them.
  EXPECT_EQ(checked, layout.size());
  // A face slab sent matches the face ghosts received from that neighbour.
  EXPECT_EQ(halo.faceBytes(), std::size_t(faceGhosts) * sizeof(Real));
}

TEST(HaloExchange, FillsFacesEdgesAndCornersIn3D) {
  for (const GpuAwareMpi mode : {GpuAwareMpi::Auto, GpuAwareMpi::Off}) {
    checkExchange(Decomposition::balanced(3, {7, 5, 6}, worldSize()), mode);
    // Every rank along one axis, then a 2 x 2 layout where the size allows it.
    checkExchange(
        Decomposition::withProcessGrid(3, {7, 5, 6}, worldSize(), {1, 1, worldSize()}),
        mode);
    if (worldSize() == 4)
      checkExchange(Decomposition::withProcessGrid(3, {7, 5, 6}, 4, {2, 2, 1}), mode);
  }
}

TEST(HaloExchange, FacesOnlyFillsFaceGhostsAndLeavesEdgesAndCorners) {
  for (const GpuAwareMpi mode : {GpuAwareMpi::Auto, GpuAwareMpi::Off}) {
    checkExchange(Decomposition::balanced(3, {7, 5, 6}, worldSize()), mode, true);
    if (worldSize() == 4)
      checkExchange(Decomposition::withProcessGrid(3, {7, 5, 6}, 4, {2, 2, 1}), mode,
                    true);
  }
}

TEST(HaloExchange, FillsTwoGhostLayersForStencilsThatReachTwoCellsAway) {
  for (const GpuAwareMpi mode : {GpuAwareMpi::Auto, GpuAwareMpi::Off}) {
    for (const bool facesOnly : {false, true}) {
      checkExchange(Decomposition::balanced(3, {8, 6, 8}, worldSize()), mode, facesOnly,
                    2);
      checkExchange(
          Decomposition::withProcessGrid(3, {8, 6, 8}, worldSize(), {1, 1, worldSize()}),
          mode, facesOnly, 2);
    }
  }
  checkExchange(Decomposition::balanced(2, {12, 9, 1}, worldSize()), GpuAwareMpi::Auto,
                false, 2);
}

TEST(HaloExchange, FillsGhostsIn1DAnd2D) {
  checkExchange(Decomposition::balanced(2, {9, 7, 1}, worldSize()), GpuAwareMpi::Auto);
  checkExchange(Decomposition::balanced(1, {11, 1, 1}, worldSize()), GpuAwareMpi::Auto);
}

TEST(HaloExchange, BlocksThinnerThanTheGhostLayersAreErrors) {
  EXPECT_THROW(HaloExchange<Space>(Decomposition::balanced(3, {8, 8, 8}, worldSize()),
                                   MPI_COMM_WORLD, GpuAwareMpi::Auto, 0),
               Error);
  if (worldSize() < 4) return;
  // 5 cells along x over 4 ranks: blocks of 2 and 1 cells, too thin for 2 layers.
  try {
    HaloExchange<Space> halo(Decomposition::withProcessGrid(3, {5, 8, 8}, 4, {4, 1, 1}),
                             MPI_COMM_WORLD, GpuAwareMpi::Auto, 2);
    ADD_FAILURE() << "expected kfvm::Error";
  } catch (const Error& error) {
    EXPECT_NE(
        std::string(error.what()).find("1 cells along axis 0, fewer than the 2 ghost"),
        std::string::npos)
        << error.what();
  }
}

TEST(HaloExchange, MismatchedCommunicatorAndFieldAreErrors) {
  const auto wrong = Decomposition::balanced(3, {8, 8, 8}, worldSize() + 1);
  try {
    HaloExchange<Space> halo(wrong, MPI_COMM_WORLD);
    ADD_FAILURE() << "expected kfvm::Error";
  } catch (const Error& error) {
    EXPECT_NE(
        std::string(error.what()).find("the communicator " + std::to_string(worldSize())),
        std::string::npos)
        << error.what();
  }
  HaloExchange<Space> halo(Decomposition::balanced(3, {8, 8, 8}, worldSize()),
                           MPI_COMM_WORLD);
  Vector<Space> tooShort("kfvm::Test::short", 5);
  EXPECT_THROW(halo.exchange(tooShort), Error);
}

}  // namespace
}  // namespace kfvm::Test
