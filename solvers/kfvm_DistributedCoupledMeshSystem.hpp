#ifndef KFVM_DISTRIBUTED_COUPLED_MESH_SYSTEM_HPP
#define KFVM_DISTRIBUTED_COUPLED_MESH_SYSTEM_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchange).

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_DistributedMeshSystem.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <memory>
#include <vector>

namespace kfvm {

/// A CoupledSystem solved on a general mesh split across the ranks of a communicator:
/// DistributedCoupledSystem's counterpart on a Gmsh mesh, DistributedMeshSystem's for
/// several variables. The partition, the part with one layer of ghost cells, its mesh,
/// the gathering of fields and their one-value exchange are a DistributedMeshSystem's
/// (parts()); the steps are the CoupledStepper's (backward Euler or Crank-Nicolson,
/// Newton sweeps), distributed over this object: block vectors exchange every
/// variable's ghosts at once (a MeshHaloExchange of numVariables values per cell), and
/// the solves run kfvm's Krylov methods over a DistributedMeshOperator of the block
/// matrix's owned rows (preconditioners that work per process act as block Jacobi
/// across ranks). Boundary conditions go on the mesh's patches, none on the cut.
template <class ExecSpace>
class DistributedCoupledMeshSystem final : private SolveDistribution<ExecSpace> {
 public:
  /// Collective over comm. Throws kfvm::Error for fewer than 2 variables, or a mesh with
  /// fewer cells than ranks.
  DistributedCoupledMeshSystem(const MeshTopology& topology, MPI_Comm comm,
                               int numVariables,
                               PartitionMethod method = PartitionMethod::Default,
                               GpuAwareMpi mode = GpuAwareMpi::Auto);

  // Its operator and stepper keep pointers to its members and to itself.
  DistributedCoupledMeshSystem(const DistributedCoupledMeshSystem&) = delete;
  DistributedCoupledMeshSystem& operator=(const DistributedCoupledMeshSystem&) = delete;

  /// The partition, the part's mesh, global ids, gathers and one-value exchanges.
  DistributedMeshSystem<ExecSpace>& parts() { return parts_; }

  const Mesh<ExecSpace>& localMesh() const { return parts_.localMesh(); }

  /// The system (on localMesh(), numVariables variables) and its solver; throws
  /// kfvm::Error naming a condition on the cut patch or a solver that takes ghost
  /// columns (a Trilinos one).
  void setSystem(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// As CoupledStepper::setSweeps (needs setSystem()).
  void setSweeps(int maxSweeps, Real tolerance);

  /// A step of the fields (one per variable, on localMesh()), or the steady solve; on
  /// return their owned and ghost cells hold the new values. The report is the same on
  /// every rank.
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  CoupledStepper<ExecSpace>& stepper();

  /// The distributed block operator (throws kfvm::Error before setSystem()).
  const LinearOperator<ExecSpace>& linearOperator() const override;

 private:
  void exchange(const Vector<ExecSpace>& x) override { halo_.exchange(x); }
  SolverReport solve(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x) override;

  MPI_Comm comm_;
  int numVariables_;
  DistributedMeshSystem<ExecSpace> parts_;
  MeshHaloExchange<ExecSpace> halo_;  // numVariables values per cell
  std::unique_ptr<CoupledStepper<ExecSpace>> stepper_;
  std::unique_ptr<DistributedMeshOperator<ExecSpace>> operator_;
};

}  // namespace kfvm

#endif
