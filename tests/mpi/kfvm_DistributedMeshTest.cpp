// General meshes across 1, 2 and 4 ranks: partitions (METIS and recursive bisection),
// mesh parts with ghost layers, the halo exchange over general ghost lists, and steady
// and transient solves that equal the single-process ones: distorted tetrahedra with a
// variable coefficient and the non-orthogonal correction, triangles with Van Leer
// convection.
#include "../kfvm_TestMeshes.hpp"
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_MeshGenerators.hpp>
#include <kfvm_ParallelVtk.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

MeshTopology distortedTetrahedra(int n) {
  return cutCubeMesh(n, CubeCut::Tetrahedra,
                     [](const Point& x) { return distorted(x, 0.04); });
}

TEST(DistributedMesh, PartitionsCoverEveryCellInBalancedParts) {
  const MeshTopology topology = distortedTetrahedra(4);  // 384 cells
  const auto connectivity = topology.connect();
  for (const PartitionMethod method : partitionMethods()) {
    for (int parts : {1, 2, 3, 4, 7}) {
      const auto owners = partitionCells(topology, connectivity, parts, method);
      EXPECT_EQ(owners, partitionCells(topology, connectivity, parts, method));
      std::vector<int> sizes(std::size_t(parts), 0);
      for (const int p : owners) {
        ASSERT_TRUE(p >= 0 && p < parts);
        ++sizes[std::size_t(p)];
      }
      const int largest = *std::max_element(sizes.begin(), sizes.end());
      EXPECT_LE(largest, int(std::ceil(1.05 * 384.0 / parts)) + 1)
          << parts << " parts by "
          << (method == PartitionMethod::Metis ? "METIS" : "RCB");
    }
  }
  expectRefused([&] { partitionCells(topology, connectivity, 385); },
                {"384 cells cannot make 385 parts"});
}

TEST(DistributedMesh, PartsKeepThePatchesAndTheHaloFillsTheGhosts) {
  const MeshTopology topology = distortedTetrahedra(3);
  const auto connectivity = topology.connect();
  for (const PartitionMethod method : partitionMethods()) {
    for (int layers : {1, 2}) {
      DistributedSystem<Space> system(topology, MPI_COMM_WORLD, layers, method);
      const auto& mesh = system.localMesh();
      std::vector<std::string> expected = connectivity.patchNames;
      expected.push_back(MeshPart::cutPatch);
      EXPECT_EQ(mesh.patchNames(), expected);
      // Every cell owned once over the ranks.
      long long owned = system.meshParts().part().ownedCells;
      MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(owned, topology.numCells());
      if (worldSize() == 1)
        EXPECT_EQ(mesh.patchSize(mesh.patchIndex(MeshPart::cutPatch)), 0);
      // Owned cells carry their global ids; after the exchange the ghosts do too.
      const auto& ids = system.localGlobalIds();
      std::vector<double> values(ids.size(), -1);
      for (Ordinal c = 0; c < system.meshParts().part().ownedCells; ++c)
        values[std::size_t(c)] = double(ids[std::size_t(c)]);
      CellField<Space> field(mesh, "ids");
      field.fromHost(values);
      system.meshParts().halo().exchange(field.values());
      const auto exchanged = field.toHost();
      for (std::size_t c = 0; c < ids.size(); ++c)
        ASSERT_EQ(exchanged[c], Real(ids[c]))
            << "local cell " << c << " of rank " << worldRank();
      const auto gathered = system.gather(field);
      if (worldRank() == 0) {
        ASSERT_EQ(gathered.size(), std::size_t(topology.numCells()));
        for (std::size_t c = 0; c < gathered.size(); ++c) ASSERT_EQ(gathered[c], Real(c));
      }
    }
  }
}

/// D(x) = 1 + x + y^2 / 2 and the source on cells of a mesh.
void fillCoefficients(const Mesh<Space>& mesh, CellField<Space>& D, CellField<Space>& s) {
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  std::vector<double> d, source;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double x = centres(c, 0), y = centres(c, 1), z = centres(c, 2);
    d.push_back(1 + x + 0.5 * y * y);
    source.push_back(std::sin(3 * x) * std::cos(2 * y) + z);
  }
  D.fromHost(d);
  s.fromHost(source);
}

