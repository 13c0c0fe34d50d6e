#ifndef KFVM_LEVEL_COLUMNS_HPP
#define KFVM_LEVEL_COLUMNS_HPP

// A uniform 3D level split for its sweeps: an interior box, where every cell of a
// sweep's stencil takes the level's uniform numbers, swept in column chunks by a lean
// kernel (no coefficient array, no branch, every load of a chunk before its first
// store), and the shell around it, swept cell by cell in the general form (Details;
// included by kfvm_LevelSweeps.cpp only).
// On a GPU the interior chunks run well above one cell a thread, and far above chunks
// with the boundary in the same kernel (too many registers); figures in perf/RESULTS.md.

#include <kfvm_GridLevel.hpp>
#include <kfvm_StencilColumnTiles.hpp>

namespace kfvm::Details {

/// The interior box of a level [lo, hi) at margin cells from each side (along z a whole
/// number of chunks) and the shell around it as up to six boxes, concatenated.
struct LevelBoxes {
  static constexpr int depth = StencilColumnTiles::depth;
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  StencilColumnTiles tiles;  // over the interior box's extents
  int shells = 0;
  int shellLo[6][3] = {}, shellHi[6][3] = {};
  Ordinal shellStart[7] = {};
  int nx = 0, ny = 0;

  LevelBoxes() = default;
  LevelBoxes(const std::array<int, 3>& cells, int margin) : nx(cells[0]), ny(cells[1]) {
    const int chunks = cells[2] > 2 * margin ? (cells[2] - 2 * margin) / depth : 0;
    bool empty = chunks == 0;
    for (int a = 0; a < 2; ++a) empty = empty || cells[a] <= 2 * margin;
    for (int a = 0; a < 3; ++a) {
      lo[a] = empty ? 0 : margin;
      hi[a] = empty ? 0 : a < 2 ? cells[a] - margin : margin + chunks * depth;
    }
    if (!empty) tiles = StencilColumnTiles({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    // The shell: below and above the box (whole planes), then beside it along y (whole
    // rows) and along x, over the box's z range.
    const auto add = [&](int i0, int i1, int j0, int j1, int k0, int k1) {
      if (i1 <= i0 || j1 <= j0 || k1 <= k0) return;
      const int b[2][3] = {{i0, j0, k0}, {i1, j1, k1}};
      for (int a = 0; a < 3; ++a) {
        shellLo[shells][a] = b[0][a];
        shellHi[shells][a] = b[1][a];
      }
      shellStart[shells + 1] =
          shellStart[shells] + Ordinal(i1 - i0) * (j1 - j0) * Ordinal(k1 - k0);
      ++shells;
    };
    if (empty) {
      add(0, cells[0], 0, cells[1], 0, cells[2]);
      return;
    }
    add(0, cells[0], 0, cells[1], 0, lo[2]);
    add(0, cells[0], 0, cells[1], hi[2], cells[2]);
    add(0, cells[0], 0, lo[1], lo[2], hi[2]);
    add(0, cells[0], hi[1], cells[1], lo[2], hi[2]);
    add(0, lo[0], lo[1], hi[1], lo[2], hi[2]);
    add(hi[0], cells[0], lo[1], hi[1], lo[2], hi[2]);
  }

  /// Work items of the interior kernel and cells of the shell.
  Ordinal interiorItems() const { return tiles.items; }
  Ordinal shellCells() const { return shellStart[shells]; }

  /// The interior chunk of work item index: its column (i, j) and first k; false when
  /// the item lies outside the box.
  KOKKOS_INLINE_FUNCTION bool chunkOf(Ordinal index, int& i, int& j, int& kBegin) const {
    if (!tiles.chunkOf(index, i, j, kBegin)) return false;
    i += lo[0];
    j += lo[1];
    kBegin += lo[2];
    return true;
  }
  /// The shell's index-th cell: its number and indices.
  KOKKOS_INLINE_FUNCTION Ordinal shellCell(Ordinal index, int idx[3]) const {
    int s = 0;
    while (s + 1 < shells && index >= shellStart[s + 1]) ++s;
    const Ordinal local = index - shellStart[s];
    const int ex = shellHi[s][0] - shellLo[s][0], ey = shellHi[s][1] - shellLo[s][1];
    const Ordinal row = local / ex;
    idx[0] = shellLo[s][0] + int(local - row * ex);
    idx[1] = shellLo[s][1] + int(row % ey);
    idx[2] = shellLo[s][2] + int(row / ey);
    return idx[0] + Ordinal(nx) * (idx[1] + Ordinal(ny) * idx[2]);
  }
};

/// What the interior kernels compute (LevelInteriorColumns).
enum class ColumnSweep { Residual, Step, Start };

/// A sweep over the interior box's column chunks, uniform numbers only:
/// Residual: out = b - A x; Step: out = x + a (x - previous) + c D^-1 (b - A x), previous
/// read, or startScale D^-1 b when startScale is not 0, or 0 when a is 0 or previous is
/// empty; Start: out = (1 + a) x1 + c D^-1 (b - A x1), x1 = scale D^-1 b (the box at
/// margin 2: x1's stencil inside too).
template <class ExecSpace, ColumnSweep Kind>
struct LevelInteriorColumns {
  static constexpr int depth = StencilColumnTiles::depth;
  LevelBoxes boxes;
  Real f0, f1, f2, diagonal;
  Vector<ExecSpace> b, x, previous, out;
  Real a, c, scale;  // scale: Step's startScale, Start's scale

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    int i, j, kBegin;
    if (!boxes.chunkOf(index, i, j, kBegin)) return;
    const int nx = boxes.nx;
    const Ordinal plane = Ordinal(nx) * boxes.ny;
    const Ordinal start = i + Ordinal(nx) * j + plane * kBegin;
    // Start reads b where the others read x.
    const Real* KOKKOS_RESTRICT xs =
        (Kind == ColumnSweep::Start ? b.data() : x.data()) + start;
    const Real* KOKKOS_RESTRICT bs = b.data() + start;
    Real column[depth + 2], side[depth], rhs[depth], before[depth];
    column[0] = xs[-plane];
    for (int m = 0; m <= depth; ++m) column[m + 1] = xs[m * plane];
    for (int m = 0; m < depth; ++m) {
      const Real* KOKKOS_RESTRICT here = xs + m * plane;
      side[m] = f0 * (here[-1] + here[1]) + f1 * (here[-nx] + here[nx]);
    }
    if (Kind != ColumnSweep::Start)
      for (int m = 0; m < depth; ++m) rhs[m] = bs[m * plane];
    // previous too before the first store: out may be previous (in place). Divisions
    // by the one diagonal are multiplications (a division per cell took the kernel from
    // 72 to 126 registers on sm_90).
    const Real inverse = 1 / diagonal, cOverD = c * inverse, k = scale * inverse;
    const bool reads =
        Kind == ColumnSweep::Step && a != 0 && scale == 0 && previous.data() != nullptr;
    if (Kind == ColumnSweep::Step) {
      const Real* ps = reads ? previous.data() + start : nullptr;
      for (int m = 0; m < depth; ++m) before[m] = reads ? ps[m * plane] : k * rhs[m];
    }
    Real* outs = out.data() + start;  // may be previous: not restrict
    for (int m = 0; m < depth; ++m) {
      const Real product =
          diagonal * column[m + 1] - side[m] - f2 * (column[m] + column[m + 2]);
      if (Kind == ColumnSweep::Residual) {
        outs[m * plane] = rhs[m] - product;
      } else if (Kind == ColumnSweep::Step) {
        const Real xc = column[m + 1];
        outs[m * plane] = xc + a * (xc - before[m]) + cOverD * (rhs[m] - product);
      } else {  // x1 = k b: A x1 = k A b
        const Real bc = column[m + 1];
        outs[m * plane] = (1 + a) * k * bc + cOverD * (bc - k * product);
      }
    }
  }
};

}  // namespace kfvm::Details

#endif
