#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_LevelSweeps.hpp>

#include "detail/kfvm_LevelStencil.hpp"

namespace kfvm {

namespace Details {

/// The residual (Step = false: out = b - A x) or a Chebyshev step (Step: out = x +
/// a (x - previous) + c D^-1 (b - A x), previous = startScale D^-1 b when startScale is
/// not 0), by cells or by column chunks.
template <class ExecSpace, bool Step>
struct LevelSweep {
  struct Cells {};
  struct Columns {};
  static constexpr int depth = StencilColumnTiles::depth;

  LevelGeometry<ExecSpace> g;
  StencilColumnTiles tiles;
  Vector<ExecSpace> b, x, previous, out;
  Real a, c, startScale;

  /// True when the step reads previous (a != 0 and previous given).
  KOKKOS_INLINE_FUNCTION bool readsPrevious() const {
    return Step && a != 0 && startScale == 0 && previous.data() != nullptr;
  }
  /// The previous iterate at a cell of right-hand side rhs and diagonal.
  KOKKOS_INLINE_FUNCTION Real previousAt(Ordinal cell, Real rhs, Real diagonal) const {
    if (Step && startScale != 0) return startScale * rhs / diagonal;
    return readsPrevious() ? previous(cell) : Real(0);
  }
  /// The new value at a cell of x value xc, previous value p, residual and diagonal.
  KOKKOS_INLINE_FUNCTION Real value(Real xc, Real p, Real residual, Real diagonal) const {
    if (!Step) return residual;
    return xc + a * (xc - p) + c * residual / diagonal;
  }

  KOKKOS_INLINE_FUNCTION void at(Ordinal cell, const int idx[3]) const {
    Real diagonal;
    const Real rhs = b(cell);
    const Real residual = rhs - g.product(cell, idx, x, diagonal);
    out(cell) = value(x(cell), previousAt(cell, rhs, diagonal), residual, diagonal);
  }

  KOKKOS_FUNCTION void operator()(Cells, Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    at(cell, idx);
  }

  KOKKOS_FUNCTION void operator()(Columns, Ordinal index) const {
    int i, j, kBegin;
    if (!tiles.chunkOf(index, i, j, kBegin)) return;
    const int nx = g.d.cells[0], ny = g.d.cells[1], nz = g.d.cells[2];
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal start = i + Ordinal(nx) * j + plane * kBegin;
    if (i == 0 || i + 1 == nx || j == 0 || j + 1 == ny || kBegin == 0 ||
        kBegin + depth >= nz) {  // a chunk at the boundary: cell by cell
      for (int k = kBegin; k < nz && k < kBegin + depth; ++k) {
        const int idx[3] = {i, j, k};
        at(start + plane * (k - kBegin), idx);
      }
      return;
    }
    const Real f0 = g.d.uniformFaces[0], f1 = g.d.uniformFaces[1];
    const Real f2 = g.d.uniformFaces[2], diagonal = g.d.uniformDiagonal;
    const Real* KOKKOS_RESTRICT xs = x.data() + start;
    const Real* KOKKOS_RESTRICT bs = b.data() + start;
    Real column[depth + 2], side[depth], rhs[depth];
    column[0] = xs[-plane];
    for (int m = 0; m <= depth; ++m) column[m + 1] = xs[m * plane];
    for (int m = 0; m < depth; ++m) {
      const Real* KOKKOS_RESTRICT here = xs + m * plane;
      side[m] = f0 * (here[-1] + here[1]) + f1 * (here[-nx] + here[nx]);
    }
    for (int m = 0; m < depth; ++m) rhs[m] = bs[m * plane];
    // previous too before the first store: out may be previous (in place), so a load
    // after a store would wait for it.
    Real before[depth];
    const bool reads = readsPrevious();
    for (int m = 0; m < depth; ++m)
      before[m] = reads ? previous(start + m * plane) : previousAt(0, rhs[m], diagonal);
    Real* outs = out.data() + start;  // may be previous: not restrict
    for (int m = 0; m < depth; ++m) {
      const Real product =
          diagonal * column[m + 1] - side[m] - f2 * (column[m] + column[m + 2]);
      outs[m * plane] = value(column[m + 1], before[m], rhs[m] - product, diagonal);
    }
  }
};

/// The first two steps of a Chebyshev iteration from 0 in one pass over b:
/// out = (1 + a) x1 + c D^-1 (b - A x1) with x1 = scale D^-1 b computed where the
/// stencil reads it (on one process: b's ghosts are not exchanged).
template <class ExecSpace>
struct LevelChebyshevStart {
  LevelGeometry<ExecSpace> g;
  Vector<ExecSpace> b, out;
  Real scale, a, c;
  /// scale D^-1 b at any cell.
  struct Scaled {
    Vector<ExecSpace> b;
    DeviceView<Real*, ExecSpace> diagonal;
    Real scale;
    KOKKOS_INLINE_FUNCTION Real operator()(Ordinal cell) const {
      return scale * b(cell) / diagonal(cell);
    }
  };
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    const Real rhs = b(cell);
    if (g.d.uniform && g.d.dimension == 3 && g.farInside(idx)) {  // one diagonal
      const Real diagonal = g.d.uniformDiagonal, k = scale / diagonal;
      Real ignored;  // x1 = k b on the whole stencil
      const Real product = k * g.product(cell, idx, b, ignored);
      out(cell) = (1 + a) * k * rhs + c * (rhs - product) / diagonal;
      return;
    }
    const Scaled x1{b, g.d.diagonal, scale};
    Real diagonal;
    const Real residual = rhs - g.product(cell, idx, x1, diagonal);
    out(cell) = (1 + a) * x1(cell) + c * residual / diagonal;
  }
};

/// x = scale D^-1 b.
template <class ExecSpace>
struct LevelScaledJacobi {
  LevelGeometry<ExecSpace> g;
  Vector<ExecSpace> b, x;
  Real scale;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    x(cell) = scale * b(cell) / g.diagonal(cell, idx);
  }
};

