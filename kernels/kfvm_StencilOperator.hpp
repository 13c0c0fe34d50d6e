#ifndef KFVM_STENCIL_OPERATOR_HPP
#define KFVM_STENCIL_OPERATOR_HPP

#include <kfvm_Assembler.hpp>

namespace kfvm {

/// How the matrix-free apply walks the grid.
///  - Rows: one work item per (j, k) row of cells, an inner loop over i (contiguous in
///    memory); the default on host memory spaces (measured 1.8x faster than Cells with
///    OpenMP on 16 cores at 256^3).
///  - Cells: one work item per cell, (i, j, k) decoded by integer division; the default
///    on device memory spaces (0.94 of copy bandwidth on an H200 at 256^3).
///  - Columns: one work item per (i, j), marching along k and carrying x and the z-face
///    coefficient in registers. Measured slower on the H200 (0.44 of copy at 256^3: too
///    few work items, each serial in k); kept for comparison.
/// All give the same numbers.
enum class StencilLoop { Auto, Rows, Columns, Cells };

/// Matrix-free apply of the assembled operator on a structured grid: the 3-, 5- or
/// 7-point stencil read from the assembler's face coefficients and diagonal through
/// (i, j, k) indexing, with no matrix and no connectivity lookups. apply() gives the same
/// numbers as multiply(assembler.matrix(), x, y).
template <class ExecSpace>
class StencilOperator {
 public:
  explicit StencilOperator(const Assembler<ExecSpace>& assembler,
                           StencilLoop loop = StencilLoop::Auto);

  /// y = A x, A the matrix of the assembler's last assemble().
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;

 private:
  const Assembler<ExecSpace>* assembler_;
  StencilLoop loop_;
};

}  // namespace kfvm

#endif