/// Steady div(D grad phi) + s = 0, phi = 0 on the left, 1 on the right, zero flux
/// elsewhere, with the non-orthogonal correction.
void setSteady(Equation<Space>& equation, const CellField<Space>& D,
               const CellField<Space>& s) {
  equation.diffusion(D).source(s).diffusionCorrection(DiffusionCorrection::OverRelaxed,
                                                      CellGradient::LeastSquares);
  equation.boundary("left", BoundaryCondition::dirichlet(0))
      .boundary("right", BoundaryCondition::dirichlet(1));
}

TEST(DistributedMesh, SteadyCorrectedDiffusionOnTetrahedraEqualsOneProcess) {
  const MeshTopology topology = distortedTetrahedra(4);
  // The whole mesh on this process alone.
  const Mesh<Space> whole(topology);
  CellField<Space> D(whole, "D"), s(whole, "s"), reference(whole, "phi");
  fillCoefficients(whole, D, s);
  Equation<Space> alone(whole);
  setSteady(alone, D, s);
  ImplicitStepper<Space> stepper(
      alone, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-13)}}));
  stepper.setSweeps(100, Real(solverTolerance(1e-11)));
  ASSERT_TRUE(stepper.solveSteady(reference).converged);
  const auto expected = reference.toHost();
  for (const PartitionMethod method : partitionMethods()) {
    DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 2, method);
    const auto& mesh = system.localMesh();
    CellField<Space> localD(mesh, "D"), localS(mesh, "s"), phi(mesh, "phi");
    fillCoefficients(mesh, localD, localS);
    Equation<Space> equation(mesh);
    setSteady(equation, localD, localS);
    system.setEquation(equation);
    system.setSolver("cg", solverTolerance(1e-13), 10000);
    system.setSweeps(100, solverTolerance(1e-11));
    const auto report = system.solveSteady(phi);
    EXPECT_TRUE(report.converged) << report.reason;
    const auto gathered = system.gather(phi);
    if (worldRank() == 0) {
      const double difference = compareGathered(gathered, expected).difference;
      std::printf("  tetrahedra on %d ranks (%s): max difference from one process %.2e\n",
                  worldSize(), method == PartitionMethod::Metis ? "METIS" : "RCB",
                  difference);
      EXPECT_LT(difference, tolerance(1e-9)) << worldSize() << " ranks";
    }
  }
}

/// dphi/dt + div(u phi) = div(0.01 grad phi), Van Leer, a box of phi = 1 entering.
void setTransient(Equation<Space>& equation) {
  equation.transient()
      .diffusion(Real(0.01))
      .convection(1.0, 0.5, 0, ConvectionScheme::VanLeer)
      .boundary("left", BoundaryCondition::dirichlet(1))
      .boundary("bottom", BoundaryCondition::dirichlet(0));
}

TEST(DistributedMesh, VanLeerOnTrianglesEqualsOneProcess) {
  const MeshTopology topology = crossedTriangles(8, 0).topology();  // 256 triangles
  const Mesh<Space> whole(topology);
  CellField<Space> reference(whole, "phi");
  Equation<Space> alone(whole);
  setTransient(alone);
  ImplicitStepper<Space> stepper(
      alone,
      makeLinearSolver<Space>("bicgstab", {{"tolerance", solverToleranceText(1e-13)}}));
  stepper.setSweeps(50, Real(solverTolerance(1e-11)));
  for (int step = 0; step < 5; ++step)
    ASSERT_TRUE(stepper.step(reference, Real(0.05)).converged);
  const auto expected = reference.toHost();
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 2);
  CellField<Space> phi(system.localMesh(), "phi");
  Equation<Space> equation(system.localMesh());
  setTransient(equation);
  system.setEquation(equation);
  system.setSolver("bicgstab", solverTolerance(1e-13), 10000);
  system.setSweeps(50, solverTolerance(1e-11));
  for (int step = 0; step < 5; ++step)
    ASSERT_TRUE(system.step(phi, Real(0.05)).converged);
  const auto gathered = system.gather(phi);
  if (worldRank() == 0) {
    const auto [difference, largest] = compareGathered(gathered, expected);
    std::printf("  Van Leer on %d ranks: max difference from one process %.2e\n",
                worldSize(), difference);
    EXPECT_GT(largest, 0.5);
    EXPECT_LT(difference, tolerance(1e-9)) << worldSize() << " ranks";
  }
}

