// Coupled systems across 1, 2 and 4 ranks equal the single-process steps, on a grid's
// blocks and on a general mesh's parts (one DistributedSystem, two partitions): two
// species exchanging mass (linear) by backward Euler and Crank-Nicolson, with a
// Dirichlet side and a per-face diffusion field, and Cahn-Hilliard in (phi, mu) (a
// polynomial source: Newton sweeps), on grids and on (periodic) triangles. Every rank
// also solves the whole problem alone, for reference. The halo of several values per
// cell fills every variable's ghosts.
#include "../kfvm_TestMeshes.hpp"
#include "../kfvm_TestSpace.hpp"
#include "kfvm_AgainstOneProcess.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Fills a coupled system on mesh; isPhysical says which patches take conditions.
using Builder =
    std::function<void(CoupledSystem<Space>&, const std::function<bool(Patch)>&)>;

/// `steps` steps of dt by scheme, of the whole problem (on mesh) on this process and
/// across the ranks, from the same random start: every local cell's values, owned and
/// ghost, agree with the one-process values of its global cell to the solver tolerance.
void checkAgainstOneProcess(const Mesh<Space>& mesh, const MakeDistributed& distributed,
                            const Builder& build, TimeScheme scheme, int steps, Real dt,
                            bool sweeps) {
  const bool inDouble = sizeof(Real) == sizeof(double);
  const Parameters parameters = coupledSolverParameters();
  const Real sweepTolerance(inDouble ? 1e-11 : 1e-5);
  const auto initial = randomStart(std::size_t(mesh.numCells()));

  CoupledSystem<Space> whole(mesh, 2);
  build(whole, [](Patch) { return true; });
  CoupledStepper<Space> alone(whole, makeLinearSolver<Space>("gmres", parameters));
  if (sweeps) alone.setSweeps(30, sweepTolerance);
  std::vector<CellField<Space>> expected{CellField<Space>(mesh, "a"),
                                         CellField<Space>(mesh, "b")};
  for (int v = 0; v < 2; ++v) expected[v].fromHost(initial[v]);
  for (int step = 0; step < steps; ++step)
    ASSERT_TRUE(alone.step(expected, dt, scheme).converged) << "one process, " << step;

  const auto system = distributed();
  const auto& local = system->localMesh();
  CoupledSystem<Space> part(local, 2);
  build(part, [&](Patch p) { return system->isPhysical(p); });
  system->setSystem(part, makeLinearSolver<Space>("gmres", parameters));
  if (sweeps) system->setSweeps(30, sweepTolerance);
  const auto& ids = system->localGlobalIds();
  std::vector<CellField<Space>> fields{CellField<Space>(local, "a"),
                                       CellField<Space>(local, "b")};
  for (int v = 0; v < 2; ++v) {
    std::vector<double> values(ids.size());
    for (std::size_t c = 0; c < ids.size(); ++c)
      values[c] = system->partition().isOwned(Ordinal(c))
                      ? initial[std::size_t(v)][std::size_t(ids[c])]
                      : 1e3;  // ghosts are the owners' business
    fields[v].fromHost(values);
  }
  for (int step = 0; step < steps; ++step) {
    const auto report = system->step(fields, dt, scheme);
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
  }
  for (int v = 0; v < 2; ++v) {
    const auto want = expected[v].toHost();
    const auto got = fields[v].toHost();
    double worst = 0, scale = 0;
    for (std::size_t c = 0; c < ids.size(); ++c) {
      const double w = double(want[std::size_t(ids[c])]);
      worst = std::max(worst, std::abs(double(got[c]) - w));
      scale = std::max(scale, std::abs(w));
    }
    EXPECT_LT(worst, (inDouble ? 1e-9 : 1e-3) * scale)
        << "variable " << v << ", rank " << worldRank();
    system->maxOverRanks()(&scale, 1);  // the answer is not all but zero
    EXPECT_GT(scale, 0.05) << "variable " << v;
  }
}

// du/dt = div(D grad u) - k (u - v), dv/dt = div(D grad v) + k (u - v), D a per-face
// field for u, u = 1 on the physical left side, zero flux elsewhere.
void twoSpecies(CoupledSystem<Space>& system,
                const std::function<bool(Patch)>& physical) {
  const Mesh<Space>& mesh = system.mesh();
  FaceField<Space> D(mesh, "D");
  setFromFaceCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(1) + Real(0.5) * x * y + Real(0.1) * z;
      });
  const Real k = 5;
  system.transient(0, 0).transient(1, 1).diffusion(0, 0, D).diffusion(1, 1, 0.7);
  system.implicitSource(0, 0, -k).implicitSource(0, 1, k);
  system.implicitSource(1, 1, -k).implicitSource(1, 0, k);
  if (physical(Patch::Left))
    system.boundary(0, Patch::Left, BoundaryCondition::dirichlet(1.0));
}

