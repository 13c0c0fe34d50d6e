#ifndef KFVM_STENCIL_LOOPS_HPP
#define KFVM_STENCIL_LOOPS_HPP

// The loops of the matrix-free stencil (StencilOperator): the per-cell arithmetic, one
// functor per StencilLoop, and the loop of grids with periodic axes (Details; included by
// kfvm_StencilOperator.cpp only).

#include <kfvm_StencilColumnTiles.hpp>
#include <kfvm_Types.hpp>

#include "kfvm_StreamingStores.hpp"

#include <Kokkos_Core.hpp>

namespace kfvm {

namespace Details {

/// Data and per-cell arithmetic shared by the loops.
template <class ExecSpace>
struct StencilData {
  // Lower faces (this cell is their neighbour) weigh the other cell with the owner
  // weight, upper faces (this cell owns them) with the neighbour weight; without
  // convection both are the same View. With uniform weights (constant D on a uniform
  // grid, no convection) the interior weights are one number per axis and the face
  // Views are not read.
  DeviceView<const Real*, ExecSpace> lower, upper;
  Vector<ExecSpace> diagonal, x, y;
  Real theta;
  int nx, ny, nz;
  Ordinal firstY, firstZ;  // -1 when the grid has no such faces
  bool uniform;
  Real weight[3];
  bool streaming = false;  // applyRowInterior() writes y with streaming stores (host)
  // A cell with every neighbour inside the grid, when all such cells have the same
  // diagonal (uniform weights, constant transient and implicit source coefficients): its
  // entry is read for every such cell (one address, cached), not each cell's own. -1
  // otherwise, and the diagonal array is read.
  Ordinal interiorCell = -1;

  /// True when cell (i, j, k) has all its neighbours (along the grid's axes) in the grid.
  KOKKOS_INLINE_FUNCTION bool hasAllNeighbours(int i, int j, int k) const {
    return i > 0 && i < nx - 1 && (firstY < 0 || (j > 0 && j < ny - 1)) &&
           (firstZ < 0 || (k > 0 && k < nz - 1));
  }
  KOKKOS_INLINE_FUNCTION Real diagonalOf(int i, int j, int k, Ordinal cell) const {
    return interiorCell >= 0 && hasAllNeighbours(i, j, k) ? diagonal(interiorCell)
                                                          : diagonal(cell);
  }

  KOKKOS_INLINE_FUNCTION Real lowerWeight(int axis, Ordinal face) const {
    return uniform ? weight[axis] : lower(face);
  }
  KOKKOS_INLINE_FUNCTION Real upperWeight(int axis, Ordinal face) const {
    return uniform ? weight[axis] : upper(face);
  }

  /// Off-diagonal sum of the x and y neighbours of cell (i, j, k).
  KOKKOS_INLINE_FUNCTION Real inPlane(int i, int j, int k, Ordinal cell) const {
    const Ordinal xFace = i + (nx + 1) * (j + ny * k);
    Real sum = 0;
    if (i > 0) sum += lowerWeight(0, xFace) * x(cell - 1);
    if (i < nx - 1) sum += upperWeight(0, xFace + 1) * x(cell + 1);
    if (firstY >= 0) {
      const Ordinal yFace = firstY + i + nx * (j + (ny + 1) * k);
      if (j > 0) sum += lowerWeight(1, yFace) * x(cell - nx);
      if (j < ny - 1) sum += upperWeight(1, yFace + nx) * x(cell + nx);
    }
    return sum;
  }

