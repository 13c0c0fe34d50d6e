#ifndef KFVM_TRILINOS_SOLVER_HPP
#define KFVM_TRILINOS_SOLVER_HPP

// Trilinos solvers behind kfvm's LinearSolver (target kfvm::trilinos). This header
// includes no Trilinos header; kfvm_TrilinosSolver.cpp is the one file that does.

#include <kfvm_LinearSolver.hpp>

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// "belos:cg", "belos:gmres", "belos:bicgstab", "belos:tfqmr", "amesos2:klu2".
std::vector<std::string> trilinosSolverNames();
bool isTrilinosSolverName(const std::string& name);

/// A Trilinos solver working on kfvm's CRS matrix and vectors. The matrix and vectors are
/// handed to Tpetra as views of kfvm's own Views (no copy) when the memory spaces match,
/// and the matrix structure once: refilled values are seen by Tpetra in place.
///
/// Parameters (kfvm keys; any other key is an error before any solve):
///   tolerance (1e-8, relative to ||b||), max_iterations (1000), restart (gmres, 30),
///   preconditioner: "none", "muelu" (smoothed aggregation AMG; belos:cg's default),
///     "ifpack2:relaxation", "ifpack2:ilut", "ifpack2:chebyshev";
///   relaxation: "Jacobi" (default), "Gauss-Seidel", "Symmetric Gauss-Seidel";
///   sweeps (1), damping (1.0), ilut_fill (1.0), ilut_drop (0.0), chebyshev_degree (2);
///   preconditioner_reuse: what setMatrix() does with new values of the same structure:
///     "none" (default: recompute the preconditioner), "RP" (MueLu only: keep P and R,
///     recompute coarse operators and smoothers), "full" (keep it as it is);
///   xml: a Teuchos XML parameter file with optional sublists "belos", "muelu",
///     "ifpack2", "amesos2" merged into what the keys above give;
///   belos.NAME, muelu.NAME, ifpack2.NAME, amesos2.NAME: one Trilinos parameter (value
///     typed as bool, int, double, or string, in that order of trial).
/// Trilinos' own exceptions become kfvm::Error carrying Trilinos' message.
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeTrilinosSolver(const std::string& name,
                                                            const Parameters& parameters);

/// The same solver for the rows one MPI rank owns of a matrix distributed over comm's
/// ranks (DistributedSystem::setSolver). rowIds: the global ids of this rank's rows (the
/// Tpetra row, domain and range map); columnIds: those of its local matrix's columns,
/// owned and ghost cells (the column map). Vectors hold this rank's entries in row
/// order. Norms, residuals and Belos' reductions run over all ranks of comm.
template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeTrilinosSolver(
    const std::string& name, const Parameters& parameters, MPI_Comm comm,
    std::vector<long long> rowIds, std::vector<long long> columnIds);

}  // namespace kfvm

#endif
