// Coupled systems on general meshes across 1, 2 and 4 ranks
// (DistributedSystem::setSystem) equal the one-process steps: two species exchanging
// mass on triangles by backward Euler and Crank-Nicolson, and Cahn-Hilliard in (phi, mu)
// on periodic triangles (Newton sweeps). The halo of several values per cell fills every
// variable's ghosts.
#include "../kfvm_TestMeshes.hpp"
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

TEST(DistributedCoupledMesh, TheHaloFillsEveryVariableOfTheGhosts) {
  const MeshTopology topology = crossedTriangles(6, 0).topology();
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD);
  const auto& ids = system.localGlobalIds();
  const Ordinal owned = system.meshParts().part().ownedCells;
  // Value v of cell c: 10 global id + v on its owner, -1 on the ghosts before.
  std::vector<Real> values(3 * ids.size(), Real(-1));
  for (Ordinal c = 0; c < owned; ++c)
    for (int v = 0; v < 3; ++v)
      values[std::size_t(3 * c + v)] = Real(10 * ids[std::size_t(c)] + v);
  Vector<Space> x = copyToDevice<Real, Space>(values, "x");
  MeshHaloExchange<Space> halo(system.meshParts().part(), MPI_COMM_WORLD,
                               GpuAwareMpi::Auto, 3);
  halo.exchange(x);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  int wrong = 0;
  for (std::size_t c = 0; c < ids.size(); ++c)
    for (int v = 0; v < 3; ++v)
      wrong += got(3 * c + std::size_t(v)) != Real(10 * ids[c] + v);
  EXPECT_EQ(wrong, 0) << "rank " << worldRank();
  const Vector<Space> tooShort("short", 2 * ids.size());
  expectRefused([&] { halo.exchange(tooShort); }, {"3 values"});
}

using MeshBuilder = std::function<void(CoupledSystem<Space>&)>;

/// `steps` steps of dt by scheme of the whole problem on this process and across the
/// ranks, from the same random start: the gathered values agree to the solver tolerance.
void checkMeshAgainstOneProcess(const MeshTopology& topology, const MeshBuilder& build,
                                TimeScheme scheme, int steps, Real dt, bool sweeps) {
  const bool inDouble = sizeof(Real) == sizeof(double);
  const Parameters parameters = coupledSolverParameters();
  const Real sweepTolerance(inDouble ? 1e-11 : 1e-5);
  const auto initial = randomStart(std::size_t(topology.numCells()));

  const Mesh<Space> mesh(topology);
  CoupledSystem<Space> whole(mesh, 2);
  build(whole);
  CoupledStepper<Space> alone(whole, makeLinearSolver<Space>("gmres", parameters));
  if (sweeps) alone.setSweeps(30, sweepTolerance);
  std::vector<CellField<Space>> expected{CellField<Space>(mesh, "a"),
                                         CellField<Space>(mesh, "b")};
  for (int v = 0; v < 2; ++v) expected[std::size_t(v)].fromHost(initial[std::size_t(v)]);
  for (int step = 0; step < steps; ++step)
    ASSERT_TRUE(alone.step(expected, dt, scheme).converged) << "one process, " << step;

  DistributedSystem<Space> system(topology, MPI_COMM_WORLD);
  const auto& local = system.localMesh();
  CoupledSystem<Space> part(local, 2);
  build(part);
  system.setSystem(part, makeLinearSolver<Space>("gmres", parameters));
  if (sweeps) system.setSweeps(30, sweepTolerance);
  const auto& ids = system.localGlobalIds();
  std::vector<CellField<Space>> fields{CellField<Space>(local, "a"),
                                       CellField<Space>(local, "b")};
  for (int v = 0; v < 2; ++v) {
    std::vector<double> values(ids.size(), 1e3);  // ghosts are the owners' business
    for (Ordinal c = 0; c < system.meshParts().part().ownedCells; ++c)
      values[std::size_t(c)] = initial[std::size_t(v)][std::size_t(ids[std::size_t(c)])];
    fields[std::size_t(v)].fromHost(values);
  }
  for (int step = 0; step < steps; ++step) {
    const auto report = system.step(fields, dt, scheme);
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
  }
  for (int v = 0; v < 2; ++v) {
    const auto gathered = system.gather(fields[std::size_t(v)]);
    if (worldRank() != 0) continue;
    const auto [difference, largest] =
        compareGathered(gathered, expected[std::size_t(v)].toHost());
    EXPECT_GT(largest, 0.05) << "variable " << v;
    EXPECT_LT(difference, (inDouble ? 1e-9 : 1e-3) * largest)
        << "variable " << v << ", " << worldSize() << " ranks";
  }
}