  /// Off-diagonal sum of the z neighbours of cell (., ., k).
  KOKKOS_INLINE_FUNCTION Real outOfPlane(int k, Ordinal cell) const {
    if (firstZ < 0) return 0;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal zFace = firstZ + cell;  // z faces are numbered like cells
    Real sum = 0;
    if (k > 0) sum += lowerWeight(2, zFace) * x(cell - plane);
    if (k < nz - 1) sum += upperWeight(2, zFace + plane) * x(cell + plane);
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void applyCell(int i, int j, int k, Ordinal cell) const {
    y(cell) = diagonalOf(i, j, k, cell) * x(cell) -
              theta * (inPlane(i, j, k, cell) + outOfPlane(k, cell));
  }

  /// Cells iBegin .. iEnd - 1 of row (j, k), all with both x neighbours (0 < iBegin,
  /// iEnd < nx), written to y; with `streaming`, whole lines of y by streaming stores.
  KOKKOS_INLINE_FUNCTION void applyRowInterior(int j, int k, int iBegin, int iEnd) const {
    Real* ys = y.data() + Ordinal(nx) * (j + Ordinal(ny) * k);
    storeRange(ys, iBegin, iEnd, streaming,
               [&](int from, int to, Real* out) { rowInterior(j, k, from, to, out); });
  }

  /// The values of cells from .. to - 1 of row (j, k), all with both x neighbours, into
  /// out[0 .. to - from): whether the y and z neighbours exist is decided once per call
  /// (a missing one is read at offset 0 with weight 0), so the loop has no branch and
  /// vectorizes on CPUs.
  KOKKOS_INLINE_FUNCTION void rowInterior(int j, int k, int from, int to,
                                          Real* KOKKOS_RESTRICT out) const {
    const Ordinal plane = Ordinal(nx) * ny, first = Ordinal(nx) * (j + Ordinal(ny) * k);
    const bool hasY = firstY >= 0, hasZ = firstZ >= 0;
    const Real south = hasY && j > 0, north = hasY && j < ny - 1;
    const Real bottom = hasZ && k > 0, top = hasZ && k < nz - 1;
    const Ordinal toSouth = south != 0 ? -nx : 0, toNorth = north != 0 ? nx : 0;
    const Ordinal toBottom = bottom != 0 ? -plane : 0, toTop = top != 0 ? plane : 0;
    const Real* KOKKOS_RESTRICT xs = x.data() + first;
    const Real* KOKKOS_RESTRICT ds = diagonal.data() + first;
    if (uniform) {
      const Real wx = weight[0], ws = south * weight[1], wn = north * weight[1],
                 wb = bottom * weight[2], wt = top * weight[2];
      if (interiorCell >= 0 && hasAllNeighbours(1, j, k)) {  // the diagonal is one number
        const Real d = diagonal(interiorCell);
        for (int i = from; i < to; ++i)
          out[i - from] =
              d * xs[i] -
              theta * (wx * (xs[i - 1] + xs[i + 1]) + ws * xs[i + toSouth] +
                       wn * xs[i + toNorth] + wb * xs[i + toBottom] + wt * xs[i + toTop]);
        return;
      }
      for (int i = from; i < to; ++i)
        out[i - from] =
            ds[i] * xs[i] -
            theta * (wx * (xs[i - 1] + xs[i + 1]) + ws * xs[i + toSouth] +
                     wn * xs[i + toNorth] + wb * xs[i + toBottom] + wt * xs[i + toTop]);
      return;
    }
    // Face indices of cell (0, j, k): its lower x, y and z faces (unused axes: 0).
    const Real* KOKKOS_RESTRICT lo = lower.data();
    const Real* KOKKOS_RESTRICT up = upper.data();
    const Ordinal xFace = (nx + 1) * (j + Ordinal(ny) * k);
    const Ordinal yFace = hasY ? firstY + nx * (j + Ordinal(ny + 1) * k) : 0;
    const Ordinal zFace = hasZ ? firstZ + first : 0;
    const Ordinal yUp = hasY ? nx : 0, zUp = hasZ ? plane : 0;
    for (int i = from; i < to; ++i)
      out[i - from] = ds[i] * xs[i] -
                      theta * (lo[xFace + i] * xs[i - 1] + up[xFace + i + 1] * xs[i + 1] +
                               south * lo[yFace + i] * xs[i + toSouth] +
                               north * up[yFace + i + yUp] * xs[i + toNorth] +
                               bottom * lo[zFace + i] * xs[i + toBottom] +
                               top * up[zFace + i + zUp] * xs[i + toTop]);
  }
};

template <class ExecSpace>
struct StencilCells : StencilData<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int i = cell % this->nx, j = (cell / this->nx) % this->ny,
              k = cell / (this->nx * this->ny);
    this->applyCell(i, j, k, cell);
  }
};

/// One work item per row of cells, rows taken tile by tile: `tile` consecutive j at a
/// time, marching up k, so that the rows below and above a row were touched a few rows
/// ago (they stay in a CPU core's cache; a whole plane of the grid may not).
template <class ExecSpace>
struct StencilRows : StencilData<ExecSpace> {
  int tile;

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    const Ordinal perTile = Ordinal(tile) * this->nz;
    const Ordinal rest = index % perTile;
    const int k = int(rest / tile), j = int(index / perTile) * tile + int(rest % tile);
    if (j >= this->ny) return;  // the last tile is partly outside the grid
    const Ordinal first = Ordinal(this->nx) * (j + Ordinal(this->ny) * k);
    this->applyCell(0, j, k, first);
    if (this->nx > 1) this->applyCell(this->nx - 1, j, k, first + this->nx - 1);
    this->applyRowInterior(j, k, 1, this->nx - 1);
  }
};