TEST(DistributedMesh, ParallelVtuPiecesHoldEveryOwnedCellOnce) {
  const MeshTopology topology = crossedTriangles(4, 0).topology();  // 64 triangles
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 2);
  const auto& ids = system.localGlobalIds();
  std::vector<double> values(ids.size(), -1);  // ghosts -1: never written
  for (Ordinal c = 0; c < system.meshParts().part().ownedCells; ++c)
    values[std::size_t(c)] = 1.0 + double(ids[std::size_t(c)]);
  CellField<Space> phi(system.localMesh(), "phi");
  phi.fromHost(values);
  const std::string folder = "parallel-vtu-" + std::to_string(worldSize());
  if (worldRank() == 0) std::filesystem::create_directories(folder);
  MPI_Barrier(MPI_COMM_WORLD);
  writeParallelVtu<Space>(folder + "/phi", system.localMesh(), system.meshParts().halo(),
                          {&phi}, 0.5);
  if (worldRank() != 0) return;
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string collection = read(folder + "/phi.pvtu");
  EXPECT_NE(collection.find("<PDataArray type=\"Float64\" Name=\"phi\"/>"),
            std::string::npos);
  const std::regex piece("<Piece Source=\"([^\"]+)\"/>");
  std::vector<int> seen(64, 0);
  int pieces = 0;
  for (auto it = std::sregex_iterator(collection.begin(), collection.end(), piece);
       it != std::sregex_iterator(); ++it, ++pieces) {
    const std::string text = read(folder + "/" + (*it)[1].str());
    const std::string open = "Name=\"phi\" format=\"ascii\">";
    const auto begin = text.find(open);
    ASSERT_NE(begin, std::string::npos);
    std::istringstream numbers(
        text.substr(begin + open.size(), text.find("</DataArray>", begin) - begin));
    int cells = 0;
    for (double v; numbers >> v; ++cells) {
      ASSERT_TRUE(v >= 1 && v <= 64) << v;
      ++seen[std::size_t(v - 1)];
    }
    EXPECT_NE(text.find("NumberOfCells=\"" + std::to_string(cells) + "\""),
              std::string::npos);
  }
  EXPECT_EQ(pieces, worldSize());
  for (int c = 0; c < 64; ++c) EXPECT_EQ(seen[std::size_t(c)], 1) << "cell " << c;
}

TEST(DistributedMesh, TermsThatNeedTwoLayersAndConditionsOnTheCutAreRefused) {
  const MeshTopology topology = distortedTetrahedra(2);
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 1);
  Equation<Space> corrected(system.localMesh());
  corrected.diffusion(Real(1)).diffusionCorrection(DiffusionCorrection::OverRelaxed,
                                                   CellGradient::LeastSquares);
  expectRefused([&] { system.setEquation(corrected); }, {"2 ghost layers, not 1"});
  Equation<Space> cut(system.localMesh());
  cut.diffusion(Real(1)).boundary(MeshPart::cutPatch, BoundaryCondition::dirichlet(0));
  expectRefused([&] { system.setEquation(cut); },
                {"patch 'kfvm:ranks'", "takes no boundary condition"});
  expectRefused([&] { DistributedSystem<Space>(topology, MPI_COMM_WORLD, 3); },
                {"ghost layers must be 1 or 2, got 3"});
}

}  // namespace
}  // namespace kfvm::Test
