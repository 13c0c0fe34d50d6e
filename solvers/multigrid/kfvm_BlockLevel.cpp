#include <kfvm_Backends.hpp>
#include <kfvm_BlockLevel.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_LevelStencil.hpp"

#include <string>

namespace kfvm {

namespace Details {

/// A BlockLevel's stencil: its indexing, and (A x) at a cell.
template <class ExecSpace>
struct BlockStencil {
  typename BlockLevel<ExecSpace>::Data d;

  KOKKOS_INLINE_FUNCTION LevelGeometry<ExecSpace> geometry() const { return {d.grid}; }
  KOKKOS_INLINE_FUNCTION Ordinal coupling(Ordinal face, int side, int e, int v) const {
    return ((face * 2 + side) * d.variables + e) * d.variables + v;
  }
  KOKKOS_INLINE_FUNCTION Ordinal block(Ordinal cell, int e, int v) const {
    return (cell * d.variables + e) * d.variables + v;
  }
  /// y[e] = (A x)_(cell, e), for e < n.
  template <class Values>
  KOKKOS_INLINE_FUNCTION void product(Ordinal cell, const int idx[3], const Values& x,
                                      Real y[maxCoupledVariables]) const {
    const int n = d.variables;
    const auto g = geometry();
    for (int e = 0; e < n; ++e) {
      Real sum = 0;
      for (int v = 0; v < n; ++v) sum += d.blocks(block(cell, e, v)) * x(cell * n + v);
      y[e] = sum;
    }
    for (int a = 0; a < d.grid.dimension; ++a)
      for (int upper = 0; upper < 2; ++upper) {
        if (upper ? idx[a] + 1 >= d.grid.cells[a] : idx[a] == 0) continue;
        const Ordinal face = g.face(a, idx, upper);
        const Ordinal other = upper ? cell + g.stride(a) : cell - g.stride(a);
        const int side = upper ? 0 : 1;  // 0: this cell is the face's lower one
        for (int e = 0; e < n; ++e)
          for (int v = 0; v < n; ++v)
            y[e] -= d.couplings(coupling(face, side, e, v)) * x(other * n + v);
      }
  }
};

/// The finest level from the matrix: the diagonal blocks, the couplings to the face
/// neighbours, and the cell terms (the blocks less the couplings); counts the entries
/// that are neither (a stencil reaching further, which a level cannot hold).
template <class ExecSpace>
struct BlockFromMatrix {
  BlockStencil<ExecSpace> s;
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  KOKKOS_FUNCTION void operator()(Ordinal cell, Ordinal& unmatched) const {
    const auto g = s.geometry();
    const int n = s.d.variables;
    int idx[3];
    s.d.grid.grid.indices(cell, idx);
    for (int e = 0; e < n; ++e)
      for (int v = 0; v < n; ++v) {
        s.d.blocks(s.block(cell, e, v)) = 0;
        for (int a = 0; a < s.d.grid.dimension; ++a) {  // this cell's side of its faces
          if (idx[a] > 0) s.d.couplings(s.coupling(g.face(a, idx, 0), 1, e, v)) = 0;
          if (idx[a] + 1 < s.d.grid.cells[a])
            s.d.couplings(s.coupling(g.face(a, idx, 1), 0, e, v)) = 0;
        }
      }
    for (int e = 0; e < n; ++e) {
      const Ordinal row = cell * n + e;
      for (Offset k = offsets(row); k < offsets(row + 1); ++k) {
        const Ordinal other = columns(k) / n;
        const int v = int(columns(k) % n);
        if (other == cell) {
          s.d.blocks(s.block(cell, e, v)) += values(k);
          continue;
        }
        bool matched = false;
        for (int a = 0; a < s.d.grid.dimension && !matched; ++a) {
          if (idx[a] > 0 && other == cell - g.stride(a)) {
            s.d.couplings(s.coupling(g.face(a, idx, 0), 1, e, v)) = -values(k);
            matched = true;
          } else if (idx[a] + 1 < s.d.grid.cells[a] && other == cell + g.stride(a)) {
            s.d.couplings(s.coupling(g.face(a, idx, 1), 0, e, v)) = -values(k);
            matched = true;
          }
        }
        if (!matched && values(k) != 0) ++unmatched;
      }
    }
    for (int e = 0; e < n; ++e)
      for (int v = 0; v < n; ++v) {
        Real term = s.d.blocks(s.block(cell, e, v));
        for (int a = 0; a < s.d.grid.dimension; ++a) {
          if (idx[a] > 0) term -= s.d.couplings(s.coupling(g.face(a, idx, 0), 1, e, v));
          if (idx[a] + 1 < s.d.grid.cells[a])
            term -= s.d.couplings(s.coupling(g.face(a, idx, 1), 0, e, v));
        }
        s.d.cellTerms(s.block(cell, e, v)) = term;
      }
  }
};

/// A coarse level's couplings on its faces along axis (0 on the grid's boundary).
template <class ExecSpace>
struct BlockCoarseFaces {
  BlockStencil<ExecSpace> fine, coarse;
  Children<ExecSpace> children;
  int axis;
  KOKKOS_FUNCTION void operator()(Ordinal local) const {
    const auto& cd = coarse.d.grid;
    int idx[3];
    coarse.geometry().faceIndices(axis, local, idx);
    const int along = idx[axis];
    const Ordinal face = cd.firstFace[axis] + local;
    const int n = coarse.d.variables;
    const int fineAlong = children.face(axis, along, cd.global[axis]);
    const bool boundary = along == 0 || along == cd.cells[axis];
    int first[3] = {0, 0, 0}, count[3] = {1, 1, 1};
    for (int b = 0; b < cd.dimension; ++b)
      if (b != axis) children.range(b, idx[b], first[b], count[b]);
    const Real scale =
        boundary || fineAlong < 0
            ? Real(0)
            : fine.d.grid.distances[axis](fineAlong) / cd.distances[axis](along);
    const auto g = fine.geometry();
    for (int side = 0; side < 2; ++side)
      for (int e = 0; e < n; ++e)
        for (int v = 0; v < n; ++v) {
          Real sum = 0;
          int f[3];
          f[axis] = fineAlong;
          if (scale != 0)
            for (int q = 0; q < count[2]; ++q)
              for (int p = 0; p < count[1]; ++p)
                for (int o = 0; o < count[0]; ++o) {
                  if (axis != 0) f[0] = first[0] + o;
                  if (axis != 1) f[1] = first[1] + p;
                  if (axis != 2) f[2] = first[2] + q;
                  sum += fine.d.couplings(fine.coupling(g.face(axis, f, 0), side, e, v));
                }
          coarse.d.couplings(coarse.coupling(face, side, e, v)) = sum * scale;
        }
  }
};

/// A coarse level's cell terms (its children's, summed) and blocks (those and its
/// faces).
template <class ExecSpace>
struct BlockCoarseCells {
  BlockStencil<ExecSpace> fine, coarse;
  Children<ExecSpace> children;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int n = coarse.d.variables;
    const auto g = coarse.geometry();
    const LevelGeometry<ExecSpace> fineGeometry{fine.d.grid};
    int idx[3];
    coarse.d.grid.grid.indices(cell, idx);
    for (int e = 0; e < n; ++e)
      for (int v = 0; v < n; ++v) {
        const auto terms = [&](Ordinal c) {
          return fine.d.cellTerms(fine.block(c, e, v));
        };
        const Real term = sumOverChildren(fineGeometry, children, idx, terms);
        Real block = term;
        for (int a = 0; a < coarse.d.grid.dimension; ++a) {
          if (idx[a] > 0)
            block += coarse.d.couplings(coarse.coupling(g.face(a, idx, 0), 1, e, v));
          if (idx[a] + 1 < coarse.d.grid.cells[a])
            block += coarse.d.couplings(coarse.coupling(g.face(a, idx, 1), 0, e, v));
        }
        coarse.d.cellTerms(coarse.block(cell, e, v)) = term;
        coarse.d.blocks(coarse.block(cell, e, v)) = block;
      }
  }
};

template <class ExecSpace>
struct BlockResidual {
  BlockStencil<ExecSpace> s;
  Vector<ExecSpace> b, x, r;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    s.d.grid.grid.indices(cell, idx);
    Real y[maxCoupledVariables];
    s.product(cell, idx, x, y);
    for (int e = 0; e < s.d.variables; ++e)
      r(cell * s.d.variables + e) = b(cell * s.d.variables + e) - y[e];
  }
};

