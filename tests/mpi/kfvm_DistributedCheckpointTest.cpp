// Distributed checkpoints (parallel HDF5): written on all ranks, read back on half of
// them (another decomposition of the same grid) and on all of them: every owned and
// ghost cell holds its value again.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedCheckpoint.hpp>
#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

const std::array<int, 3> cells{9, 7, 5};

/// A ghosted field on the halo's block; owned cells 1 + global id * scale, ghosts -1.
CellField<Space> patterned(const HaloExchange<Space>& halo, const std::string& name,
                           double scale) {
  const auto& layout = halo.layout();
  Mesh<Space> mesh(CartesianGrid::uniform3D(layout.extent[0], layout.extent[1],
                                            layout.extent[2], 1, 1, 1));
  std::vector<double> values(std::size_t(layout.size()), -1);
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i)
        values[std::size_t(layout.index(i, j, k))] =
            1 + scale * double(halo.decomposition().globalCell(halo.rank(), {i, j, k}));
  CellField<Space> field(mesh, name);
  field.fromHost(values);
  return field;
}

/// Every cell of the ghosted block against 1 + global id * scale.
void expectPattern(const HaloExchange<Space>& halo, const CellField<Space>& field,
                   double scale) {
  const auto& layout = halo.layout();
  const auto first = halo.decomposition().block(halo.rank()).first;
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.values());
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i) {
        const double id = (first[0] + i) +
                          double(cells[0]) * ((first[1] + j) + cells[1] * (first[2] + k));
        ASSERT_EQ(double(values(layout.index(i, j, k))), double(Real(1 + scale * id)))
            << field.name() << " at local (" << i << ", " << j << ", " << k << ")";
      }
}

TEST(DistributedCheckpoint, RestartsOnAnotherNumberOfRanks) {
  const std::string path = "checkpoint-" + std::to_string(worldSize()) + ".h5";
  {
    HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                             MPI_COMM_WORLD);
    const auto phi = patterned(halo, "phi", 1), mu = patterned(halo, "mu", 0.5);
    writeDistributedCheckpoint<Space>(path, halo, {&phi, &mu}, {42, 1.25, cells});
  }
  // Half the ranks (at least one), split along another axis.
  const int readers = std::max(1, worldSize() / 2);
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, worldRank() < readers ? 0 : MPI_UNDEFINED, worldRank(),
                 &part);
  if (part != MPI_COMM_NULL) {
    HaloExchange<Space> halo(
        Decomposition::withProcessGrid(3, cells, readers, {1, readers, 1}), part);
    auto phi = patterned(halo, "phi", 0), mu = patterned(halo, "mu", 0);
    const auto info = readDistributedCheckpoint<Space>(path, halo, {&phi, &mu});
    EXPECT_EQ(info.step, 42);
    EXPECT_EQ(info.time, 1.25);
    expectPattern(halo, phi, 1);
    expectPattern(halo, mu, 0.5);
    MPI_Comm_free(&part);
  }
  // All ranks again, and errors: a missing dataset, another grid, a missing file.
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  auto phi = patterned(halo, "phi", 0), other = patterned(halo, "other", 0);
  readDistributedCheckpoint<Space>(path, halo, {&phi});
  expectPattern(halo, phi, 1);
  EXPECT_THROW(readDistributedCheckpoint<Space>(path, halo, {&other}), Error);
  HaloExchange<Space> bigger(Decomposition::balanced(3, {10, 7, 5}, worldSize()),
                             MPI_COMM_WORLD);
  auto wide = patterned(bigger, "phi", 0);
  EXPECT_THROW(readDistributedCheckpoint<Space>(path, bigger, {&wide}), Error);
  EXPECT_THROW(readDistributedCheckpoint<Space>("no-such.h5", halo, {&phi}), Error);
}

}  // namespace
}  // namespace kfvm::Test
