// Distributed checkpoints (parallel HDF5): written on all ranks, read back on half of
// them (another decomposition of the same grid) and on all of them: every owned and
// ghost cell holds its value again. A damaged, truncated or unsealed file, a file whose
// attributes are wrong, and a failed write are errors on every rank, naming the file; a
// failed write leaves the previous checkpoint as it was.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedCheckpoint.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

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

std::string suffix() {
  return "-" + std::to_string(worldSize()) + ".h5";
}

/// Rank 0 writes bytes to path; every rank waits for it.
void writeOnRank0(const std::string& path, const std::string& bytes) {
  if (worldRank() == 0) std::ofstream(path, std::ios::binary) << bytes;
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Once every rank is done with them, rank 0 removes the files made by a test.
void removeOnRank0(const std::vector<std::string>& files) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (worldRank() == 0)
    for (const auto& file : files) std::filesystem::remove(file);
}

/// The bytes of a value as the file stores it (little endian, as on x86-64 and arm64).
template <class T>
std::string bytesOf(const T& value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof(T));
}

/// bytes with the first occurrence of from replaced by to (same length).
std::string replaced(std::string bytes, const std::string& from, const std::string& to) {
  const auto at = bytes.find(from, sealBlockBytes);
  EXPECT_NE(at, std::string::npos) << "pattern not found in the checkpoint";
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

TEST(DistributedCheckpoint, RestartsOnAnotherNumberOfRanks) {
  const std::string path = "checkpoint" + suffix();
  {
    HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                             MPI_COMM_WORLD);
    const auto phi = patterned(halo, "phi", 1), mu = patterned(halo, "mu", 0.5);
    DistributedCheckpointInfo info{42, 1.25, cells};
    info.numbers["dt"] = {0.1};  // a run's own attributes, read back as written
    info.numbers["history"] = {1e-3, 2.5e-4};
    info.texts["fingerprint"] = "mesh 3D; variables phi, mu";
    info.texts["empty"] = "";
    writeDistributedCheckpoint<Space>(path, halo, {&phi, &mu}, info);
    info.numbers["step"] = {1};  // not an extra: refused, naming it
    expectRefused([&] { writeDistributedCheckpoint<Space>(path, halo, {&phi}, info); },
                  {"attribute 'step'"});
  }
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
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
    EXPECT_EQ(info.cells, cells);
    const std::map<std::string, std::vector<double>> numbers{{"dt", {0.1}},
                                                             {"history", {1e-3, 2.5e-4}}};
    const std::map<std::string, std::string> texts{
        {"empty", ""}, {"fingerprint", "mesh 3D; variables phi, mu"}};
    EXPECT_EQ(info.numbers, numbers);
    EXPECT_EQ(info.texts, texts);
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
  expectRefused([&] { readDistributedCheckpoint<Space>(path, halo, {&other}); },
                {path, "other"});
  HaloExchange<Space> bigger(Decomposition::balanced(3, {10, 7, 5}, worldSize()),
                             MPI_COMM_WORLD);
  auto wide = patterned(bigger, "phi", 0);
  expectRefused([&] { readDistributedCheckpoint<Space>(path, bigger, {&wide}); },
                {path, "9 x 7 x 5", "10 x 7 x 5"});
  expectRefused([&] { readDistributedCheckpoint<Space>("no-such.h5", halo, {&phi}); },
                {"no-such.h5"});
}

// A flipped byte in the data or in the metadata, a cut file, a file without its seal:
// refused on every rank before HDF5 reads it, with a message naming the file.
TEST(DistributedCheckpoint, DamagedFilesAreRefusedOnEveryRank) {
  const std::string path = "checkpoint-damaged" + suffix();
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  {
    const auto phi = patterned(halo, "phi", 1), mu = patterned(halo, "mu", 0.5);
    writeDistributedCheckpoint<Space>(path, halo, {&phi, &mu}, {3, 0.5, cells});
  }
  const std::string good = readFile(path);
  auto phi = patterned(halo, "phi", 0), mu = patterned(halo, "mu", 0);
  const auto read = [&](const std::string& file) {
    return [&, file] {
      readDistributedCheckpoint<Space>(file, halo, {&phi, &mu});
    };
  };
  // A value of the data (101: phi at global cell 100, mu at 200): one bit flipped.
  std::string data = good;
  const auto value = data.find(bytesOf(101.0), sealBlockBytes);
  ASSERT_NE(value, std::string::npos);
  data[value + 7] ^= 0x01;
  writeOnRank0("flipped-data" + suffix(), data);
  expectRefused(read("flipped-data" + suffix()), {"flipped-data" + suffix(), "damaged"});
  // The name of the attribute "cells", in the file's metadata.
  writeOnRank0("flipped-metadata" + suffix(), replaced(good, "cells", "cellz"));
  expectRefused(read("flipped-metadata" + suffix()),
                {"flipped-metadata" + suffix(), "damaged"});
  // Cut: the last 100 bytes are missing.
  writeOnRank0("cut" + suffix(), good.substr(0, good.size() - 100));
  expectRefused(read("cut" + suffix()), {"cut" + suffix(), "truncated"});
  // No seal (as a checkpoint from another program, or one whose first bytes were lost).
  writeOnRank0("unsealed" + suffix(),
               std::string(sealBlockBytes, '\0') + good.substr(sealBlockBytes));
  expectRefused(read("unsealed" + suffix()), {"unsealed" + suffix(), "not a sealed"});
  // The good one still reads.
  read(path)();
  expectPattern(halo, phi, 1);
  expectPattern(halo, mu, 0.5);
  removeOnRank0({path, "flipped-data" + suffix(), "flipped-metadata" + suffix(),
                 "cut" + suffix(), "unsealed" + suffix()});
}

