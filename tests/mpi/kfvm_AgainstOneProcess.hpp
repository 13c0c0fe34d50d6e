#ifndef KFVM_AGAINST_ONE_PROCESS_HPP
#define KFVM_AGAINST_ONE_PROCESS_HPP

// The check every distributed solve is held to, whatever the partition (a grid's blocks
// or a general mesh's parts) and however many variables: the problem solved on the
// whole mesh by this process alone and across the ranks, from the same start, agrees on
// every local cell, owned and ghost, with the one-process value of its global cell.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_DistributedSystem.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::Test {

/// The system across the ranks, on a grid's blocks or a mesh's parts.
using MakeDistributed =
    std::function<std::unique_ptr<DistributedSystem<TestExecSpace>>()>;

inline MakeDistributed onBlocks(const CartesianGrid& grid,
                                const Decomposition& decomposition, int ghostLayers = 1) {
  return [grid, decomposition, ghostLayers] {
    return std::make_unique<DistributedSystem<TestExecSpace>>(
        grid, decomposition, MPI_COMM_WORLD, GpuAwareMpi::Auto, ghostLayers);
  };
}

inline MakeDistributed onParts(const MeshTopology& topology, int ghostLayers = 1,
                               PartitionMethod method = PartitionMethod::Default) {
  return [topology, ghostLayers, method] {
    return std::make_unique<DistributedSystem<TestExecSpace>>(topology, MPI_COMM_WORLD,
                                                              ghostLayers, method);
  };
}

/// One equation: its terms and the conditions on the patches that take them (fields it
/// needs made on the equation's mesh), its start, the solver, and `steps` steps of dt
/// (none: the steady solve).
struct EquationCase {
  std::string name;  // printed with the difference
  std::function<void(Equation<TestExecSpace>&, const std::function<bool(Patch)>&)> terms;
  std::function<void(CellField<TestExecSpace>&, const Mesh<TestExecSpace>&)> start;
  std::string solver = "cg";  // with solverTolerance, on one process and across ranks
  double solverTolerance = 1e-13, sweepTolerance = 1e-11;
  int maxSweeps = 50;
  int steps = 0;
  Real dt = 0;
  TimeScheme scheme = TimeScheme::BackwardEuler;
  /// The solver across the ranks in place of the one named (empty: by name).
  std::function<std::unique_ptr<LinearSolver<TestExecSpace>>()> distributedSolver;
  bool matrixFree = false;
  bool garbageGhosts = false;  // the ghosts start at 1e3: a step must fill them first
  double atLeast = 0;          // the answer's largest value (over the ranks) exceeds it
  double tolerance = 1e-9;     // on the difference, times the largest value if relative
  bool relative = false;
};

/// The case on whole by this process alone and across the ranks (make()); the answer
/// gathered on rank 0 too.
inline void checkAgainstOneProcess(const Mesh<TestExecSpace>& whole,
                                   const MakeDistributed& make, const EquationCase& c) {
  using Space = TestExecSpace;
  const auto solve = [&c](auto& solver, CellField<Space>& phi) {
    if (c.steps == 0) {
      const auto report = solver.solveSteady(phi);
      EXPECT_TRUE(report.converged) << report.reason;
    }
    for (int step = 0; step < c.steps; ++step) {
      const auto report = solver.step(phi, c.dt, c.scheme);
      ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    }
  };
  const auto start = [&c](CellField<Space>& phi, const Mesh<Space>& mesh) {
    if (c.start) c.start(phi, mesh);
  };
  const auto toleranceText = solverToleranceText(c.solverTolerance);
  CellField<Space> reference(whole, "phi");
  start(reference, whole);
  Equation<Space> alone(whole);
  c.terms(alone, [](Patch) { return true; });
  ImplicitStepper<Space> stepper(
      alone, makeLinearSolver<Space>(c.solver, {{"tolerance", toleranceText}}));
  stepper.setSweeps(c.maxSweeps, Real(Test::solverTolerance(c.sweepTolerance)));
  solve(stepper, reference);
  const auto expected = reference.toHost();

  const auto system = make();
  const Mesh<Space>& local = system->localMesh();
  CellField<Space> phi(local, "phi");
  start(phi, local);
  if (c.garbageGhosts) {
    auto values = phi.toHost();
    for (Ordinal cell = 0; cell < local.numCells(); ++cell)
      if (!system->partition().isOwned(cell)) values[std::size_t(cell)] = Real(1e3);
    phi.fromHost(values);
  }
  Equation<Space> equation(local);
  c.terms(equation, [&](Patch p) { return system->isPhysical(p); });
  system->setEquation(equation);
  if (c.distributedSolver)
    system->setSolver(c.distributedSolver());
  else
    system->setSolver(c.solver, Test::solverTolerance(c.solverTolerance), 10000);
  system->setSweeps(c.maxSweeps, Test::solverTolerance(c.sweepTolerance));
  if (c.matrixFree) system->setMatrixFree(true);
  solve(*system, phi);
  if (::testing::Test::HasFatalFailure()) return;
  const auto values = phi.toHost();
  const auto& ids = system->localGlobalIds();
  double worst[2] = {0, 0};  // the difference, the largest value
  for (std::size_t cell = 0; cell < ids.size(); ++cell) {
    const double want = double(expected[std::size_t(ids[cell])]);
    worst[0] = std::max(worst[0], std::abs(double(values[cell]) - want));
    worst[1] = std::max(worst[1], std::abs(want));
  }
  EXPECT_LT(worst[0], c.relative ? c.tolerance * worst[1] : c.tolerance)
      << c.name << ", rank " << worldRank() << " of " << worldSize();
  // The owned values gathered on rank 0, in the global order, are the same answer.
  const auto gathered = system->gather(phi);
  if (worldRank() == 0) {
    ASSERT_EQ(gathered.size(), expected.size()) << c.name;
    const auto [difference, largest] = compareGathered(gathered, expected);
    EXPECT_LT(difference, c.relative ? c.tolerance * largest : c.tolerance) << c.name;
  }
  system->maxOverRanks()(worst, 2);
  if (worldRank() == 0)
    std::printf("  %s on %d ranks: max difference from one process %.2e\n",
                c.name.c_str(), worldSize(), worst[0]);
  EXPECT_GT(worst[1], c.atLeast) << c.name;
}

}  // namespace kfvm::Test

#endif