/// The cells of one colour solve their block against the residual.
template <class ExecSpace>
struct BlockGaussSeidel {
  BlockStencil<ExecSpace> s;
  Vector<ExecSpace> b, x;
  int color;
  bool fromZero;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int n = s.d.variables;
    int idx[3];
    s.d.grid.grid.indices(cell, idx);
    if (((idx[0] + idx[1] + idx[2]) & 1) != color) {
      if (fromZero)
        for (int v = 0; v < n; ++v) x(cell * n + v) = 0;
      return;
    }
    Real r[maxCoupledVariables], m[maxCoupledVariables][maxCoupledVariables];
    if (fromZero) {
      for (int e = 0; e < n; ++e) r[e] = b(cell * n + e);
    } else {
      s.product(cell, idx, x, r);
      for (int e = 0; e < n; ++e) r[e] = b(cell * n + e) - r[e];
    }
    for (int e = 0; e < n; ++e)
      for (int v = 0; v < n; ++v) m[e][v] = s.d.blocks(s.block(cell, e, v));
    // Gaussian elimination with partial pivoting, then back substitution.
    for (int k = 0; k < n; ++k) {
      int pivot = k;
      for (int i = k + 1; i < n; ++i)
        if (Compat::abs(m[i][k]) > Compat::abs(m[pivot][k])) pivot = i;
      if (pivot != k) {
        for (int j = 0; j < n; ++j) {
          const Real t = m[k][j];
          m[k][j] = m[pivot][j];
          m[pivot][j] = t;
        }
        const Real t = r[k];
        r[k] = r[pivot];
        r[pivot] = t;
      }
      for (int i = k + 1; i < n; ++i) {
        const Real factor = m[i][k] / m[k][k];
        for (int j = k; j < n; ++j) m[i][j] -= factor * m[k][j];
        r[i] -= factor * r[k];
      }
    }
    for (int k = n - 1; k >= 0; --k) {
      Real value = r[k];
      for (int j = k + 1; j < n; ++j) value -= m[k][j] * r[j];
      r[k] = value / m[k][k];
    }
    for (int v = 0; v < n; ++v) {
      if (fromZero)
        x(cell * n + v) = r[v];
      else
        x(cell * n + v) += r[v];
    }
  }
};

