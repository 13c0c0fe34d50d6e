#ifndef KFVM_DISTRIBUTED_MESH_SYSTEM_HPP
#define KFVM_DISTRIBUTED_MESH_SYSTEM_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_MeshHaloExchange.hpp>
#include <kfvm_MeshPartition.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// The owned rows of an equation assembled on one rank's part of a general mesh
/// (MeshPart: owned cells first, then ghosts): apply() exchanges x's ghosts and
/// multiplies the owned rows by the local matrix; dot products sum over the ranks.
/// matrix() is the local matrix, ghost rows included (a local preconditioner makes block
/// Jacobi across ranks with the ghost layers as overlap, as DistributedOperator's).
template <class ExecSpace>
class DistributedMeshOperator final : public LinearOperator<ExecSpace> {
 public:
  /// The halo and the assembler (of an equation on the part's mesh) must outlive it.
  DistributedMeshOperator(MeshHaloExchange<ExecSpace>& halo,
                          const Assembler<ExecSpace>& assembler);
  /// The owned rows of a block matrix on the part (a CoupledSystem's: the halo's
  /// components unknowns per cell, interleaved). The halo and matrix must outlive it.
  DistributedMeshOperator(MeshHaloExchange<ExecSpace>& halo,
                          const CrsMatrix<ExecSpace>& matrix);

  std::string description() const override { return "distributed CRS matrix"; }
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override;
  void diagonal(const Vector<ExecSpace>& d) const override;
  const CrsMatrix<ExecSpace>* matrix() const override { return matrix_; }
  long structureVersion() const override { return version_; }
  int blockSize() const override { return halo_->components(); }

 private:
  MeshHaloExchange<ExecSpace>* halo_;
  const Assembler<ExecSpace>* assembler_ = nullptr;  // a scalar equation's
  const CrsMatrix<ExecSpace>* matrix_;
  VectorSpace<ExecSpace> space_;
  long version_;
};

/// An Equation, or a CoupledSystem of several variables, solved on a general mesh split
/// across the ranks of a communicator, with kfvm's own solvers: the general-mesh sibling
/// of DistributedSystem.
///
/// Every rank gives the whole mesh; it is partitioned (partitionCells(): METIS, or
/// recursive coordinate bisection) the same way on every rank, and each rank keeps its
/// cells and ghostLayers layers of the cells around them (meshPart(): localMesh(), owned
/// cells first). The Equation is assembled there with the ordinary Assembler: the rows
/// of the owned cells are exactly the rows of the global matrix once the ghosts hold
/// their owners' values. Steps and steady solves are the ImplicitStepper's, distributed
/// over this system: any native Krylov method and preconditioner (makeLinearSolver();
/// Jacobi-CG by default) over a DistributedMeshOperator, the sweeps of a nonlinear or
/// corrected equation each with the ghosts exchanged first.
///
/// Boundary conditions go on the mesh's own patches; the patch MeshPart::cutPatch (the
/// faces beyond the last ghost layer) takes none. Coefficient fields are given on every
/// local cell, ghosts included. Terms that read cell gradients or reach two cells away
/// (the non-orthogonal correction, a diffusion tensor, TVD convection, the fourth-order
/// term) need two ghost layers: a ghost next to an owned cell then has all its
/// neighbours.
///
/// A CoupledSystem (setSystem()) is stepped by the CoupledStepper over the same part:
/// its block vectors exchange every variable's ghosts at once (a second
/// MeshHaloExchange, of as many values per cell as variables), and its solves run over a
/// DistributedMeshOperator of the block matrix's owned rows.
template <class ExecSpace>
class DistributedMeshSystem final : private SolveDistribution<ExecSpace> {
 public:
  /// Collective over comm. Throws kfvm::Error for a bad layer count, or a mesh with
  /// fewer cells than ranks.
  DistributedMeshSystem(const MeshTopology& topology, MPI_Comm comm, int ghostLayers = 1,
                        PartitionMethod method = PartitionMethod::Default,
                        GpuAwareMpi mode = GpuAwareMpi::Auto);

