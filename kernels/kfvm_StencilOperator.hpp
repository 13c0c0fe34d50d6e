#ifndef KFVM_STENCIL_OPERATOR_HPP
#define KFVM_STENCIL_OPERATOR_HPP

#include <kfvm_Assembler.hpp>

namespace kfvm {

/// Matrix-free apply of the assembled operator on a structured grid: the 3-, 5- or
/// 7-point stencil read from the assembler's face coefficients and diagonal through
/// (i, j, k) indexing, with no matrix and no connectivity lookups. apply() gives the same
/// numbers as multiply(assembler.matrix(), x, y).
template <class ExecSpace>
class StencilOperator {
 public:
  explicit StencilOperator(const Assembler<ExecSpace>& assembler);

  /// y = A x, A the matrix of the assembler's last assemble().
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;

 private:
  const Assembler<ExecSpace>* assembler_;
};

}  // namespace kfvm

#endif
