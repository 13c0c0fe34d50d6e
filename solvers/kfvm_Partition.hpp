#ifndef KFVM_PARTITION_HPP
#define KFVM_PARTITION_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchanges).

#include <kfvm_Assembler.hpp>
#include <kfvm_DistributedGrid.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_LinearOperator.hpp>
#include <kfvm_MeshHaloExchange.hpp>
#include <kfvm_MeshPartition.hpp>

#include <mpi.h>

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kfvm {

/// This rank's cells and their ghost layers: its share of a mesh split across the ranks
/// of a communicator, as a DistributedSystem solves on it. localMesh() holds the owned
/// cells and the ghosts; a ghost holds its owner's value after exchange(). Two makers:
/// GridBlocks (blocks of a Cartesian grid, a Decomposition) and MeshParts (parts of a
/// general mesh, by METIS or recursive coordinate bisection). What differs between them
/// is here; everything built on a partition is written once, in DistributedSystem.
template <class ExecSpace>
class Partition {
 public:
  virtual ~Partition() = default;
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  const Mesh<ExecSpace>& localMesh() const { return *mesh_; }
  MPI_Comm communicator() const { return comm_; }
  int rank() const { return rank_; }
  int ghostLayers() const { return ghostLayers_; }
  /// The global id of every local cell (the global mesh's cell numbering).
  const std::vector<long long>& localGlobalIds() const { return globalIds_; }
  /// The local cells this rank owns, in the order of its rows of the global matrix.
  const std::vector<Ordinal>& ownedCells() const { return owned_; }
  bool isOwned(Ordinal cell) const { return isOwned_[std::size_t(cell)] != 0; }

  /// Fills the ghosts of x, `components` values per local cell (interleaved), from the
  /// ranks that own them. Collective; the first exchange of a count sets it up.
  virtual void exchange(const Vector<ExecSpace>& x, int components = 1) = 0;
  /// True when the local mesh's patch lies on the global mesh's boundary.
  virtual bool isPhysical(Patch patch) const = 0;
  /// Throws kfvm::Error naming a condition on a patch where this rank's cells end
  /// (variable: the system's variable, or -1 for an equation's).
  virtual void checkConditions(const BoundaryConditions<ExecSpace>& conditions,
                               int variable) const = 0;
  /// Throws kfvm::Error when the equation reads cells beyond the ghost layers.
  virtual void checkReach(const Equation<ExecSpace>& equation) const = 0;
  /// The owned rows of an equation's assembled matrix (the assembler outlives it), or of
  /// a block matrix of `components` unknowns per cell: products exchange x's ghosts, dot
  /// products sum over the ranks.
  virtual std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(
      const Assembler<ExecSpace>& assembler) = 0;
  virtual std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(
      const CrsMatrix<ExecSpace>& matrix, int components) = 0;
  /// Products of rows (made by rowsOf(assembler)) by the matrix-free stencil; throws
  /// kfvm::Error where the partition has none.
  virtual void setMatrixFree(LinearOperator<ExecSpace>& rows, bool on) = 0;
  /// How a Cartesian grid is split, for geometric multigrid; nullptr on a general mesh.
  virtual const GridDistribution<ExecSpace>* gridDistribution() const { return nullptr; }

 protected:
  /// Throws kfvm::Error when MPI cannot name this rank.
  Partition(MPI_Comm comm, int ghostLayers) : comm_(comm), ghostLayers_(ghostLayers) {
    require(MPI_Comm_rank(comm, &rank_) == MPI_SUCCESS,
            "partition: MPI_Comm_rank failed");
  }
  /// Sets the local mesh, its cells' global ids and the owned ones.
  void setCells(Mesh<ExecSpace> mesh, std::vector<long long> globalIds,
                std::vector<Ordinal> owned);

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int ghostLayers_;
  std::optional<Mesh<ExecSpace>> mesh_;  // set by the maker's constructor
  std::vector<long long> globalIds_;
  std::vector<Ordinal> owned_;
  std::vector<char> isOwned_;
};

/// The blocks of a Cartesian grid (a Decomposition), each with ghostLayers layers of
/// ghost cells towards its neighbouring ranks (GhostedBlock order). Its products overlap
/// the face exchange with the block's interior, and may run matrix-free.
template <class ExecSpace>
class GridBlocks final : public Partition<ExecSpace> {
 public:
  /// grid: the global grid; decomposition: its split over comm's ranks. ghostLayers: 1,
  /// or 2 for TVD convection and the fourth-order term. Collective; throws kfvm::Error
  /// for a decomposition of another grid.
  GridBlocks(const CartesianGrid& grid, const Decomposition& decomposition, MPI_Comm comm,
             GpuAwareMpi mode = GpuAwareMpi::Auto, int ghostLayers = 1);

  const CartesianGrid& grid() const { return grid_; }
  const Decomposition& decomposition() const { return halo_.decomposition(); }
  const GhostedBlock& layout() const { return halo_.layout(); }
  /// The exchange of one value per cell (fields, output, checkpoints).
  HaloExchange<ExecSpace>& halo() { return halo_; }

  void exchange(const Vector<ExecSpace>& x, int components = 1) override;
  bool isPhysical(Patch patch) const override;
  void checkConditions(const BoundaryConditions<ExecSpace>& conditions,
                       int variable) const override;
  void checkReach(const Equation<ExecSpace>& equation) const override;
  std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(
      const Assembler<ExecSpace>& assembler) override;
  std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(const CrsMatrix<ExecSpace>& matrix,
                                                    int components) override;
  void setMatrixFree(LinearOperator<ExecSpace>& rows, bool on) override;
  const GridDistribution<ExecSpace>* gridDistribution() const override {
    return &distribution_;
  }

 private:
  HaloExchange<ExecSpace>& haloOf(int components);

  CartesianGrid grid_;  // the global one
  GpuAwareMpi mode_;
  HaloExchange<ExecSpace> halo_;
  std::map<int, std::unique_ptr<HaloExchange<ExecSpace>>> blockHalos_;
  DistributedGrid<ExecSpace> distribution_;
};

/// The parts of a general mesh: every rank gives the whole mesh, it is partitioned
/// (partitionCells()) the same way on every rank, and each rank keeps its cells and
/// ghostLayers layers of the cells around them (part(): owned cells first). The faces
/// beyond the last layer go on the patch MeshPart::cutPatch, which takes no condition.
template <class ExecSpace>
class MeshParts final : public Partition<ExecSpace> {
 public:
  /// Collective over comm. Throws kfvm::Error for a bad layer count, or a mesh with
  /// fewer cells than ranks.
  MeshParts(const MeshTopology& topology, MPI_Comm comm, int ghostLayers = 1,
            PartitionMethod method = PartitionMethod::Default,
            GpuAwareMpi mode = GpuAwareMpi::Auto);

  /// This rank's part (its topology, global cells and ghost owners); local cells
  /// 0 .. part().ownedCells - 1 are this rank's.
  const MeshPart& part() const { return part_; }
  /// The rank owning every global cell.
  const std::vector<int>& owners() const { return owners_; }
  /// The exchange of one value per cell (fields, output).
  MeshHaloExchange<ExecSpace>& halo() { return halo_; }

  void exchange(const Vector<ExecSpace>& x, int components = 1) override;
  bool isPhysical(Patch) const override { return true; }
  void checkConditions(const BoundaryConditions<ExecSpace>& conditions,
                       int variable) const override;
  void checkReach(const Equation<ExecSpace>& equation) const override;
  std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(
      const Assembler<ExecSpace>& assembler) override;
  std::unique_ptr<LinearOperator<ExecSpace>> rowsOf(const CrsMatrix<ExecSpace>& matrix,
                                                    int components) override;
  void setMatrixFree(LinearOperator<ExecSpace>& rows, bool on) override;

 private:
  MeshParts(const MeshTopology& topology, const MeshTopology::Connectivity& connectivity,
            MPI_Comm comm, int ghostLayers, PartitionMethod method, GpuAwareMpi mode);
  MeshHaloExchange<ExecSpace>& haloOf(int components);

  GpuAwareMpi mode_;
  std::vector<int> owners_;
  MeshPart part_;
  MeshHaloExchange<ExecSpace> halo_;
  std::map<int, std::unique_ptr<MeshHaloExchange<ExecSpace>>> blockHalos_;
};

template <class ExecSpace>
void Partition<ExecSpace>::setCells(Mesh<ExecSpace> mesh,
                                    std::vector<long long> globalIds,
                                    std::vector<Ordinal> owned) {
  mesh_.emplace(std::move(mesh));
  globalIds_ = std::move(globalIds);
  owned_ = std::move(owned);
  isOwned_.assign(globalIds_.size(), 0);
  for (const Ordinal cell : owned_) isOwned_[std::size_t(cell)] = 1;
}

}  // namespace kfvm

#endif