/// The cells of a box, begin[a] .. begin[a] + count[a] - 1 along each axis: one work
/// item per (j, k) row of the box, its cells with both x neighbours branch-free (host).
template <class ExecSpace>
struct StencilBoxRows : StencilData<ExecSpace> {
  int begin[3], count[3];

  KOKKOS_FUNCTION void operator()(Ordinal row) const {
    const int j = begin[1] + int(row % count[1]), k = begin[2] + int(row / count[1]);
    const int nx = this->nx, end = begin[0] + count[0];
    const Ordinal first = Ordinal(nx) * (j + Ordinal(this->ny) * k);
    if (begin[0] == 0) this->applyCell(0, j, k, first);
    if (end == nx && nx > 1) this->applyCell(nx - 1, j, k, first + nx - 1);
    const int from = begin[0] > 1 ? begin[0] : 1, to = end < nx - 1 ? end : nx - 1;
    if (from < to) this->applyRowInterior(j, k, from, to);
  }
};

/// The cells of a box, one work item per cell (device).
template <class ExecSpace>
struct StencilBoxCells : StencilData<ExecSpace> {
  int begin[3], count[3];

  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    const int i = begin[0] + int(m % count[0]);
    const int j = begin[1] + int((m / count[0]) % count[1]);
    const int k = begin[2] + int(m / (Ordinal(count[0]) * count[1]));
    this->applyCell(i, j, k, i + Ordinal(this->nx) * (j + Ordinal(this->ny) * k));
  }
};

/// One team per (j, k) row, its threads over i: coalesced like the per-cell loop, with
/// no integer division per cell.
template <class ExecSpace>
struct StencilTeams : StencilData<ExecSpace> {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    const int j = row % this->ny, k = row / this->ny;
    const Ordinal first = Ordinal(this->nx) * row;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, this->nx),
                         [&](int i) { this->applyCell(i, j, k, first + i); });
  }
};

/// One work item per (i, j) and chunk of `depth` cells along k (StencilColumnTiles),
/// marching up the chunk carrying x below, x here and the coefficient of the face below
/// in registers, so each x and z-face value comes from memory once per chunk instead of
/// three or two times. With uniform weights in 3D, StencilUniformColumns runs instead.
template <class ExecSpace>
struct StencilColumns : StencilData<ExecSpace> {
  static constexpr int depth = StencilColumnTiles::depth;
  StencilColumnTiles tiles;

  KOKKOS_INLINE_FUNCTION bool chunkOf(Ordinal index, int& i, int& j, int& kBegin) const {
    return tiles.chunkOf(index, i, j, kBegin);
  }

  KOKKOS_FUNCTION void operator()(Ordinal index) const {
    int i, j, kBegin;
    if (chunkOf(index, i, j, kBegin)) march(i, j, kBegin);
  }

