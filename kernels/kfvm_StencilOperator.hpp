#ifndef KFVM_STENCIL_OPERATOR_HPP
#define KFVM_STENCIL_OPERATOR_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_BlockReduction.hpp>

#include <array>

namespace kfvm {

namespace Details {
template <class ExecSpace>
struct StencilData;
}

/// How the matrix-free apply walks the grid (perf/RESULTS.md has the measurements).
///  - Rows: one work item per (j, k) row of cells, an inner loop over i (contiguous in
///    memory) whose cells with both x neighbours run branch-free (it vectorizes); rows
///    are taken in tiles of 8 along j, marching up k. The default on host memory spaces
///    (several times faster than Cells there).
///  - Cells: one work item per cell, (i, j, k) decoded by integer division.
///  - Teams: one team per (j, k) row, its threads over i: coalesced, no integer division.
///  - Columns: one work item per (i, j) and chunk of 8 cells along k, marching up the
///    chunk with x and the z-face weight carried in registers; work items form 32 x 4
///    tiles in (i, j). The default on device memory spaces (closest to copy bandwidth
///    there; figures in perf/RESULTS.md).
///  - StreamingRows: Rows, writing y with streaming (non-temporal) stores on x86-64
///    hosts, which write whole cache lines without first reading them (as memcpy does);
///    a normal store reads each line of y before writing it. Elsewhere the same as Rows.
/// All give the same numbers. A grid with periodic axes takes one loop whatever the
/// choice: one work item per cell, its neighbours wrapping around the periodic axes.
enum class StencilLoop { Auto, Rows, Columns, Cells, Teams, StreamingRows };

/// Matrix-free apply of the assembled operator on a structured grid: the 3-, 5- or
/// 7-point stencil read from the assembler's face coefficients and diagonal through
/// (i, j, k) indexing, with no matrix and no connectivity lookups. apply() gives the same
/// numbers as multiply(assembler.matrix(), x, y) (to rounding). With a constant diffusion
/// coefficient on a uniform grid and no convection, the interior face weights are one
/// number per axis, and apply() reads only x and the diagonal (uniformWeights()); with
/// constant transient and source coefficients too, the diagonal only at the grid's
/// boundary cells (uniformInteriorDiagonal()).
template <class ExecSpace>
class StencilOperator {
 public:
  explicit StencilOperator(const Assembler<ExecSpace>& assembler,
                           StencilLoop loop = StencilLoop::Auto);

  /// y = A x, A the matrix of the assembler's last assemble().
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;
  /// y = A x, and x . y into xDotY (device memory): one pass with the Columns loop (the
  /// product and dot of a CG iteration); the other loops apply, then reduce.
  void applyAndDot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                   const DeviceScalar<ExecSpace>& xDotY) const;
  /// y = A x on the cells of a box only, [begin, end) cell indices per axis; the rest of
  /// y is untouched. A rank's block apart from its rim, then the rim, so that a halo
  /// exchange overlaps the first. Rows loop on host memory, one item per cell otherwise.
  /// Throws kfvm::Error naming a box that is not inside the grid.
  void applyBox(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                const std::array<int, 3>& begin, const std::array<int, 3>& end) const;
  /// True when the interior weights are one number per axis (see above).
  bool uniformWeights() const { return uniform_; }
  /// True when, moreover, every cell with all its neighbours has the same diagonal
  /// (constant transient and implicit source coefficients, at least 3 cells per axis):
  /// apply() then reads one diagonal entry for all of them, and x and y alone per cell.
  bool uniformInteriorDiagonal() const { return interiorCell_ >= 0; }
  /// With uniformInteriorDiagonal(), the cell whose diagonal entry stands for every cell
  /// with all its neighbours; -1 otherwise.
  Ordinal interiorCell() const { return interiorCell_; }
  StencilLoop loop() const { return loop_; }

 private:
  Details::StencilData<ExecSpace> stencilData(const Vector<ExecSpace>& x,
                                              const Vector<ExecSpace>& y) const;
  /// y = A x on a box of a periodic grid (the loop that wraps around its axes).
  void applyPeriodic(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y,
                     const std::array<int, 3>& begin,
                     const std::array<int, 3>& end) const;
  const Assembler<ExecSpace>* assembler_;
  StencilLoop loop_;
  BlockReduction<double, ExecSpace> dotSums_;  // applyAndDot's, with the Columns loop
  bool uniform_ = false;
  bool periodic_ = false;  // some axis of the grid is periodic
  Real weights_[3] = {0, 0, 0};
  Ordinal interiorCell_ = -1;
};

}  // namespace kfvm

#endif
