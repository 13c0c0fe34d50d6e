#ifndef KFVM_SOLVE_DISTRIBUTION_HPP
#define KFVM_SOLVE_DISTRIBUTION_HPP

#include <kfvm_LinearOperator.hpp>
#include <kfvm_LinearSolver.hpp>

namespace kfvm {

/// What a stepper needs when its equation lives on one rank's part of a distributed
/// mesh (owned cells and their ghost layers) rather than on the whole mesh: ghost values
/// from the ranks that own them, the distributed operator of its assembled system, and
/// the linear solve across the ranks. DistributedSystem provides one (kfvm::distributed);
/// a stepper without one solves on its own process. Host-side interface, no MPI here.
template <class ExecSpace>
class SolveDistribution {
 public:
  virtual ~SolveDistribution() = default;
  /// Fills every ghost layer of x (a vector of the local mesh's cells) from the ranks
  /// that own those cells.
  virtual void exchange(const Vector<ExecSpace>& x) = 0;
  /// The operator of the stepper's assembled system: its owned rows, products with the
  /// ghosts exchanged, dot products and norms over every rank.
  virtual const LinearOperator<ExecSpace>& linearOperator() const = 0;
  /// Solves A x = b (the assembled system) across the ranks with solver, x the initial
  /// guess; on return x's ghosts hold the owners' values. The report is the same on
  /// every rank.
  virtual SolverReport solve(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                             const Vector<ExecSpace>& x) = 0;
};

}  // namespace kfvm

#endif
