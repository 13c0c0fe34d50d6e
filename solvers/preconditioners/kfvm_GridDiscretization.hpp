#ifndef KFVM_GRID_DISCRETIZATION_HPP
#define KFVM_GRID_DISCRETIZATION_HPP

namespace kfvm {

class CartesianGrid;
template <class ExecSpace>
class Assembler;
template <class ExecSpace>
class GridDistribution;

/// What geometric multigrid coarsens, handed to a solver (LinearSolver::
/// setDiscretization) by whoever gives it its operator: a stepper, a distributed system.
/// An operator is only rows; this says where they come from. Every pointer must outlive
/// the solves; null members are what is not there.
template <class ExecSpace>
struct GridDiscretization {
  /// A scalar equation on a structured grid: its levels are rediscretized from it.
  const Assembler<ExecSpace>* assembler = nullptr;
  /// The structured grid whose cells number a block matrix's blocks (a coupled
  /// system's): its levels are Galerkin products of point blocks.
  const CartesianGrid* grid = nullptr;
  /// Across MPI ranks, how the assembler's grid is split (its mesh is this rank's block
  /// with its ghost layers); null on one process.
  const GridDistribution<ExecSpace>* distribution = nullptr;
};

}  // namespace kfvm

#endif