  /// The marching loop over the chunk from kBegin; returns the chunk's sum of x y.
  KOKKOS_INLINE_FUNCTION double march(int i, int j, int kBegin) const {
    const Ordinal plane = Ordinal(this->nx) * this->ny;
    const Ordinal column = i + Ordinal(this->nx) * j;
    const int kEnd = kBegin + depth < this->nz ? kBegin + depth : this->nz;
    const bool hasZ = this->firstZ >= 0;
    const Ordinal start = column + plane * kBegin;
    Real below = hasZ && kBegin > 0 ? this->x(start - plane) : Real(0);
    Real here = this->x(start);
    Real lowerFace = hasZ ? this->lowerWeight(2, this->firstZ + start) : Real(0);
    double xy = 0;
    for (int k = kBegin; k < kEnd; ++k) {
      const Ordinal cell = column + plane * k;
      Real offDiagonal = this->inPlane(i, j, k, cell);
      Real above = 0, nextLowerFace = 0;
      if (hasZ) {
        const Ordinal upperFace = this->firstZ + cell + plane;
        nextLowerFace = this->lowerWeight(2, upperFace);
        if (k > 0) offDiagonal += lowerFace * below;
        if (k < this->nz - 1) {
          above = this->x(cell + plane);
          offDiagonal += this->upperWeight(2, upperFace) * above;
        }
      }
      const Real value =
          this->diagonalOf(i, j, k, cell) * here - this->theta * offDiagonal;
      this->y(cell) = value;
      xy += double(here) * double(value);
      below = here;
      here = above;
      lowerFace = nextLowerFace;
    }
    return xy;
  }
};

/// The columns loop with uniform weights in 3D. A chunk that lies wholly inside the grid
/// along k takes uniformChunk(): every load of the chunk is issued before its first
/// store. Its own kernel, because the chunk's registers would lower the occupancy of the
/// face-coefficient path, which needs it (sharing one kernel slowed that path by a third;
/// perf/RESULTS.md).
template <class ExecSpace>
struct StencilUniformColumns : StencilColumns<ExecSpace> {
  using Base = StencilColumns<ExecSpace>;
  static constexpr int depth = Base::depth;

  /// The chunk's depth cells of column (i, j) from kBegin, kBegin + depth <= nz, uniform
  /// weights, 3D. The marching loop stores y(k) before it loads x(k + 1), and since y
  /// may alias x the compiler keeps that order: one DRAM round trip per cell.
  /// Here all loads come first (x down the column and its four in-plane neighbours, the
  /// diagonal), so a thread has the whole chunk's reads in flight at once. Missing
  /// neighbours are read at offset 0 with weight 0, so there is no branch.
  KOKKOS_INLINE_FUNCTION double uniformChunk(int i, int j, int kBegin) const {
    const int nx = this->nx, ny = this->ny;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal start = i + Ordinal(nx) * j + plane * kBegin;
    const Real w0 = this->weight[0], w1 = this->weight[1], w2 = this->weight[2];
    const Real west = i > 0 ? w0 : 0, east = i < nx - 1 ? w0 : 0;
    const Real south = j > 0 ? w1 : 0, north = j < ny - 1 ? w1 : 0;
    const Real bottom = kBegin > 0 ? w2 : 0, top = kBegin + depth < this->nz ? w2 : 0;
    const Ordinal toWest = i > 0 ? -1 : 0, toEast = i < nx - 1 ? 1 : 0;
    const Ordinal toSouth = j > 0 ? -nx : 0, toNorth = j < ny - 1 ? nx : 0;
    const Ordinal toBottom = kBegin > 0 ? -plane : 0;
    const Ordinal toTop = kBegin + depth < this->nz ? plane : 0;
    const Real* KOKKOS_RESTRICT xs = this->x.data() + start;
    const Real* KOKKOS_RESTRICT ds = this->diagonal.data() + start;
    Real* KOKKOS_RESTRICT ys = this->y.data() + start;
    Real column[depth + 2], diagonal[depth], side[depth];
    column[0] = xs[toBottom];
    for (int m = 0; m < depth; ++m) column[m + 1] = xs[m * plane];
    column[depth + 1] = xs[(depth - 1) * plane + toTop];
    // The diagonal: one number for the cells with all neighbours, when it is uniform
    // (then only x is read from memory and y written: 16 bytes a cell in double).
    const bool inPlaneInterior =
        this->interiorCell >= 0 && i > 0 && i < nx - 1 && j > 0 && j < ny - 1;
    const Real uniformDiagonal = inPlaneInterior ? this->diagonal(this->interiorCell) : 0;
    for (int m = 0; m < depth; ++m) {
      const int k = kBegin + m;
      diagonal[m] =
          inPlaneInterior && k > 0 && k < this->nz - 1 ? uniformDiagonal : ds[m * plane];
    }
    for (int m = 0; m < depth; ++m) {
      const Real* KOKKOS_RESTRICT here = xs + m * plane;
      side[m] = west * here[toWest] + east * here[toEast] + south * here[toSouth] +
                north * here[toNorth];
    }
    double xy = 0;
    for (int m = 0; m < depth; ++m) {
      const Real down = m == 0 ? bottom : w2, up = m == depth - 1 ? top : w2;
      const Real value = diagonal[m] * column[m + 1] -
                         this->theta * (side[m] + down * column[m] + up * column[m + 2]);
      ys[m * plane] = value;
      xy += double(column[m + 1]) * double(value);
    }
    return xy;
  }

