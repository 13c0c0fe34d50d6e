#ifndef KFVM_LINEAR_OPERATOR_HPP
#define KFVM_LINEAR_OPERATOR_HPP

#include <kfvm_Blas1.hpp>
#include <kfvm_CartesianGrid.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_GridInterior.hpp>
#include <kfvm_VectorSpace.hpp>

#include <array>
#include <string>

namespace kfvm {

/// The entries of a structured grid's cells that have all their neighbours inside the
/// grid (GridInterior) when they share one diagonal value: that of entry
/// `representative`; -1 when there are none (the default). The matrix-free stencil with
/// constant coefficients has them (StencilOperator::uniformInteriorDiagonal()); Jacobi
/// passes them on to CG's fused iteration, which then reads w = 1 / diag only at the
/// grid's boundary cells.
struct UniformInteriorEntries {
  GridInterior interior;
  Ordinal representative = -1;

  UniformInteriorEntries() = default;
  UniformInteriorEntries(int dimension, const std::array<int, 3>& cells,
                         Ordinal representative_)
      : interior(dimension, cells), representative(representative_) {}

  /// True when entry is one of them.
  KOKKOS_INLINE_FUNCTION bool covers(Ordinal entry) const {
    return representative >= 0 && interior.covers(entry);
  }
  /// The entry whose value entry takes: representative for the covered ones.
  KOKKOS_INLINE_FUNCTION Ordinal valueEntry(Ordinal entry) const {
    return covers(entry) ? representative : entry;
  }
};

/// y = A x for kfvm's solvers: what a Krylov method and a preconditioner need of a
/// matrix, whether it is assembled or not, on one process or many (as Belos' Operator,
/// PETSc's Mat and MFEM's Operator). Host-side interface; the work runs on ExecSpace.
/// Nothing here assumes a structured grid.
///
/// Implementations: MatrixOperator (an assembled CRS matrix, also the block matrix of a
/// CoupledSystem), MatrixFreeOperator (the stencil of an Assembler), and
/// DistributedOperator (a rank's owned rows, kfvm::distributed).
template <class ExecSpace>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;

  /// What the operator is, for reports and errors ("CRS matrix", "matrix-free stencil").
  virtual std::string description() const = 0;
  /// The space of x and y (its size is the local vector length).
  virtual const VectorSpace<ExecSpace>& space() const = 0;
  Ordinal size() const { return space().size(); }
  /// y = A x on the owned entries of y; y's ghost entries become 0. x's ghost entries
  /// may be overwritten (a halo exchange fills them).
  virtual void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const = 0;
  /// y = A x, and x . y over all local entries into dot, which stays in device memory
  /// (not reduced across processes: for one process, as CG's fused iteration). One pass
  /// where the operator can fuse the two (the CRS rows, the stencil), else apply() and a
  /// reduction.
  virtual void applyAndDot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                           const DeviceScalar<ExecSpace>& dot) const {
    apply(x, y);
    Blas::dotInto(x, y, dot);
  }
  /// d = the diagonal of A (owned entries; ghosts 0).
  virtual void diagonal(const Vector<ExecSpace>& d) const = 0;
  /// The entries whose diagonal value is one number (see UniformInteriorEntries); none
  /// by default.
  virtual UniformInteriorEntries uniformDiagonal() const { return {}; }
  /// The assembled matrix whose owned rows are A's, or nullptr when there is none
  /// (matrix-free). Its rows and columns are numbered as the space's entries.
  virtual const CrsMatrix<ExecSpace>* matrix() const { return nullptr; }
  /// Unknowns per cell, interleaved (entry cell * blockSize + variable): 1 for a scalar
  /// equation, the number of variables of a coupled system.
  virtual int blockSize() const { return 1; }
  /// Bumped whenever the operator's structure changes (another matrix or mesh), so that a
  /// preconditioner knows whether a refill of values is all that happened.
  virtual long structureVersion() const { return 0; }
};

}  // namespace kfvm

#endif
