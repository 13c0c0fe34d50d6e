#ifndef KFVM_MATRIX_OPERATOR_HPP
#define KFVM_MATRIX_OPERATOR_HPP

#include <kfvm_LinearOperator.hpp>

namespace kfvm {

/// A square assembled CRS matrix as a LinearOperator on one process. The matrix is held
/// by reference (its Views): refilled values are seen at once. setMatrix() points it at
/// another matrix; the structure version changes when the Views do.
template <class ExecSpace>
class MatrixOperator final : public LinearOperator<ExecSpace> {
 public:
  MatrixOperator() = default;
  /// blockSize: unknowns per cell, interleaved (a CoupledSystem's variables).
  explicit MatrixOperator(const CrsMatrix<ExecSpace>& matrix, int blockSize = 1);

  /// Throws kfvm::Error naming a matrix that is empty or not square, or a block size
  /// that does not divide its rows.
  void setMatrix(const CrsMatrix<ExecSpace>& matrix, int blockSize = 1);

  std::string description() const override;
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override;
  void applyAndDot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                   const DeviceScalar<ExecSpace>& dot) const override;
  void diagonal(const Vector<ExecSpace>& d) const override;
  const CrsMatrix<ExecSpace>* matrix() const override { return &matrix_; }
  int blockSize() const override { return blockSize_; }
  long structureVersion() const override { return version_; }

 private:
  CrsMatrix<ExecSpace> matrix_;
  VectorSpace<ExecSpace> space_;
  int blockSize_ = 1;
  long version_ = 0;
};

/// The diagonal of a CRS matrix's rows: d(row) = A(row, row), 0 where the entry is
/// missing. Used by MatrixOperator and the distributed operator.
template <class ExecSpace>
void matrixDiagonal(const CrsMatrix<ExecSpace>& matrix, const Vector<ExecSpace>& d);

}  // namespace kfvm

#endif
