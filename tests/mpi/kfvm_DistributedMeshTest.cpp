// General meshes across 1, 2 and 4 ranks: partitions (METIS and recursive bisection),
// mesh parts with ghost layers, the halo exchange over general ghost lists, and steady
// and transient solves that equal the single-process ones: distorted tetrahedra with a
// variable coefficient and the non-orthogonal correction, triangles with Van Leer
// convection. Periodic meshes too: a part keeps the joined faces between its cells
// (MeshTopology::part() pairs them again) and cuts the others, so every rank names the
// same patches, ghosts across a joined face are found, and the solves equal the
// one-process ones (tetrahedra periodic along every axis, triangles periodic in x).
#include "../kfvm_TestMeshes.hpp"
#include "../kfvm_TestSpace.hpp"
#include "kfvm_AgainstOneProcess.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_MeshGenerators.hpp>
#include <kfvm_MeshPartition.hpp>
#include <kfvm_ParallelVtk.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

MeshTopology distortedTetrahedra(int n) {
  return cutCubeMesh(n, CubeCut::Tetrahedra,
                     [](const Point& x) { return distorted(x, 0.04); });
}

/// c on topology's parts with two ghost layers, by every partition method where asked.
void checkMeshAgainstOneProcess(const MeshTopology& topology, EquationCase c,
                                bool everyMethod) {
  c.tolerance = tolerance(1e-9);
  const Mesh<Space> whole(topology);
  if (!everyMethod) return checkAgainstOneProcess(whole, onParts(topology, 2), c);
  const std::string name = c.name;
  for (const PartitionMethod method : partitionMethods()) {
    c.name = name + (method == PartitionMethod::Metis ? " (METIS)" : " (RCB)");
    checkAgainstOneProcess(whole, onParts(topology, 2, method), c);
  }
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
      system.exchangeGhosts(field);
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
  EquationCase c{"tetrahedra", [](Equation<Space>& equation, const auto&) {
                   CellField<Space> D(equation.mesh(), "D"), s(equation.mesh(), "s");
                   fillCoefficients(equation.mesh(), D, s);
                   setSteady(equation, D, s);
                 }};
  c.solver = "cg";
  c.maxSweeps = 100;
  checkMeshAgainstOneProcess(distortedTetrahedra(4), c, true);
}

/// dphi/dt + div(u phi) = div(0.01 grad phi), Van Leer, a box of phi = 1 entering.
void setTransient(Equation<Space>& equation, const std::function<bool(Patch)>&) {
  equation.transient()
      .diffusion(Real(0.01))
      .convection(1.0, 0.5, 0, ConvectionScheme::VanLeer)
      .boundary("left", BoundaryCondition::dirichlet(1))
      .boundary("bottom", BoundaryCondition::dirichlet(0));
}

TEST(DistributedMesh, VanLeerOnTrianglesEqualsOneProcess) {
  EquationCase c{"Van Leer", setTransient};
  c.solver = "bicgstab";
  c.steps = 5;
  c.dt = Real(0.05);
  c.atLeast = 0.5;
  checkMeshAgainstOneProcess(crossedTriangles(8, 0).topology(), c, false);  // 256
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

/// Distorted tetrahedra (6 a cube, n^3 cubes) periodic along every axis.
MeshTopology periodicTetrahedra(int n) {
  auto topology = cutCubes(n, false, 0.04);
  topology.addPeriodicPair("left", "right");
  topology.addPeriodicPair("bottom", "top");
  topology.addPeriodicPair("back", "front");
  return topology;
}

/// D = 1 + 0.5 sin(2 pi x) cos(2 pi y) and s, periodic, at the cell centres (outside a
/// test body: nvcc refuses a device lambda in one).
void fillPeriodicCoefficients(const Mesh<Space>& mesh, CellField<Space>& D,
                              CellField<Space>& s) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) {
        return Real(1 + 0.5 * Compat::sin(2 * pi * x) * Compat::cos(2 * pi * y));
      });
  setFromCellCentres(
      s, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(Compat::cos(2 * pi * x) + 0.5 * Compat::sin(2 * pi * (y + z)));
      });
}

/// -div(D grad phi) + phi = s, corrected (least-squares gradients): no boundary.
void setPeriodicSteady(Equation<Space>& equation, const CellField<Space>& D,
                       const CellField<Space>& s) {
  equation.diffusion(D).implicitSource(Real(-1)).source(s).diffusionCorrection(
      DiffusionCorrection::OverRelaxed, CellGradient::LeastSquares);
}

