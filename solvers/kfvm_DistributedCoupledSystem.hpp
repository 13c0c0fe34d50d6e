#ifndef KFVM_DISTRIBUTED_COUPLED_SYSTEM_HPP
#define KFVM_DISTRIBUTED_COUPLED_SYSTEM_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchange).

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_DistributedOperator.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace kfvm {

/// A CoupledSystem solved across the ranks of a Decomposition: DistributedSystem's
/// counterpart for several variables. Each rank builds the system on its block plus one
/// layer of ghost cells (localMesh()); its steps are the CoupledStepper's (backward
/// Euler or Crank-Nicolson, Newton sweeps), distributed over this object: block vectors
/// exchange every variable's ghosts at once, and the solves run kfvm's Krylov methods
/// over a DistributedOperator of the block matrix's owned rows (any preconditioner that
/// works per process: none, jacobi, chebyshev, ilu0 and block-jacobi as block Jacobi
/// across ranks). Boundary conditions go on the physical patches only.
template <class ExecSpace>
class DistributedCoupledSystem final : private SolveDistribution<ExecSpace> {
 public:
  DistributedCoupledSystem(const CartesianGrid& grid, const Decomposition& decomposition,
                           MPI_Comm comm, int numVariables,
                           GpuAwareMpi mode = GpuAwareMpi::Auto);

  const Mesh<ExecSpace>& localMesh() const { return mesh_; }
  const GhostedBlock& layout() const { return halo_.layout(); }
  const HaloExchange<ExecSpace>& halo() const { return halo_; }
  /// True when the local mesh's patch lies on the global grid's boundary.
  bool isPhysical(Patch patch) const;
  /// Global ids (x fastest over the global grid) of every cell of localMesh().
  std::vector<long long> localGlobalIds() const;

  /// The system (on localMesh(), numVariables variables) and its solver; throws
  /// kfvm::Error naming a condition on a patch that faces another rank, or a solver
  /// that takes ghost columns (a Trilinos one).
  void setSystem(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// As CoupledStepper::setSweeps (needs setSystem()).
  void setSweeps(int maxSweeps, Real tolerance);

  /// A step of the fields (one per variable, on localMesh()); on return their owned and
  /// ghost cells hold the new values. The report is the same on every rank.
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  /// The stepper of the last setSystem() (throws kfvm::Error before).
  CoupledStepper<ExecSpace>& stepper();
  /// Maxima over the ranks, in place: for AdaptiveStepper::setMaxOverProcesses().
  std::function<void(double* values, int count)> maxOverRanks() const;

  /// The distributed block operator (throws kfvm::Error before setSystem()).
  const LinearOperator<ExecSpace>& linearOperator() const override;

 private:
  void exchange(const Vector<ExecSpace>& x) override { halo_.exchange(x); }
  SolverReport solve(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x) override;

  Decomposition decomposition_;
  MPI_Comm comm_;
  int numVariables_;
  HaloExchange<ExecSpace> halo_;  // numVariables values per cell
  Mesh<ExecSpace> mesh_;
  std::unique_ptr<CoupledStepper<ExecSpace>> stepper_;
  std::unique_ptr<DistributedOperator<ExecSpace>> operator_;
};

}  // namespace kfvm

#endif
