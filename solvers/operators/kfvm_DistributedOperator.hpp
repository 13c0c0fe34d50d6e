#ifndef KFVM_DISTRIBUTED_OPERATOR_HPP
#define KFVM_DISTRIBUTED_OPERATOR_HPP

// Part of kfvm::distributed (it needs MPI and the halo exchange).

#include <kfvm_Assembler.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_LinearOperator.hpp>
#include <kfvm_StencilOperator.hpp>

#include <mpi.h>

#include <array>
#include <memory>
#include <utility>
#include <vector>

namespace kfvm {

/// One rank's owned rows of a distributed operator: vectors hold the rank's cells with
/// their ghost layers (GhostedBlock order), the owned entries are the rank's part of the
/// global vector, and dot products sum over the communicator. apply() exchanges x's
/// ghosts and multiplies the owned rows, the exchange of faces overlapping the rows that
/// do not touch a ghost, by the assembled local matrix or the matrix-free stencil
/// (setMatrixFree()). With the fourth-order term (rows reaching edge and corner ghosts)
/// the whole exchange comes first, without overlap.
///
/// matrix() is the local matrix, ghost rows included: a local preconditioner (ILU(0))
/// factorizes it and its result is cut to the owned entries, block Jacobi across ranks
/// with one layer of overlap.
template <class ExecSpace>
class DistributedOperator final : public LinearOperator<ExecSpace> {
 public:
  /// The assembler (of an equation on the ghosted local mesh) and halo must outlive it.
  DistributedOperator(HaloExchange<ExecSpace>& halo, MPI_Comm comm,
                      const Assembler<ExecSpace>& assembler);
  /// The owned rows of a block matrix on the ghosted block (a CoupledSystem's: blockSize
  /// unknowns per cell, interleaved), its halo exchanging blockSize values per cell. The
  /// matrix and halo must outlive it.
  DistributedOperator(HaloExchange<ExecSpace>& halo, MPI_Comm comm,
                      const CrsMatrix<ExecSpace>& matrix, int blockSize);

  /// Products by the stencil instead of the matrix; refused with the fourth-order term.
  void setMatrixFree(bool on);
  bool matrixFree() const { return stencil_ != nullptr; }

  std::string description() const override;
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override;
  void diagonal(const Vector<ExecSpace>& d) const override;
  const CrsMatrix<ExecSpace>* matrix() const override;
  long structureVersion() const override { return version_; }
  int blockSize() const override { return blockSize_; }

 private:
  HaloExchange<ExecSpace>* halo_;
  const Assembler<ExecSpace>* assembler_ = nullptr;  // a scalar equation's
  const CrsMatrix<ExecSpace>* matrix_;
  int blockSize_ = 1;
  VectorSpace<ExecSpace> space_;
  bool fullExchange_ = false;  // products exchange edges and corners too
  // Owned cells with no ghost neighbour, and those next to a ghost.
  DeviceView<Ordinal*, ExecSpace> innerRows_, edgeRows_;
  // The matrix-free product: the stencil, the block's interior and rim (local cells).
  std::unique_ptr<StencilOperator<ExecSpace>> stencil_;
  std::array<int, 3> innerBegin_{}, innerEnd_{};
  std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> rimBoxes_;
  // Distinct for every operator made (Details::newStructureVersion()): an operator made
  // where an earlier one was is not taken for it by a preconditioner's setup.
  long version_;
};

}  // namespace kfvm

#endif