  /// The chunk of work item index (false outside the grid), and its sum of x y.
  KOKKOS_INLINE_FUNCTION double chunk(Ordinal index) const {
    int i, j, kBegin;
    if (!this->chunkOf(index, i, j, kBegin)) return 0;
    // apply() launches this only with uniform weights in 3D; the check guards other use.
    if (this->uniform && this->firstY >= 0 && this->firstZ >= 0 &&
        kBegin + depth <= this->nz)
      return uniformChunk(i, j, kBegin);
    return this->march(i, j, kBegin);
  }

  KOKKOS_FUNCTION void operator()(Ordinal index) const { chunk(index); }
};

/// The columns loops summing x . y as they go (StencilOperator::applyAndDot): the
/// product and the dot of a CG iteration in one pass over x and y.
template <class ExecSpace>
struct StencilColumnsDot : StencilColumns<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal index, double& xy) const {
    int i, j, kBegin;
    if (this->chunkOf(index, i, j, kBegin)) xy += this->march(i, j, kBegin);
  }
};

template <class ExecSpace>
struct StencilUniformColumnsDot : StencilUniformColumns<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal index, double& xy) const {
    xy += this->chunk(index);
  }
};

/// The loop of a grid with periodic axes (Mesh numbering: n faces per line along such an
/// axis, face 0 of a line joining its last cell, the owner, to its first): one work
/// item per cell of a box, its neighbours and faces wrapping around the periodic axes.
/// Every StencilLoop takes it on such a grid; the loops above stay as they were for the
/// grids without (the wraps' index arithmetic cost their GPU loops 5-14%).
template <class ExecSpace>
struct StencilPeriodicCells : StencilData<ExecSpace> {
  bool wrap[3];
  int begin[3], count[3];

  /// The weighted sum over axis' two neighbours of cell idx; stride: its cell stride,
  /// face: the cell's lower face normal to the axis, faceStride: the faces between a
  /// cell's lower face and the next cell's along the axis (the cell stride).
  KOKKOS_INLINE_FUNCTION Real neighbours(int axis, int idx, int n, Ordinal cell,
                                         Ordinal stride, Ordinal face) const {
    Real sum = 0;
    if (idx > 0 || wrap[axis]) {
      const Ordinal step = idx > 0 ? -stride : stride * (n - 1);
      sum += this->lowerWeight(axis, face) * this->x(cell + step);
    }
    if (idx < n - 1 || wrap[axis]) {
      const Ordinal step = idx < n - 1 ? stride : -stride * (n - 1);
      sum += this->upperWeight(axis, face + step) * this->x(cell + step);
    }
    return sum;
  }

  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    const int nx = this->nx, ny = this->ny;
    const int i = begin[0] + int(m % count[0]);
    const int j = begin[1] + int((m / count[0]) % count[1]);
    const int k = begin[2] + int(m / (Ordinal(count[0]) * count[1]));
    const Ordinal cell = i + Ordinal(nx) * (j + Ordinal(ny) * k);
    // Faces normal to x: nx (periodic) or nx + 1 per row; to y: ny or ny + 1 rows of nx
    // per plane; to z: numbered as the cells.
    const Ordinal xRow = nx + (wrap[0] ? 0 : 1), yRows = ny + (wrap[1] ? 0 : 1);
    Real sum = neighbours(0, i, nx, cell, 1, i + xRow * (j + Ordinal(ny) * k));
    if (this->firstY >= 0)
      sum += neighbours(1, j, ny, cell, nx, this->firstY + i + nx * (j + yRows * k));
    if (this->firstZ >= 0)
      sum += neighbours(2, k, this->nz, cell, Ordinal(nx) * ny, this->firstZ + cell);
    this->y(cell) = this->diagonal(cell) * this->x(cell) - this->theta * sum;
  }
};

}  // namespace Details

}  // namespace kfvm

#endif