TEST(DistributedPeriodicMesh, PartsKeepTheirJoinedFacesAndNameTheSamePatches) {
  const MeshTopology topology = periodicTetrahedra(4);
  const auto connectivity = topology.connect();
  const Mesh<Space> whole(topology);
  for (const PartitionMethod method : partitionMethods()) {
    const auto owners = partitionCells(topology, connectivity, worldSize(), method);
    const auto part = meshPart(topology, connectivity, owners, worldRank(), 2);
    const auto local = part.topology.connect();
    // The patches of the whole mesh (none: every side is joined), then the cut.
    std::vector<std::string> expected = whole.patchNames();
    expected.push_back(MeshPart::cutPatch);
    EXPECT_EQ(local.patchNames, expected);
    // Every joined face of the whole between two kept cells is joined in the part.
    std::vector<char> kept(std::size_t(topology.numCells()), 0);
    for (const long long c : part.globalCells) kept[std::size_t(c)] = 1;
    std::size_t joinedInWhole = 0, joinedInPart = 0;
    for (std::size_t f = 0; f < connectivity.faceCells.size(); ++f) {
      const auto& cells = connectivity.faceCells[f];
      const auto& shift = connectivity.faceShifts[f];
      if (cells[1] >= 0 && kept[std::size_t(cells[0])] && kept[std::size_t(cells[1])] &&
          (shift[0] != 0 || shift[1] != 0 || shift[2] != 0))
        ++joinedInWhole;
    }
    for (std::size_t f = 0; f < local.faceCells.size(); ++f) {
      const auto& shift = local.faceShifts.empty() ? Point{0, 0, 0} : local.faceShifts[f];
      if (shift[0] != 0 || shift[1] != 0 || shift[2] != 0) {
        ++joinedInPart;
        // The shift moves the second cell by a whole period along one axis.
        double length = 0;
        for (int a = 0; a < 3; ++a) length += std::abs(shift[std::size_t(a)]);
        EXPECT_NEAR(length, 1.0, 1e-12);
      }
    }
    EXPECT_EQ(joinedInPart, joinedInWhole) << "rank " << worldRank();
    EXPECT_GT(joinedInPart, 0u) << "rank " << worldRank();
  }
}

TEST(DistributedPeriodicMesh, CorrectedDiffusionOnTetrahedraEqualsOneProcess) {
  const MeshTopology topology = periodicTetrahedra(4);
  ASSERT_EQ(Mesh<Space>(topology).numBoundaryFaces(), 0);
  EquationCase c{"periodic tetrahedra", [](Equation<Space>& equation, const auto&) {
                   CellField<Space> D(equation.mesh(), "D"), s(equation.mesh(), "s");
                   fillPeriodicCoefficients(equation.mesh(), D, s);
                   setPeriodicSteady(equation, D, s);
                 }};
  c.solver = "cg";
  c.maxSweeps = 100;
  c.atLeast = 0.02;  // measured: 0.032
  checkMeshAgainstOneProcess(topology, c, true);
}

/// A box of phi = 1 at 0.2 < x < 0.5, 0.3 < y < 0.6 (outside a test body).
void setBox(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) {
        return x > Real(0.2) && x < Real(0.5) && y > Real(0.3) && y < Real(0.6) ? Real(1)
                                                                                : Real(0);
      });
}

/// dphi/dt + div(u phi) = div(0.01 grad phi), Van Leer, u = (1, 0.25), around x;
/// phi = 0 at the bottom, the top an outflow.
void setPeriodicTransient(Equation<Space>& equation, const std::function<bool(Patch)>&) {
  equation.transient()
      .diffusion(Real(0.01))
      .convection(1.0, 0.25, 0, ConvectionScheme::VanLeer)
      .boundary("bottom", BoundaryCondition::dirichlet(0));
}

TEST(DistributedPeriodicMesh, VanLeerAroundPeriodicTrianglesEqualsOneProcess) {
  MeshTopology topology = crossedTriangles(8, 0).topology();  // 256 triangles
  topology.addPeriodicPair("left", "right");
  EquationCase c{"Van Leer around periodic triangles", setPeriodicTransient, setBox};
  c.solver = "bicgstab";
  c.steps = 8;  // of 0.05: the box crosses the joined side
  c.dt = Real(0.05);
  c.atLeast = 0.3;
  checkMeshAgainstOneProcess(topology, c, false);
}

}  // namespace
}  // namespace kfvm::Test
