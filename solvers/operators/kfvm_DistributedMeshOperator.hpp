#ifndef KFVM_DISTRIBUTED_MESH_OPERATOR_HPP
#define KFVM_DISTRIBUTED_MESH_OPERATOR_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchange).

#include <kfvm_Assembler.hpp>
#include <kfvm_LinearOperator.hpp>
#include <kfvm_MeshHaloExchange.hpp>

#include <string>

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

}  // namespace kfvm

#endif
