#ifndef KFVM_DISTRIBUTED_SYSTEM_HPP
#define KFVM_DISTRIBUTED_SYSTEM_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchanges).

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_Partition.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// An Equation, or a CoupledSystem of several variables, solved across the ranks of a
/// communicator with kfvm's own solvers, on any Partition: the blocks of a Cartesian
/// grid or the parts of a general mesh.
///
/// Each rank holds its cells and their ghost layers (localMesh()) and assembles there
/// with the ordinary Assembler (or CoupledSystem): the rows of its owned cells are then
/// exactly the rows of the global matrix, once the ghosts hold their owners' values. The
/// ghost rows are never used. Steps and steady solves are the one-process steppers'
/// (ImplicitStepper for an equation: backward Euler or Crank-Nicolson, sweeps,
/// matrix-free; CoupledStepper for a system: Newton sweeps), distributed over this
/// system (a SolveDistribution): kfvm's solver stack over the partition's distributed
/// operator, any Krylov method with any preconditioner (makeLinearSolver(); Jacobi-CG by
/// default), the operator exchanging a vector's ghosts before each product and the dot
/// products summed over the ranks. A system's block vectors exchange every variable's
/// ghosts at once; preconditioners that work per process act as block Jacobi across
/// ranks.
///
/// Boundary conditions go on the physical patches only (isPhysical(); on a general mesh
/// every patch but MeshPart::cutPatch). Coefficient fields are given on every local
/// cell, ghosts included. Terms that reach two cells away need a partition of two ghost
/// layers (the partition's checkReach() says which).
///
/// A solver that takes ghost columns (a Trilinos one, setSolver() with a LinearSolver)
/// is given ownedRows() instead, this rank's rows of the global matrix, and vectors of
/// owned entries. ownedGlobalIds() and columnGlobalIds() number those rows and columns
/// globally, with the native path's ownership.
template <class ExecSpace>
class DistributedSystem final : private SolveDistribution<ExecSpace> {
 public:
  /// On any partition (collective over its communicator).
  explicit DistributedSystem(std::unique_ptr<Partition<ExecSpace>> partition);
  /// On the blocks of a Cartesian grid (GridBlocks): grid, the global grid;
  /// decomposition, its split over comm's ranks; ghostLayers 1, or 2 for TVD convection
  /// and the fourth-order term.
  DistributedSystem(const CartesianGrid& grid, const Decomposition& decomposition,
                    MPI_Comm comm, GpuAwareMpi mode = GpuAwareMpi::Auto,
                    int ghostLayers = 1);
  /// On the parts of a general mesh (MeshParts): every rank gives the whole mesh.
  DistributedSystem(const MeshTopology& topology, MPI_Comm comm, int ghostLayers = 1,
                    PartitionMethod method = PartitionMethod::Default,
                    GpuAwareMpi mode = GpuAwareMpi::Auto);

  // Its stepper and operator keep pointers to its members and to itself.
  DistributedSystem(const DistributedSystem&) = delete;
  DistributedSystem& operator=(const DistributedSystem&) = delete;

  Partition<ExecSpace>& partition() { return *partition_; }
  const Partition<ExecSpace>& partition() const { return *partition_; }
  /// The partition as blocks of a grid, or as parts of a mesh; throws kfvm::Error when
  /// it is the other kind.
  GridBlocks<ExecSpace>& gridBlocks() const;
  MeshParts<ExecSpace>& meshParts() const;
  const Mesh<ExecSpace>& localMesh() const { return partition_->localMesh(); }
  /// True when the local mesh's patch lies on the global mesh's boundary.
  bool isPhysical(Patch patch) const { return partition_->isPhysical(patch); }
  /// Fills the ghosts of a field on localMesh() from their owners (collective).
  void exchangeGhosts(const CellField<ExecSpace>& field);