  // Its operator and stepper keep pointers to its members and to itself.
  DistributedMeshSystem(const DistributedMeshSystem&) = delete;
  DistributedMeshSystem& operator=(const DistributedMeshSystem&) = delete;

  const Mesh<ExecSpace>& localMesh() const { return mesh_; }
  /// Local cells 0 .. ownedCells() - 1 are this rank's.
  Ordinal ownedCells() const { return part_.ownedCells; }
  /// The global cell of every local cell (the topology's numbering).
  const std::vector<long long>& localGlobalIds() const { return part_.globalCells; }
  /// The rank owning every global cell.
  const std::vector<int>& owners() const { return owners_; }
  /// This rank's part of the mesh (its topology, global cells and ghost owners).
  const MeshPart& part() const { return part_; }
  MeshHaloExchange<ExecSpace>& halo() { return halo_; }
  int rank() const { return halo_.rank(); }

  /// The equation on localMesh(); throws kfvm::Error for a condition on the cut patch,
  /// or a term that needs two ghost layers on a system of one.
  void setEquation(const Equation<ExecSpace>& equation);
  /// A native solver by name, Jacobi-preconditioned (defaults "cg", 1e-10, 10000).
  void setSolver(const std::string& name, double tolerance, int maxIterations);
  /// A native solver (makeLinearSolver()); one that takes ghost columns is refused.
  void setSolver(std::unique_ptr<LinearSolver<ExecSpace>> solver);
  void setSweeps(int maxSweeps, double tolerance);
  /// A system of several variables on localMesh() in place of the equation, with its
  /// solver (a native one). Collective over the ranks; throws kfvm::Error naming a
  /// condition on the cut patch.
  void setSystem(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// One step of phi (a field on localMesh()), or the steady solve; on return phi's
  /// owned and ghost cells hold the new values. The report is the same on every rank.
  StepReport step(CellField<ExecSpace>& phi, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(CellField<ExecSpace>& phi);
  /// The same for the system's fields (one per variable, on localMesh()).
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  ImplicitStepper<ExecSpace>& stepper();
  CoupledStepper<ExecSpace>& coupledStepper();

  /// The owned values of phi from every rank, in the global cell order, on rank root
  /// (empty elsewhere): output and checks, not a time step's work.
  std::vector<Real> gather(const CellField<ExecSpace>& phi, int root = 0) const;
  /// Maxima over the ranks, in place (AdaptiveStepper::setMaxOverProcesses()).
  std::function<void(double* values, int count)> maxOverRanks() const;
  double dot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;
  const LinearOperator<ExecSpace>& linearOperator() const override;

 private:
  DistributedMeshSystem(const MeshTopology& topology,
                        const MeshTopology::Connectivity& connectivity, MPI_Comm comm,
                        int ghostLayers, PartitionMethod method, GpuAwareMpi mode);
  void exchange(const Vector<ExecSpace>& x) override;
  SolverReport solve(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x) override;

  MPI_Comm comm_;
  GpuAwareMpi mode_;
  std::vector<int> owners_;
  MeshPart part_;
  MeshHaloExchange<ExecSpace> halo_;
  std::unique_ptr<MeshHaloExchange<ExecSpace>> blockHalo_;  // a system's values per cell
  int ghostLayers_;
  int maxSweeps_ = 20;
  double sweepTolerance_ = 1e-8;
  bool sweepsGiven_ = false;  // a system's stepper keeps its own defaults otherwise
  Mesh<ExecSpace> mesh_;
  std::unique_ptr<ImplicitStepper<ExecSpace>> stepper_;
  std::unique_ptr<CoupledStepper<ExecSpace>> coupledStepper_;  // or the system's
  std::unique_ptr<DistributedMeshOperator<ExecSpace>> operator_;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;  // until setEquation()
};

}  // namespace kfvm

#endif