/// a(row, j) = (A e_j)_row, one cell's rows and one column a thread.
template <class ExecSpace>
struct BlockDense {
  BlockStencil<ExecSpace> s;
  DeviceView<Real**, ExecSpace> a;
  Ordinal cells, size;
  KOKKOS_FUNCTION void operator()(Ordinal entry) const {
    const Ordinal cell = entry % cells, j = entry / cells;
    int idx[3];
    s.d.grid.grid.indices(cell, idx);
    Real y[maxCoupledVariables];
    s.product(cell, idx, UnitVector{j}, y);
    for (int e = 0; e < s.d.variables; ++e) a(cell * s.d.variables + e, j) = y[e];
  }
};

}  // namespace Details

template <class ExecSpace>
BlockLevel<ExecSpace>::BlockLevel(const GridLevel<ExecSpace>& grid, int variables)
    : grid_(&grid) {
  require(variables >= 1 && variables <= maxCoupledVariables,
          "BlockLevel: variables must be in [1, ", maxCoupledVariables, "], got ",
          variables);
  data_.grid = grid.data();
  data_.variables = variables;
  const Ordinal n = variables, cells = grid.numCells();
  Ordinal faces = 0;
  for (int a = 0; a < grid.dimension(); ++a) {
    auto counts = grid.cells();
    counts[a] += 1;
    faces += Ordinal(counts[0]) * counts[1] * counts[2];
  }
  data_.couplings =
      DeviceView<Real*, ExecSpace>("kfvm::BlockLevel::couplings", faces * 2 * n * n);
  data_.blocks = DeviceView<Real*, ExecSpace>("kfvm::BlockLevel::blocks", cells * n * n);
  data_.cellTerms =
      DeviceView<Real*, ExecSpace>("kfvm::BlockLevel::cellTerms", cells * n * n);
}