// Sealed files (the seal made again after the change) whose attributes are out of range
// or whose dataset has another shape: refused, naming the file and what is wrong.
TEST(DistributedCheckpoint, BadAttributesAndShapesAreRefusedOnEveryRank) {
  const std::string path = "checkpoint-attributes" + suffix();
  const long long step = 4886718345LL;  // 0x123456789: bytes found once in the file
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  {
    const auto phi = patterned(halo, "phi", 1);
    writeDistributedCheckpoint<Space>(path, halo, {&phi}, {step, 1.25, cells});
  }
  const std::string good = readFile(path);
  auto phi = patterned(halo, "phi", 0);
  std::vector<std::string> made{path};
  const auto resealed = [&](const std::string& name, const std::string& bytes) {
    const std::string file = name + suffix();
    made.push_back(file);
    if (worldRank() == 0) {
      std::ofstream(file, std::ios::binary)
          << std::string(sealBlockBytes, '\0') << bytes.substr(sealBlockBytes);
      sealFile(file);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return file;
  };
  const auto refused = [&](const std::string& file, const std::string& word) {
    expectRefused([&] { readDistributedCheckpoint<Space>(file, halo, {&phi}); },
                  {file, word});
  };
  refused(resealed("case-1", replaced(good, bytesOf(step), bytesOf(-step))), "step");
  refused(resealed("case-2", replaced(good, bytesOf(1.25),
                                      bytesOf(std::numeric_limits<double>::quiet_NaN()))),
          "time");
  refused(resealed("case-3", replaced(good, bytesOf(1.25), bytesOf(-1.25))), "time");
  const std::string counts = bytesOf(cells);
  refused(
      resealed("case-4", replaced(good, counts, bytesOf(std::array<int, 3>{9, -7, 5}))),
      "cells");
  refused(resealed("case-5", replaced(good, "kfvm distributed checkpoint",
                                      "kfvm distributed checkpoinT")),
          "format");
  // The dataset's shape (nz, ny, nx) in its dataspace message: 5 x 7 x 8 instead.
  refused(
      resealed("case-7", replaced(good, bytesOf(std::array<std::uint64_t, 3>{5, 7, 9}),
                                  bytesOf(std::array<std::uint64_t, 3>{5, 7, 8}))),
      "dataset 'phi' is 8 x 7 x 5");
  // The same bytes sealed again read as before.
  readDistributedCheckpoint<Space>(resealed("case-6", good), halo, {&phi});
  expectPattern(halo, phi, 1);
  removeOnRank0(made);
}

// A write that fails (here the seal's write, as on a full disk): an error on every rank
// naming the file; the previous checkpoint is still there, unchanged, and no temporary
// is left.
TEST(DistributedCheckpoint, AFailedWriteLeavesThePreviousCheckpoint) {
  const std::string path = "checkpoint-full" + suffix();
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  {
    const auto phi = patterned(halo, "phi", 1);
    writeDistributedCheckpoint<Space>(path, halo, {&phi}, {1, 0.5, cells});
  }
  const std::string before = readFile(path);
  {
    const auto phi = patterned(halo, "phi", 2);
    ASSERT_EQ(setenv("KFVM_TEST_FAIL_WRITES", (path + ".tmp").c_str(), 1), 0);
    expectRefused(
        [&] {
          writeDistributedCheckpoint<Space>(path, halo, {&phi}, {2, 1.0, cells});
        },
        {path});
    unsetenv("KFVM_TEST_FAIL_WRITES");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(readFile(path) == before) << "the previous checkpoint was changed";
  auto phi = patterned(halo, "phi", 0);
  const auto info = readDistributedCheckpoint<Space>(path, halo, {&phi});
  EXPECT_EQ(info.step, 1);
  expectPattern(halo, phi, 1);
  removeOnRank0({path});
}

// One rank fails before the others (a field that is not on its block; a bad step):
// every rank throws instead of waiting for it in a collective call, and the previous
// checkpoint is left as it was.
TEST(DistributedCheckpoint, AFailureOnOneRankIsAnErrorOnEveryRank) {
  const std::string path = "checkpoint-one-rank" + suffix();
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  {
    const auto phi = patterned(halo, "phi", 1);
    writeDistributedCheckpoint<Space>(path, halo, {&phi}, {1, 0.5, cells});
  }
  const std::string before = readFile(path);
  const bool last = worldRank() == worldSize() - 1;
  const auto phi = patterned(halo, "phi", 2);
  const CellField<Space> small(Mesh<Space>(CartesianGrid::uniform1D(2, 1)), "phi");
  expectRefused(
      [&] {
        writeDistributedCheckpoint<Space>(path, halo, {last ? &small : &phi},
                                          {2, 1.0, cells});
      },
      {path, last ? "ghosted block" : "another rank"});
  expectRefused(
      [&] {
        writeDistributedCheckpoint<Space>(path, halo, {&phi}, {-1, 1.0, cells});
      },
      {path, "step"});
  expectRefused(
      [&] {
        writeDistributedCheckpoint<Space>(
            path, halo, {&phi}, {2, std::numeric_limits<double>::infinity(), cells});
      },
      {path, "time"});
  expectRefused(
      [&] {
        writeDistributedCheckpoint<Space>("no-such-folder/x.h5", halo, {&phi},
                                          {2, 1.0, cells});
      },
      {"no-such-folder/x.h5"});
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(readFile(path) == before) << "the previous checkpoint was changed";
  removeOnRank0({path});
}

}  // namespace
}  // namespace kfvm::Test
