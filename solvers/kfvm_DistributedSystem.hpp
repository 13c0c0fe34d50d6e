#ifndef KFVM_DISTRIBUTED_SYSTEM_HPP
#define KFVM_DISTRIBUTED_SYSTEM_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_DistributedGrid.hpp>
#include <kfvm_DistributedOperator.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_SolveDistribution.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kfvm {

/// An Equation, or a CoupledSystem of several variables, solved across the ranks of a
/// Decomposition with kfvm's own solver.
///
/// Each rank meshes its block plus one layer of ghost cells towards each neighbouring
/// rank (localMesh(), cells in GhostedBlock order), and assembles the Equation there
/// with the ordinary Assembler. The rows of its owned cells are then exactly the rows
/// of the global matrix: every face of an owned cell is a face of the local mesh, and a
/// ghost cell holds the neighbour's value after a halo exchange. The ghost rows are
/// never used. Steps and steady solves are the ImplicitStepper's (backward Euler or
/// Crank-Nicolson, sweeps, matrix-free), distributed over this system (a
/// SolveDistribution): kfvm's solver stack over a DistributedOperator, any Krylov
/// method with any preconditioner (makeLinearSolver(); Jacobi-CG by default), the
/// operator exchanging a vector's ghosts before each product and the dot products
/// summed over the ranks.
///
/// Boundary conditions go on the physical patches only (isPhysical()). A side facing
/// another rank is not a boundary. Coefficient fields must be given on every local
/// cell, ghosts included (they are functions of position, or come from an exchange).
/// Nonlinear terms are solved in sweeps (setSweeps()), each with every ghost layer
/// exchanged first. TVD convection and the fourth-order term reach two cells away: they
/// need a system made with two ghost layers. With the fourth-order term a product needs
/// edge and corner ghosts too, so it exchanges them all first, without overlap.
///
/// A solver that takes ghost columns (a Trilinos one, setSolver() with a LinearSolver)
/// is given ownedRows() instead, this rank's rows of the global matrix, and vectors of
/// owned entries. ownedGlobalIds() and columnGlobalIds() number those rows and columns
/// globally, with the native path's ownership.
///
/// A CoupledSystem (setSystem()) is stepped by the CoupledStepper (Newton sweeps) over
/// the same blocks: its block vectors exchange every variable's ghosts at once (a second
/// HaloExchange, of as many values per cell as variables), and its solves run kfvm's
/// Krylov methods over a DistributedOperator of the block matrix's owned rows
/// (preconditioners that work per process act as block Jacobi across ranks).
template <class ExecSpace>
class DistributedSystem final : private SolveDistribution<ExecSpace> {
 public:
  /// grid: the global grid; decomposition: its split over comm's ranks.
  /// ghostLayers: 1, or 2 for TVD convection and the fourth-order term.
  DistributedSystem(const CartesianGrid& grid, const Decomposition& decomposition,
                    MPI_Comm comm, GpuAwareMpi mode = GpuAwareMpi::Auto,
                    int ghostLayers = 1);

  // Its stepper and grid distribution keep pointers to its members and to itself.
  DistributedSystem(const DistributedSystem&) = delete;
  DistributedSystem& operator=(const DistributedSystem&) = delete;

  const Mesh<ExecSpace>& localMesh() const { return mesh_; }
  const GhostedBlock& layout() const { return halo_.layout(); }
  HaloExchange<ExecSpace>& halo() { return halo_; }
  /// True when the local mesh's patch lies on the global grid's boundary.
  bool isPhysical(Patch patch) const;

  /// The equation on localMesh(); throws kfvm::Error naming a patch that faces another
  /// rank but has a condition, or a term that is not supported (see above).
  void setEquation(const Equation<ExecSpace>& equation);
  /// A native solver by name with the relative tolerance ||b - A x|| / ||b|| and the
  /// iteration limit, Jacobi-preconditioned (defaults "cg", 1e-10, 10000); throws
  /// kfvm::Error naming a bad value.
  void setSolver(const std::string& name, double tolerance, int maxIterations);
  /// Any solver from now on. A native one (makeLinearSolver()) gets the distributed
  /// operator. One that takes ghost columns gets the owned rows and must make its own
  /// global reductions, as makeTrilinosSolver(name, parameters, comm, ownedGlobalIds(),
  /// columnGlobalIds()) does.
  void setSolver(std::unique_ptr<LinearSolver<ExecSpace>> solver);
  /// Products of the native solvers by the matrix-free stencil (StencilOperator) instead
  /// of the assembled matrix: the block's interior while the faces are exchanged, then
  /// its rim. Needs setEquation() first; refused with the fourth-order term.
  void setMatrixFree(bool on);
  /// Sweeps of a nonlinear equation or system (as ImplicitStepper::setSweeps): at most
  /// maxSweeps, until ||b - A phi|| / ||b|| <= tolerance (defaults 20, 1e-8 for an
  /// equation, CoupledStepper's for a system).
  void setSweeps(int maxSweeps, double tolerance);

  /// A system of several variables on localMesh() in place of the equation, with its
  /// solver (a native one). Collective over the ranks; throws kfvm::Error naming a
  /// condition on a patch that faces another rank, or a solver that takes ghost columns.
  void setSystem(const CoupledSystem<ExecSpace>& system,
                 std::unique_ptr<LinearSolver<ExecSpace>> solver);

  /// Global ids (x fastest over the global grid): of the owned cells, in the order of
  /// ownedRows()' rows; of ownedRows()' columns (the owned cells in the same order, then
  /// the ghost cells: a Tpetra row map and column map); of every cell of localMesh().
  std::vector<long long> ownedGlobalIds() const;
  std::vector<long long> columnGlobalIds() const;
  std::vector<long long> localGlobalIds() const;
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

  /// Maxima over the ranks, in place (MPI_Allreduce): for AdaptiveStepper's
  /// setMaxOverProcesses().
  std::function<void(double* values, int count)> maxOverRanks() const;

  /// sum over every rank's owned cells of x y. Needs setEquation().
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

  CartesianGrid grid_;  // the global one
  Decomposition decomposition_;
  MPI_Comm comm_;
  GpuAwareMpi mode_;
  HaloExchange<ExecSpace> halo_;
  std::unique_ptr<HaloExchange<ExecSpace>> blockHalo_;  // a system's values per cell
  DistributedGrid<ExecSpace> gridDistribution_;         // the split, for multigrid
  int ghostLayers_ = 1;
  int maxSweeps_ = 20;
  double sweepTolerance_ = 1e-8;
  bool sweepsGiven_ = false;  // a system's stepper keeps its own defaults otherwise
  Mesh<ExecSpace> mesh_;
  std::unique_ptr<ImplicitStepper<ExecSpace>> stepper_;  // owns the assembler, solver
  std::unique_ptr<CoupledStepper<ExecSpace>> coupledStepper_;  // or the system's
  std::unique_ptr<DistributedOperator<ExecSpace>> operator_;
  bool matrixFree_ = false;
  std::unique_ptr<LinearSolver<ExecSpace>> solver_;  // until setEquation()
  // Owned cells in row order; the local cell of each column of the owned rows; the
  // owned rows, the local matrix's entry each entry comes from; owned-entry vectors.
  DeviceView<Ordinal*, ExecSpace> ownedCells_;
  std::vector<Ordinal> columnCells_;
  CrsMatrix<ExecSpace> ownedRows_;
  DeviceView<Offset*, ExecSpace> entrySources_;
  Vector<ExecSpace> ownedRhs_, ownedX_;
};

}  // namespace kfvm

#endif
