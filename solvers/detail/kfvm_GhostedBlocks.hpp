#ifndef KFVM_DETAIL_GHOSTED_BLOCKS_HPP
#define KFVM_DETAIL_GHOSTED_BLOCKS_HPP

// What DistributedSystem and DistributedMeshSystem share: a rank's ghosted block (defined
// in kfvm_DistributedSystem.cpp) and the solve across ranks.

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_Decomposition.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_Patch.hpp>

#include <functional>
#include <vector>

namespace kfvm::Details {

/// The global grid's vertices of the rank's ghosted block.
CartesianGrid ghostedGrid(const CartesianGrid& grid, const Decomposition& decomposition,
                          const GhostedBlock& layout, int rank);

/// Global ids (x fastest over the global grid) of every cell of the rank's ghosted block.
std::vector<long long> localGlobalIds(const Decomposition& decomposition,
                                      const GhostedBlock& layout, int rank);

/// True when the rank's side `patch` lies on the global grid's boundary; throws
/// kfvm::Error for a patch beyond the grid's dimension.
bool isPhysicalPatch(const Decomposition& decomposition, int rank, Patch patch);

/// Maxima over comm's ranks, in place (MPI_Allreduce; rank names this one in errors).
std::function<void(double* values, int count)> maxOverRanks(MPI_Comm comm, int rank);

/// Solves A x = b across comm's ranks with a native solver over the distributed operator
/// A, then fills x's ghosts (exchange(x)). The preconditioner's setup (an ILU pivot) may
/// fail on some ranks only: then it fails on every rank, before the solve's first
/// reduction.
template <class ExecSpace, class Exchange>
SolverReport solveAcrossRanks(MPI_Comm comm, LinearSolver<ExecSpace>& solver,
                              const LinearOperator<ExecSpace>& A,
                              const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                              const Exchange& exchange) {
  agreeOnFailure(comm, failureOf([&] { solver.setOperator(A); }), "distributed solve");
  SolverReport report = solver.solve(b, x);
  report.solver = "distributed " + report.solver;
  exchange(x);
  return report;
}

}  // namespace kfvm::Details

#endif
