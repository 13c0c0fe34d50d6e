#ifndef KFVM_MATRIX_FREE_OPERATOR_HPP
#define KFVM_MATRIX_FREE_OPERATOR_HPP

#include <kfvm_LinearOperator.hpp>
#include <kfvm_StencilOperator.hpp>

namespace kfvm {

/// The matrix-free stencil of an Assembler as a LinearOperator on one process: y = A x
/// from the face coefficients and diagonal of the assembler's last assemble(), read in
/// place (StencilOperator), the same numbers as the assembled matrix to rounding. The
/// assembler must outlive the operator. Throws kfvm::Error for an equation with the
/// fourth-order term (its stencil reaches two cells; use the matrix).
template <class ExecSpace>
class MatrixFreeOperator final : public LinearOperator<ExecSpace> {
 public:
  explicit MatrixFreeOperator(const Assembler<ExecSpace>& assembler,
                              StencilLoop loop = StencilLoop::Auto);

  std::string description() const override { return "matrix-free stencil"; }
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override {
    stencil_.apply(x, y);
  }
  void applyAndDot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                   const DeviceScalar<ExecSpace>& dot) const override {
    stencil_.applyAndDot(x, y, dot);
  }
  void diagonal(const Vector<ExecSpace>& d) const override;
  /// The cells with all their neighbours, with constant coefficients (the stencil reads
  /// one diagonal entry for them: StencilOperator::uniformInteriorDiagonal()).
  UniformInteriorEntries uniformDiagonal() const override;
  const StencilOperator<ExecSpace>& stencil() const { return stencil_; }
  const Assembler<ExecSpace>& assembler() const { return *assembler_; }

 private:
  const Assembler<ExecSpace>* assembler_;
  StencilOperator<ExecSpace> stencil_;
  VectorSpace<ExecSpace> space_;
};

}  // namespace kfvm

#endif