TEST(DistributedCoupled, TwoSpeciesStepsEqualTheOneProcessSteps) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  for (const auto scheme : {TimeScheme::BackwardEuler, TimeScheme::CrankNicolson}) {
    SCOPED_TRACE(scheme == TimeScheme::CrankNicolson ? "Crank-Nicolson"
                                                     : "backward Euler");
    checkAgainstOneProcess(
        Mesh<Space>(grid),
        onBlocks(grid, Decomposition::balanced(3, {12, 10, 8}, worldSize())), twoSpecies,
        scheme, 3, 0.01, false);
    checkAgainstOneProcess(
        Mesh<Space>(grid),
        onBlocks(grid, Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(),
                                                      {1, 1, worldSize()})),
        twoSpecies, scheme, 3, 0.01, false);
  }
}

// Cahn-Hilliard, zero flux: dphi/dt = div(grad mu), 0 = div(grad phi) + mu + phi - phi^3.
void cahnHilliard(CoupledSystem<Space>& system, const std::function<bool(Patch)>&) {
  system.transient(0, 0)
      .diffusion(0, 1, 1.0)
      .diffusion(1, 0, 1.0)
      .implicitSource(1, 1, 1.0)
      .source(1, 0, Polynomial{0, 1, 0, -1});
}

TEST(DistributedCoupled, CahnHilliardStepsWithSweepsEqualTheOneProcessSteps) {
  const auto grid = CartesianGrid::uniform2D(20, 16, 10, 8);
  checkAgainstOneProcess(
      Mesh<Space>(grid),
      onBlocks(grid, Decomposition::balanced(2, {20, 16, 1}, worldSize())), cahnHilliard,
      TimeScheme::BackwardEuler, 3, 0.1, true);
}

TEST(DistributedCoupled, ConditionsOnInnerSidesAreErrorsAndAnyCountOfVariablesSteps) {
  const auto grid = CartesianGrid::uniform2D(12, 10, 1.2, 1.0);
  const auto decomposition =
      Decomposition::withProcessGrid(2, {12, 10, 1}, worldSize(), {worldSize(), 1, 1});
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  expectRefused([&] { system.coupledStepper(); }, {"setSystem() first"});
  // Three variables after two: the block exchange follows the system. Transient terms
  // alone keep every value, ghosts included (filled from their owners).
  CoupledSystem<Space> three(system.localMesh(), 3);
  three.transient(0, 0).transient(1, 1).transient(2, 2);
  system.setSystem(three, makeLinearSolver<Space>("gmres", {}));
  expectRefused([&] { system.stepper(); }, {"setEquation() first"});
  const auto ids = system.localGlobalIds();
  std::vector<CellField<Space>> fields;
  for (int v = 0; v < 3; ++v) {
    std::vector<double> values(ids.size());
    for (std::size_t c = 0; c < ids.size(); ++c)
      values[c] = system.partition().isOwned(Ordinal(c)) ? double(ids[c] + v) : -1.0;
    fields.emplace_back(system.localMesh(), "u");
    fields.back().fromHost(values);
  }
  ASSERT_TRUE(system.step(fields, 0.1).converged);
  for (int v = 0; v < 3; ++v) {
    const auto got = fields[std::size_t(v)].toHost();
    int wrong = 0;
    for (std::size_t c = 0; c < ids.size(); ++c)
      wrong += std::abs(got[c] - Real(ids[c] + v)) > Real(1e-4) * Real(1 + ids[c]);
    EXPECT_EQ(wrong, 0) << "variable " << v << ", rank " << worldRank();
  }
  if (worldSize() > 1) {
    CoupledSystem<Space> inner(system.localMesh(), 2);
    inner.transient(0, 0).transient(1, 1);
    const Patch patch = worldRank() == 0 ? Patch::Right : Patch::Left;
    inner.boundary(1, patch, BoundaryCondition::dirichlet(0));
    expectRefused([&] { system.setSystem(inner, makeLinearSolver<Space>("gmres", {})); },
                  {"faces another rank", "variable 1"});
  }
}

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

// du/dt = div(D grad u) - k (u - v), dv/dt = div(0.7 grad v) + k (u - v), D a per-face
// field, u = 1 on the left.
void twoSpeciesOnMesh(CoupledSystem<Space>& system, const std::function<bool(Patch)>&) {
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
    checkAgainstOneProcess(Mesh<Space>(topology), onParts(topology), twoSpeciesOnMesh,
                           scheme, 3, 0.01, false);
  }
}

// Cahn-Hilliard, periodic in x, zero flux at the bottom and top:
// dphi/dt = div(grad mu), 0 = div(0.01 grad phi) + mu + phi - phi^3.
void cahnHilliardOnMesh(CoupledSystem<Space>& system, const std::function<bool(Patch)>&) {
  system.transient(0, 0)
      .diffusion(0, 1, 1.0)
      .diffusion(1, 0, 0.01)
      .implicitSource(1, 1, 1.0)
      .source(1, 0, Polynomial{0, 1, 0, -1});
}

TEST(DistributedCoupledMesh, CahnHilliardOnPeriodicTrianglesWithSweepsEqualsOneProcess) {
  MeshTopology topology = crossedTriangles(8, 0).topology();
  topology.addPeriodicPair("left", "right");
  checkAgainstOneProcess(Mesh<Space>(topology), onParts(topology), cahnHilliardOnMesh,
                         TimeScheme::BackwardEuler, 3, 0.001, true);
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