// du/dt = div(D grad u) - k (u - v), dv/dt = div(0.7 grad v) + k (u - v), D a per-face
// field, u = 1 on the left.
void twoSpeciesOnMesh(CoupledSystem<Space>& system) {
  const Mesh<Space>& mesh = system.mesh();
  FaceField<Space> D(mesh, "D");
  setFromFaceCentres(
      D, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real) { return Real(1) + Real(0.5) * x * y; });
  const Real k = 5;
  system.transient(0, 0).transient(1, 1).diffusion(0, 0, D).diffusion(1, 1, 0.7);
  system.implicitSource(0, 0, -k).implicitSource(0, 1, k);
  system.implicitSource(1, 1, -k).implicitSource(1, 0, k);
  system.boundary(0, "left", BoundaryCondition::dirichlet(1.0));
}

TEST(DistributedCoupledMesh, TwoSpeciesOnTrianglesEqualTheOneProcessSteps) {
  const MeshTopology topology = crossedTriangles(8, 0).topology();  // 256 triangles
  for (const auto scheme : {TimeScheme::BackwardEuler, TimeScheme::CrankNicolson}) {
    SCOPED_TRACE(scheme == TimeScheme::CrankNicolson ? "Crank-Nicolson"
                                                     : "backward Euler");
    checkMeshAgainstOneProcess(topology, twoSpeciesOnMesh, scheme, 3, 0.01, false);
  }
}

// Cahn-Hilliard, periodic in x, zero flux at the bottom and top:
// dphi/dt = div(grad mu), 0 = div(0.01 grad phi) + mu + phi - phi^3.
void cahnHilliardOnMesh(CoupledSystem<Space>& system) {
  system.transient(0, 0)
      .diffusion(0, 1, 1.0)
      .diffusion(1, 0, 0.01)
      .implicitSource(1, 1, 1.0)
      .source(1, 0, Polynomial{0, 1, 0, -1});
}

TEST(DistributedCoupledMesh, CahnHilliardOnPeriodicTrianglesWithSweepsEqualsOneProcess) {
  MeshTopology topology = crossedTriangles(8, 0).topology();
  topology.addPeriodicPair("left", "right");
  checkMeshAgainstOneProcess(topology, cahnHilliardOnMesh, TimeScheme::BackwardEuler, 3,
                             0.001, true);
}

TEST(DistributedCoupledMesh, ConditionsOnTheCutAreErrors) {
  const MeshTopology topology = crossedTriangles(4, 0).topology();
  DistributedSystem<Space> system(topology, MPI_COMM_WORLD);
  expectRefused([&] { system.coupledStepper(); }, {"setSystem() first"});
  CoupledSystem<Space> cut(system.localMesh(), 2);
  cut.transient(0, 0).transient(1, 1);
  cut.boundary(1, MeshPart::cutPatch, BoundaryCondition::dirichlet(0));
  expectRefused([&] { system.setSystem(cut, makeLinearSolver<Space>("gmres", {})); },
                {"where this rank's part ends", "variable 1"});
}

}  // namespace
}  // namespace kfvm::Test
