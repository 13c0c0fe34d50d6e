// Parallel VTK output at 1, 2 and 4 ranks: rank 0 reads the .pvtr and every piece back
// and finds each global cell's value exactly once, at the place its extent says. A
// failed write on one rank is an error on every rank, and leaves the files as they were.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_Error.hpp>
#include <kfvm_ParallelVtk.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The numbers of the DataArray called name in a .vtr file's text.
std::vector<double> dataArray(const std::string& text, const std::string& name) {
  const std::string open = "Name=\"" + name + "\" format=\"ascii\">";
  const auto begin = text.find(open);
  if (begin == std::string::npos) return {};
  const auto end = text.find("</DataArray>", begin);
  std::istringstream numbers(text.substr(begin + open.size(), end - begin - open.size()));
  std::vector<double> values;
  for (double v; numbers >> v;) values.push_back(v);
  return values;
}

TEST(ParallelVtk, PiecesReadBackAsTheWholeGrid) {
  const std::array<int, 3> cells{7, 5, 6};
  const auto grid = CartesianGrid::uniform3D(cells[0], cells[1], cells[2], 0.7, 0.5, 0.6);
  const auto decomposition = Decomposition::balanced(3, cells, worldSize());
  HaloExchange<Space> halo(decomposition, MPI_COMM_WORLD);
  const auto& layout = halo.layout();
  // Owned cells: 1 + global id; ghosts: -1 (they must not be written).
  std::vector<double> values(std::size_t(layout.size()), -1);
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i)
        values[std::size_t(layout.index(i, j, k))] =
            1.0 + double(decomposition.globalCell(halo.rank(), {i, j, k}));
  Mesh<Space> local(CartesianGrid::uniform3D(layout.extent[0], layout.extent[1],
                                             layout.extent[2], 1, 1, 1));
  CellField<Space> phi(local, "phi");
  phi.fromHost(values);
  const std::string folder = "parallel-vtk-" + std::to_string(worldSize());
  if (worldRank() == 0) std::filesystem::create_directories(folder);
  MPI_Barrier(MPI_COMM_WORLD);
  writeParallelVtk<Space>(folder + "/phi", grid, halo, {&phi}, 0.25);
  if (worldRank() != 0) return;
  const std::string collection = readText(folder + "/phi.pvtr");
  EXPECT_NE(collection.find("WholeExtent=\"0 7 0 5 0 6\""), std::string::npos);
  const std::regex piece(
      "<Piece Extent=\"(\\d+) (\\d+) (\\d+) (\\d+) (\\d+) (\\d+)\" "
      "Source=\"([^\"]+)\"/>");
  std::vector<int> seen(std::size_t(cells[0] * cells[1] * cells[2]), 0);
  int pieces = 0;
  for (auto it = std::sregex_iterator(collection.begin(), collection.end(), piece);
       it != std::sregex_iterator(); ++it, ++pieces) {
    int e[6];
    for (int a = 0; a < 6; ++a) e[a] = std::stoi((*it)[a + 1]);
    const std::string text = readText(folder + "/" + (*it)[7].str());
    EXPECT_NE(text.find("Extent=\"" + std::to_string(e[0])), std::string::npos);
    const auto read = dataArray(text, "phi");
    ASSERT_EQ(read.size(), std::size_t(e[1] - e[0]) * (e[3] - e[2]) * (e[5] - e[4]));
    std::size_t m = 0;
    for (int k = e[4]; k < e[5]; ++k)
      for (int j = e[2]; j < e[3]; ++j)
        for (int i = e[0]; i < e[1]; ++i, ++m) {
          const int id = i + cells[0] * (j + cells[1] * k);
          EXPECT_EQ(read[m], 1.0 + id);
          ++seen[std::size_t(id)];
        }
    EXPECT_EQ(dataArray(text, "x").size(), std::size_t(e[1] - e[0] + 1));
  }
  EXPECT_EQ(pieces, worldSize());
  for (std::size_t id = 0; id < seen.size(); ++id)
    EXPECT_EQ(seen[id], 1) << "cell " << id;
}

TEST(ParallelVtk, AnUnwritablePathIsAnErrorOnEveryRank) {
  const auto decomposition = Decomposition::balanced(2, {6, 4, 1}, worldSize());
  HaloExchange<Space> halo(decomposition, MPI_COMM_WORLD);
  Mesh<Space> local(
      CartesianGrid::uniform2D(halo.layout().extent[0], halo.layout().extent[1], 1, 1));
  CellField<Space> phi(local, "phi");
  EXPECT_THROW(
      writeParallelVtk<Space>("no-such-folder/x/phi",
                              CartesianGrid::uniform2D(6, 4, 1, 1), halo, {&phi}, 0),
      Error);
}

// The last rank's piece cannot be written (a full disk, through the test hook): every
// rank throws, the failing rank naming its piece, and no file of the output changes
// (no piece of the new time next to pieces of the old one), nor is a temporary left.
TEST(ParallelVtk, AFailedPieceIsAnErrorOnEveryRankAndChangesNothing) {
  const std::array<int, 3> cells{6, 4, 3};
  const auto grid = CartesianGrid::uniform3D(cells[0], cells[1], cells[2], 1, 1, 1);
  HaloExchange<Space> halo(Decomposition::balanced(3, cells, worldSize()),
                           MPI_COMM_WORLD);
  Mesh<Space> local(CartesianGrid::uniform3D(halo.layout().extent[0],
                                             halo.layout().extent[1],
                                             halo.layout().extent[2], 1, 1, 1));
  const std::string folder = "parallel-vtk-failed-" + std::to_string(worldSize());
  if (worldRank() == 0) std::filesystem::create_directories(folder);
  MPI_Barrier(MPI_COMM_WORLD);
  CellField<Space> phi(local, "phi");
  phi.fromHost(std::vector<double>(std::size_t(halo.layout().size()), 1.0));
  writeParallelVtk<Space>(folder + "/phi", grid, halo, {&phi}, 0.25);
  const auto contents = [&] {
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      files[entry.path().filename().string()] = readText(entry.path().string());
    return files;
  };
  MPI_Barrier(MPI_COMM_WORLD);
  const auto before = contents();
  EXPECT_EQ(before.size(), std::size_t(worldSize() + 1));
  MPI_Barrier(MPI_COMM_WORLD);

  phi.fromHost(std::vector<double>(std::size_t(halo.layout().size()), 2.0));
  const std::string failing = "phi_" + std::to_string(worldSize() - 1) + ".vtr";
  ASSERT_EQ(setenv("KFVM_TEST_FAIL_WRITES", failing.c_str(), 1), 0);
  expectRefused(
      [&] { writeParallelVtk<Space>(folder + "/phi", grid, halo, {&phi}, 0.5); },
      {failing, worldRank() == worldSize() - 1 ? "No space" : "another rank"});
  unsetenv("KFVM_TEST_FAIL_WRITES");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(contents() == before)
      << "a file of the output changed, or a temporary is left";
  MPI_Barrier(MPI_COMM_WORLD);
  // And the next write goes through.
  writeParallelVtk<Space>(folder + "/phi", grid, halo, {&phi}, 0.5);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_NE(contents().at(failing), before.at(failing));
}

}  // namespace
}  // namespace kfvm::Test
