#ifndef KFVM_STENCIL_OPERATOR_HPP
#define KFVM_STENCIL_OPERATOR_HPP

#include <kfvm_Assembler.hpp>

namespace kfvm {

/// How the matrix-free apply walks the grid.
///  - Rows: one work item per (j, k) row of cells, an inner loop over i (contiguous in
///    memory), rows taken in tiles of 8 along j marching up k; the default on host
///    memory spaces (measured 1.8x faster than Cells with
///    OpenMP on 16 cores at 256^3).
///  - Cells: one work item per cell, (i, j, k) decoded by integer division; the default
///    on device memory spaces (0.94 of copy bandwidth on an H200 at 256^3).
///  - Teams: one team per (j, k) row, its threads over i: coalesced, no integer division.
///  - Columns: one work item per (i, j) and chunk of 8 cells along k, marching up the
///    chunk and carrying x and the z-face coefficient in registers (whole columns, one
///    work item each, measured 0.44 of copy on the H200 at 256^3: too few work items).
/// Rows treats the cells with both x neighbours in one branch-free loop per row (which
/// vectorizes). All give the same numbers.
enum class StencilLoop { Auto, Rows, Columns, Cells, Teams };

/// Matrix-free apply of the assembled operator on a structured grid: the 3-, 5- or
/// 7-point stencil read from the assembler's face coefficients and diagonal through
/// (i, j, k) indexing, with no matrix and no connectivity lookups. apply() gives the same
/// numbers as multiply(assembler.matrix(), x, y) (to rounding). With a constant diffusion
/// coefficient on a uniform grid and no convection, the interior face weights are one
/// number per axis, and apply() reads only x and the diagonal (uniformWeights()).
template <class ExecSpace>
class StencilOperator {
 public:
  explicit StencilOperator(const Assembler<ExecSpace>& assembler,
                           StencilLoop loop = StencilLoop::Auto);

  /// y = A x, A the matrix of the assembler's last assemble().
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;
  /// True when the interior weights are one number per axis (see above).
  bool uniformWeights() const { return uniform_; }
  StencilLoop loop() const { return loop_; }

 private:
  const Assembler<ExecSpace>* assembler_;
  StencilLoop loop_;
  bool uniform_ = false;
  Real weights_[3] = {0, 0, 0};
};

}  // namespace kfvm

#endif