template <class ExecSpace>
void BlockLevel<ExecSpace>::refresh(const CrsMatrix<ExecSpace>& matrix) {
  require(matrix.numRows() == size() && matrix.numColumns() == size(),
          "BlockLevel::refresh: a matrix of ", matrix.numRows(), " x ",
          matrix.numColumns(), " for ", grid_->numCells(), " cells of ", variables(),
          " variables");
  Ordinal unmatched = 0;
  Kokkos::parallel_reduce(
      "kfvm::BlockLevel::fromMatrix", indexRange(ExecSpace(), grid_->numCells()),
      Details::BlockFromMatrix<ExecSpace>{
          {data_}, matrix.rowOffsets(), matrix.columns(), matrix.values()},
      unmatched);
  require(unmatched == 0, "BlockLevel::refresh: ", unmatched,
          " entries of the matrix couple cells that share no face (a stencil wider than "
          "the faces' cannot be coarsened by coupled multigrid)");
}

template <class ExecSpace>
void BlockLevel<ExecSpace>::refresh(const BlockLevel& fine) {
  require(fine.variables() == variables(), "BlockLevel::refresh: ", fine.variables(),
          " variables on the finer level, ", variables(), " here");
  const auto children = Details::childrenOf(*fine.grid_, *grid_);
  for (int a = 0; a < grid_->dimension(); ++a) {
    auto counts = grid_->cells();
    counts[a] += 1;
    forEachIndex(
        "kfvm::BlockLevel::coarseFaces", ExecSpace(),
        Ordinal(counts[0]) * counts[1] * counts[2],
        Details::BlockCoarseFaces<ExecSpace>{{fine.data_}, {data_}, children, a});
  }
  forEachIndex("kfvm::BlockLevel::coarseCells", ExecSpace(), grid_->numCells(),
               Details::BlockCoarseCells<ExecSpace>{{fine.data_}, {data_}, children});
}

template <class ExecSpace>
void BlockLevel<ExecSpace>::residual(const Vector<ExecSpace>& b,
                                     const Vector<ExecSpace>& x,
                                     const Vector<ExecSpace>& r) const {
  forEachIndex("kfvm::BlockLevel::residual", ExecSpace(), grid_->numCells(),
               Details::BlockResidual<ExecSpace>{{data_}, b, x, r});
}

template <class ExecSpace>
void BlockLevel<ExecSpace>::gaussSeidel(const Vector<ExecSpace>& b,
                                        const Vector<ExecSpace>& x, int color,
                                        bool fromZero) const {
  forEachIndex("kfvm::BlockLevel::gaussSeidel", ExecSpace(), grid_->numCells(),
               Details::BlockGaussSeidel<ExecSpace>{{data_}, b, x, color, fromZero});
}

template <class ExecSpace>
void BlockLevel<ExecSpace>::dense(const DeviceView<Real**, ExecSpace>& a) const {
  const Ordinal n = size();
  require(a.extent(0) == std::size_t(n) && a.extent(1) == std::size_t(n),
          "BlockLevel::dense: a matrix of ", a.extent(0), " x ", a.extent(1), " for ", n,
          " unknowns");
  forEachIndex("kfvm::BlockLevel::dense", ExecSpace(), grid_->numCells() * n,
               Details::BlockDense<ExecSpace>{{data_}, a, grid_->numCells(), n});
}

#define KFVM_INSTANTIATE_BLOCK_LEVEL(Space) template class BlockLevel<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_BLOCK_LEVEL)

}  // namespace kfvm
