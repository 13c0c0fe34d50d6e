#ifndef KFVM_LINEAR_OPERATOR_HPP
#define KFVM_LINEAR_OPERATOR_HPP

#include <kfvm_Blas1.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_JacobiCgPasses.hpp>
#include <kfvm_VectorSpace.hpp>

#include <string>

namespace kfvm {

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
  /// CG's Jacobi-preconditioned iteration in two passes that compute A p themselves,
  /// where the operator offers them (JacobiCgPasses: the matrix-free stencil with uniform
  /// weights); nullptr otherwise.
  virtual const JacobiCgPasses<ExecSpace>* jacobiCgPasses() const { return nullptr; }
  /// d = the diagonal of A (owned entries; ghosts 0).
  virtual void diagonal(const Vector<ExecSpace>& d) const = 0;
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