/// The cells of one colour (the parity of their global indices, the same across ranks):
/// x_i += (b - A x)_i / A_ii (fromZero: x_i = b_i / A_ii, the other colour 0).
template <class ExecSpace>
struct LevelGaussSeidel {
  LevelGeometry<ExecSpace> g;
  Vector<ExecSpace> b, x;
  int color;
  bool fromZero;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    const int sum = idx[0] + idx[1] + idx[2] + g.d.first[0] + g.d.first[1] + g.d.first[2];
    if ((sum & 1) != color) {
      if (fromZero) x(cell) = 0;
      return;
    }
    if (fromZero) {
      x(cell) = b(cell) / g.diagonal(cell, idx);
      return;
    }
    Real diagonal;
    const Real residual = b(cell) - g.product(cell, idx, x, diagonal);
    x(cell) += residual / diagonal;
  }
};

}  // namespace Details

template <class ExecSpace>
LevelSweeps<ExecSpace>::LevelSweeps(const GridLevel<ExecSpace>& level, bool columns)
    : level_(&level), tiles_(level.cells()), columns_(columns) {}

template <class ExecSpace>
template <bool Step>
void LevelSweeps<ExecSpace>::sweep(const char* label, const Vector<ExecSpace>& b,
                                   const Vector<ExecSpace>& x,
                                   const Vector<ExecSpace>& previous,
                                   const Vector<ExecSpace>& out, Real a, Real c,
                                   Real startScale) const {
  using Sweep = Details::LevelSweep<ExecSpace, Step>;
  const auto& data = level_->data();
  const Sweep body{{data}, tiles_, b, x, previous, out, a, c, startScale};
  if (columns_ && data.uniform && data.dimension == 3)
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<ExecSpace, typename Sweep::Columns,
                            Kokkos::IndexType<Ordinal>>(ExecSpace(), 0, tiles_.items),
        body);
  else
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<ExecSpace, typename Sweep::Cells, Kokkos::IndexType<Ordinal>>(
            ExecSpace(), 0, level_->numCells()),
        body);
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::residual(const Vector<ExecSpace>& b,
                                      const Vector<ExecSpace>& x,
                                      const Vector<ExecSpace>& r) const {
  sweep<false>("kfvm::LevelSweeps::residual", b, x, Vector<ExecSpace>(), r, 0, 0, 0);
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::scaledJacobi(const Vector<ExecSpace>& b,
                                          const Vector<ExecSpace>& x, Real scale) const {
  forEachIndex("kfvm::LevelSweeps::scaledJacobi", ExecSpace(), level_->numCells(),
               Details::LevelScaledJacobi<ExecSpace>{{level_->data()}, b, x, scale});
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::gaussSeidel(const Vector<ExecSpace>& b,
                                         const Vector<ExecSpace>& x, int color,
                                         bool fromZero) const {
  forEachIndex(
      "kfvm::LevelSweeps::gaussSeidel", ExecSpace(), level_->numCells(),
      Details::LevelGaussSeidel<ExecSpace>{{level_->data()}, b, x, color, fromZero});
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::chebyshevStep(const Vector<ExecSpace>& b,
                                           const Vector<ExecSpace>& x,
                                           const Vector<ExecSpace>& previous,
                                           const Vector<ExecSpace>& next, Real a,
                                           Real c) const {
  sweep<true>("kfvm::LevelSweeps::chebyshevStep", b, x, previous, next, a, c, 0);
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::chebyshevStart(const Vector<ExecSpace>& b,
                                            const Vector<ExecSpace>& out, Real scale,
                                            Real a, Real c) const {
  forEachIndex(
      "kfvm::LevelSweeps::chebyshevStart", ExecSpace(), level_->numCells(),
      Details::LevelChebyshevStart<ExecSpace>{{level_->data()}, b, out, scale, a, c});
}

template <class ExecSpace>
void LevelSweeps<ExecSpace>::chebyshevStepAfterStart(const Vector<ExecSpace>& b,
                                                     const Vector<ExecSpace>& x,
                                                     const Vector<ExecSpace>& next,
                                                     Real a, Real c,
                                                     Real startScale) const {
  require(startScale != 0, "LevelSweeps::chebyshevStepAfterStart: startScale is 0");
  sweep<true>("kfvm::LevelSweeps::chebyshevStepAfterStart", b, x, Vector<ExecSpace>(),
              next, a, c, startScale);
}

#define KFVM_INSTANTIATE_LEVEL_SWEEPS(Space) template class LevelSweeps<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_LEVEL_SWEEPS)

}  // namespace kfvm
