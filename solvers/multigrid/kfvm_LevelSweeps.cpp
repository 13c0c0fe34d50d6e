#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_LevelSweeps.hpp>

#include "detail/kfvm_LevelColumns.hpp"
#include "detail/kfvm_LevelStencil.hpp"

namespace kfvm {

namespace Details {

/// body.at(cell, indices) on every cell of its level (Cells) or on the cells of a uniform
/// 3D level's shell (Shell, LevelBoxes).
template <class Body>
struct CellByCell {
  struct Cells {};
  struct Shell {};
  Body body;
  LevelBoxes boxes;

  KOKKOS_FUNCTION void operator()(Cells, Ordinal cell) const {
    int idx[3];
    body.g.d.grid.indices(cell, idx);
    body.at(cell, idx);
  }
  KOKKOS_FUNCTION void operator()(Shell, Ordinal index) const {
    int idx[3];
    const Ordinal cell = boxes.shellCell(index, idx);
    body.at(cell, idx);
  }
};

/// The residual (Step = false: out = b - A x) or a Chebyshev step (Step: out = x +
/// a (x - previous) + c D^-1 (b - A x), previous = startScale D^-1 b when startScale is
/// not 0), at one cell (run by CellByCell).
template <class ExecSpace, bool Step>
struct LevelSweep {
  LevelGeometry<ExecSpace> g;
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

  KOKKOS_INLINE_FUNCTION void at(Ordinal cell, const int idx[3]) const {
    Real diagonal;
    const Real rhs = b(cell);
    const Real residual = rhs - g.product(cell, idx, x, diagonal);
    if (!Step) {
      out(cell) = residual;
      return;
    }
    const Real xc = x(cell), p = previousAt(cell, rhs, diagonal);
    out(cell) = xc + a * (xc - p) + c * residual / diagonal;
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
  KOKKOS_INLINE_FUNCTION void at(Ordinal cell, const int idx[3]) const {
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
    : level_(&level), columns_(columns && level.dimension() == 3) {
  if (columns_) {
    boxes_ = std::make_shared<Details::LevelBoxes>(level.cells(), 1);
    startBoxes_ = std::make_shared<Details::LevelBoxes>(level.cells(), 2);
  }
}

template <class ExecSpace>
bool LevelSweeps<ExecSpace>::byColumns() const {
  return columns_ && level_->data().uniform;
}

template <class ExecSpace>
template <class Interior, class Shell>
void LevelSweeps<ExecSpace>::split(const char* label, const Details::LevelBoxes& boxes,
                                   const Interior& interior, const Shell& shell) const {
  if (boxes.interiorItems() > 0)
    forEachIndex(label, ExecSpace(), boxes.interiorItems(), interior);
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<ExecSpace, typename Shell::Shell, Kokkos::IndexType<Ordinal>>(
          ExecSpace(), 0, boxes.shellCells()),
      shell);
}

template <class ExecSpace>
template <bool Step>
void LevelSweeps<ExecSpace>::sweep(const char* label, const Vector<ExecSpace>& b,
                                   const Vector<ExecSpace>& x,
                                   const Vector<ExecSpace>& previous,
                                   const Vector<ExecSpace>& out, Real a, Real c,
                                   Real startScale) const {
  using Sweep = Details::CellByCell<Details::LevelSweep<ExecSpace, Step>>;
  const auto& data = level_->data();
  const Details::LevelSweep<ExecSpace, Step> body{{data}, b, x, previous,
                                                  out,    a, c, startScale};
  if (byColumns()) {
    constexpr auto kind =
        Step ? Details::ColumnSweep::Step : Details::ColumnSweep::Residual;
    const Details::LevelInteriorColumns<ExecSpace, kind> interior{*boxes_,
                                                                  data.uniformFaces[0],
                                                                  data.uniformFaces[1],
                                                                  data.uniformFaces[2],
                                                                  data.uniformDiagonal,
                                                                  b,
                                                                  x,
                                                                  previous,
                                                                  out,
                                                                  a,
                                                                  c,
                                                                  startScale};
    split(label, *boxes_, interior, Sweep{body, *boxes_});
    return;
  }
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<ExecSpace, typename Sweep::Cells, Kokkos::IndexType<Ordinal>>(
          ExecSpace(), 0, level_->numCells()),
      Sweep{body, {}});
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
  using Start = Details::CellByCell<Details::LevelChebyshevStart<ExecSpace>>;
  const Details::LevelChebyshevStart<ExecSpace> body{
      {level_->data()}, b, out, scale, a, c};
  const char* label = "kfvm::LevelSweeps::chebyshevStart";
  const auto& data = level_->data();
  if (byColumns()) {
    const Details::LevelInteriorColumns<ExecSpace, Details::ColumnSweep::Start> interior{
        *startBoxes_,
        data.uniformFaces[0],
        data.uniformFaces[1],
        data.uniformFaces[2],
        data.uniformDiagonal,
        b,
        Vector<ExecSpace>(),
        Vector<ExecSpace>(),
        out,
        a,
        c,
        scale};
    split(label, *startBoxes_, interior, Start{body, *startBoxes_});
    return;
  }
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<ExecSpace, typename Start::Cells, Kokkos::IndexType<Ordinal>>(
          ExecSpace(), 0, level_->numCells()),
      Start{body, {}});
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