  /// The equation on localMesh(); throws kfvm::Error naming a patch where this rank's
  /// cells end but that has a condition, or a term that reaches beyond the ghosts.
  void setEquation(const Equation<ExecSpace>& equation);
  /// A system of several variables on localMesh() in place of the equation, with its
  /// solver (a native one). Collective; throws kfvm::Error as setEquation(), naming the
  /// variable, or for a solver that takes ghost columns.
  void setSystem(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// A native solver by name with the relative tolerance ||b - A x|| / ||b|| and the
  /// iteration limit, Jacobi-preconditioned (defaults "cg", 1e-10, 10000); throws
  /// kfvm::Error naming a bad value.
  void setSolver(const std::string& name, double tolerance, int maxIterations);
  /// Any solver from now on. A native one (makeLinearSolver()) gets the distributed
  /// operator. One that takes ghost columns (an equation's only) gets the owned rows and
  /// must make its own global reductions, as makeTrilinosSolver(name, parameters, comm,
  /// ownedGlobalIds(), columnGlobalIds()) does.
  void setSolver(std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// Products of the native solvers by the matrix-free stencil (StencilOperator) instead
  /// of the assembled matrix: the block's interior while the faces are exchanged, then
  /// its rim. Needs setEquation() and grid blocks; refused with the fourth-order term.
  void setMatrixFree(bool on);
  /// Sweeps of a nonlinear equation or system (as ImplicitStepper::setSweeps): at most
  /// maxSweeps, until ||b - A phi|| / ||b|| <= tolerance (defaults 20, 1e-8 for an
  /// equation, CoupledStepper's for a system).
  void setSweeps(int maxSweeps, double tolerance);

  /// Global ids: of every cell of localMesh(); of the owned cells, in the order of
  /// ownedRows()' rows; of ownedRows()' columns (the owned cells in the same order, then
  /// the ghost cells: a Tpetra row map and column map).
  const std::vector<long long>& localGlobalIds() const {
    return partition_->localGlobalIds();
  }
  std::vector<long long> ownedGlobalIds() const;
  std::vector<long long> columnGlobalIds() const;
  /// This rank's rows of the global matrix, as of the last assembly (columns sorted
  /// within a row, numbered as columnGlobalIds() says). Needs setEquation(); values
  /// refreshed on each call.
  const CrsMatrix<ExecSpace>& ownedRows();

  /// One step of phi (a field on localMesh()) by scheme, or the steady solve; on
  /// return, phi's owned and ghost cells hold the new values. A solve that does not
  /// converge says so in the report (the same on every rank).
  StepReport step(CellField<ExecSpace>& phi, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(CellField<ExecSpace>& phi);
  /// The same for the system's fields (one per variable, on localMesh()).
  StepReport step(std::vector<CellField<ExecSpace>>& fields, Real dt,
                  TimeScheme scheme = TimeScheme::BackwardEuler);
  StepReport solveSteady(std::vector<CellField<ExecSpace>>& fields);
  /// The stepper of the last setEquation() (throws kfvm::Error before): what step() and
  /// solveSteady() use, for its other entries (sweep(), a step from other old values).
  ImplicitStepper<ExecSpace>& stepper();
  /// The stepper of the last setSystem() (throws kfvm::Error before).
  CoupledStepper<ExecSpace>& coupledStepper();

  /// The owned values of phi from every rank, in the global cell order, on rank root
  /// (empty elsewhere): output and checks, not a time step's work.
  std::vector<Real> gather(const CellField<ExecSpace>& phi, int root = 0) const;
  /// Maxima over the ranks, in place (MPI_Allreduce): for AdaptiveStepper's
  /// setMaxOverProcesses().
  std::function<void(double* values, int count)> maxOverRanks() const;
  /// sum over every rank's owned cells of x y. Needs setEquation() or setSystem().
  double dot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;
  /// The distributed operator of the last setEquation() or setSystem() (throws
  /// kfvm::Error before).
  const LinearOperator<ExecSpace>& linearOperator() const override;

 private:
  // SolveDistribution: what the stepper asks of the ranks.
  void exchange(const Vector<ExecSpace>& x) override;
  SolverReport solve(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                     const Vector<ExecSpace>& x) override;
  /// A solver that takes ghost columns, on the owned rows.
  SolverReport solveOwnedRows(LinearSolver<ExecSpace>& solver, const Vector<ExecSpace>& b,
                              const Vector<ExecSpace>& x);
  /// The owned rows' structure of the last equation's matrix (host work, made once per
  /// equation and only for a solver that takes ghost columns).
  void buildOwnedRows();

  std::unique_ptr<Partition<ExecSpace>> partition_;
  int maxSweeps_ = 20;
  double sweepTolerance_ = 1e-8;
  bool sweepsGiven_ = false;  // a system's stepper keeps its own defaults otherwise
  int components_ = 1;        // values per cell of the stepper's vectors
  std::unique_ptr<ImplicitStepper<ExecSpace>> stepper_;  // owns the assembler, solver
  std::unique_ptr<CoupledStepper<ExecSpace>> coupledStepper_;  // or the system's
  std::unique_ptr<LinearOperator<ExecSpace>> operator_;
  bool matrixFree_ = false;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;  // until setEquation()
  // Owned cells in row order; the local cell of each column of the owned rows; the
  // owned rows, the local matrix's entry each entry comes from; owned-entry vectors.
  DeviceView<Ordinal*, ExecSpace> ownedCells_;
  std::vector<Ordinal> columnCells_;
  CrsMatrix<ExecSpace> ownedRows_;
  bool ownedRowsBuilt_ = false;
  DeviceView<Offset*, ExecSpace> entrySources_;
  Vector<ExecSpace> ownedRhs_, ownedX_;
};

}  // namespace kfvm

#endif
