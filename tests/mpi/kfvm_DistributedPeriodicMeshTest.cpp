// Periodic general meshes across 1, 2 and 4 ranks: a part keeps the joined faces between
// its cells (MeshTopology::part() pairs them again) and cuts the others, so every rank
// names the same patches, ghosts across a joined face are found, and the solves equal
// the one-process ones: corrected diffusion on distorted tetrahedra periodic along
// every axis (METIS and recursive bisection), Van Leer convection around triangles
// periodic in x.
#include "../kfvm_TestMeshes.hpp"
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_MeshGenerators.hpp>
#include <kfvm_MeshPartition.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

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
  const Mesh<Space> whole(topology);
  ASSERT_EQ(whole.numBoundaryFaces(), 0);
  CellField<Space> D(whole, "D"), s(whole, "s"), reference(whole, "phi");
  fillPeriodicCoefficients(whole, D, s);
  Equation<Space> alone(whole);
  setPeriodicSteady(alone, D, s);
  ImplicitStepper<Space> stepper(
      alone, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-13)}}));
  stepper.setSweeps(100, Real(solverTolerance(1e-11)));
  ASSERT_TRUE(stepper.solveSteady(reference).converged);
  const auto expected = reference.toHost();
  for (const PartitionMethod method : partitionMethods()) {
    DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 2, method);
    const auto& mesh = system.localMesh();
    CellField<Space> localD(mesh, "D"), localS(mesh, "s"), phi(mesh, "phi");
    fillPeriodicCoefficients(mesh, localD, localS);
    Equation<Space> equation(mesh);
    setPeriodicSteady(equation, localD, localS);
    system.setEquation(equation);
    system.setSolver("cg", solverTolerance(1e-13), 10000);
    system.setSweeps(100, solverTolerance(1e-11));
    const auto report = system.solveSteady(phi);
    EXPECT_TRUE(report.converged) << report.reason;
    const auto gathered = system.gather(phi);
    if (worldRank() == 0) {
      const auto [difference, largest] = compareGathered(gathered, expected);
      std::printf(
          "  periodic tetrahedra on %d ranks (%s): max difference from one "
          "process %.2e\n",
          worldSize(), method == PartitionMethod::Metis ? "METIS" : "RCB", difference);
      EXPECT_GT(largest, 0.02);  // measured: 0.032
      EXPECT_LT(difference, tolerance(1e-9)) << worldSize() << " ranks";
    }
  }
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
void setPeriodicTransient(Equation<Space>& equation) {
  equation.transient()
      .diffusion(Real(0.01))
      .convection(1.0, 0.25, 0, ConvectionScheme::VanLeer)
      .boundary("bottom", BoundaryCondition::dirichlet(0));
}

TEST(DistributedPeriodicMesh, VanLeerAroundPeriodicTrianglesEqualsOneProcess) {
  MeshTopology topology = crossedTriangles(8, 0).topology();  // 256 triangles
  topology.addPeriodicPair("left", "right");
  const Mesh<Space> whole(topology);
  CellField<Space> reference(whole, "phi");
  setBox(reference, whole);
  Equation<Space> alone(whole);
  setPeriodicTransient(alone);
  ImplicitStepper<Space> stepper(
      alone,
      makeLinearSolver<Space>("bicgstab", {{"tolerance", solverToleranceText(1e-13)}}));
  stepper.setSweeps(50, Real(solverTolerance(1e-11)));
  // 8 steps of 0.05: the box crosses the joined side.
  for (int step = 0; step < 8; ++step)
    ASSERT_TRUE(stepper.step(reference, Real(0.05)).converged);
  const auto expected = reference.toHost();
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD, 2);
  CellField<Space> phi(system.localMesh(), "phi");
  setBox(phi, system.localMesh());
  Equation<Space> equation(system.localMesh());
  setPeriodicTransient(equation);
  system.setEquation(equation);
  system.setSolver("bicgstab", solverTolerance(1e-13), 10000);
  system.setSweeps(50, solverTolerance(1e-11));
  for (int step = 0; step < 8; ++step)
    ASSERT_TRUE(system.step(phi, Real(0.05)).converged);
  const auto gathered = system.gather(phi);
  if (worldRank() == 0) {
    const auto [difference, largest] = compareGathered(gathered, expected);
    std::printf(
        "  Van Leer around periodic triangles on %d ranks: max difference from "
        "one process %.2e\n",
        worldSize(), difference);
    EXPECT_GT(largest, 0.3);
    EXPECT_LT(difference, tolerance(1e-9)) << worldSize() << " ranks";
  }
}

}  // namespace
}  // namespace kfvm::Test
