#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_StencilColumnTiles.hpp>
#include <kfvm_StencilOperator.hpp>

#include "detail/kfvm_StreamingStores.hpp"

#include <cmath>

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
  // Periodic axes (Mesh numbering): n faces per line along such an axis, face 0 of a
  // line joining its last cell (the owner) to its first. The first and last cells of
  // the line are then each other's neighbours.
  bool wrap[3] = {false, false, false};

  /// True when the cell at index idx of n along a periodic axis, or inside the line,
  /// has a neighbour below (Low) or above (High) along it.
  KOKKOS_INLINE_FUNCTION bool hasLow(int axis, int idx) const {
    return idx > 0 || wrap[axis];
  }
  KOKKOS_INLINE_FUNCTION bool hasHigh(int axis, int idx, int n) const {
    return idx < n - 1 || wrap[axis];
  }
  /// Index offset from a cell to its lower and upper neighbour along an axis (stride:
  /// the axis' cell stride), wrapping around a periodic axis; 0 where there is none.
  KOKKOS_INLINE_FUNCTION Ordinal lowStep(int axis, int idx, int n, Ordinal stride) const {
    return idx > 0 ? -stride : wrap[axis] ? stride * (n - 1) : 0;
  }
  KOKKOS_INLINE_FUNCTION Ordinal highStep(int axis, int idx, int n,
                                          Ordinal stride) const {
    return idx < n - 1 ? stride : wrap[axis] ? -stride * (n - 1) : stride;
  }
  /// Faces normal to x in a row of cells, and y faces per plane (n, or n + 1).
  KOKKOS_INLINE_FUNCTION Ordinal xFacesPerRow() const { return nx + (wrap[0] ? 0 : 1); }
  KOKKOS_INLINE_FUNCTION Ordinal yRowsPerPlane() const { return ny + (wrap[1] ? 0 : 1); }

  /// True when cell (i, j, k) has all its neighbours (along the grid's axes).
  KOKKOS_INLINE_FUNCTION bool hasAllNeighbours(int i, int j, int k) const {
    return hasLow(0, i) && hasHigh(0, i, nx) &&
           (firstY < 0 || (hasLow(1, j) && hasHigh(1, j, ny))) &&
           (firstZ < 0 || (hasLow(2, k) && hasHigh(2, k, nz)));
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

  /// Off-diagonal sum of the x and y neighbours of cell (i, j, k). A cell's lower face
  /// along an axis has the cell's own (i, j, k); its upper face is the next one, or the
  /// line's face 0 at the end of a periodic axis (as its upper neighbour is).
  KOKKOS_INLINE_FUNCTION Real inPlane(int i, int j, int k, Ordinal cell) const {
    const Ordinal xFace = i + xFacesPerRow() * (j + Ordinal(ny) * k);
    Real sum = 0;
    if (hasLow(0, i)) sum += lowerWeight(0, xFace) * x(cell + lowStep(0, i, nx, 1));
    if (hasHigh(0, i, nx)) {
      const Ordinal step = highStep(0, i, nx, 1);
      sum += upperWeight(0, xFace + step) * x(cell + step);
    }
    if (firstY >= 0) {
      const Ordinal yFace = firstY + i + Ordinal(nx) * (j + yRowsPerPlane() * k);
      if (hasLow(1, j)) sum += lowerWeight(1, yFace) * x(cell + lowStep(1, j, ny, nx));
      if (hasHigh(1, j, ny)) {
        const Ordinal step = highStep(1, j, ny, nx);
        sum += upperWeight(1, yFace + step) * x(cell + step);
      }
    }
    return sum;
  }

  /// Off-diagonal sum of the z neighbours of cell (., ., k).
  KOKKOS_INLINE_FUNCTION Real outOfPlane(int k, Ordinal cell) const {
    if (firstZ < 0) return 0;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal zFace = firstZ + cell;  // z faces are numbered like cells
    Real sum = 0;
    if (hasLow(2, k)) sum += lowerWeight(2, zFace) * x(cell + lowStep(2, k, nz, plane));
    if (hasHigh(2, k, nz)) {
      const Ordinal step = highStep(2, k, nz, plane);
      sum += upperWeight(2, zFace + step) * x(cell + step);
    }
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
    const Real south = hasY && hasLow(1, j), north = hasY && hasHigh(1, j, ny);
    const Real bottom = hasZ && hasLow(2, k), top = hasZ && hasHigh(2, k, nz);
    const Ordinal toSouth = south != 0 ? lowStep(1, j, ny, nx) : 0;
    const Ordinal toNorth = north != 0 ? highStep(1, j, ny, nx) : 0;
    const Ordinal toBottom = bottom != 0 ? lowStep(2, k, nz, plane) : 0;
    const Ordinal toTop = top != 0 ? highStep(2, k, nz, plane) : 0;
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
    const Ordinal xFace = xFacesPerRow() * (j + Ordinal(ny) * k);
    const Ordinal yFace = hasY ? firstY + nx * (j + yRowsPerPlane() * k) : 0;
    const Ordinal zFace = hasZ ? firstZ + first : 0;
    const Ordinal yUp = hasY ? highStep(1, j, ny, nx) : 0;
    const Ordinal zUp = hasZ ? highStep(2, k, nz, plane) : 0;
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
    Real below = hasZ && this->hasLow(2, kBegin)
                     ? this->x(start + this->lowStep(2, kBegin, this->nz, plane))
                     : Real(0);
    Real here = this->x(start);
    Real lowerFace = hasZ ? this->lowerWeight(2, this->firstZ + start) : Real(0);
    double xy = 0;
    for (int k = kBegin; k < kEnd; ++k) {
      const Ordinal cell = column + plane * k;
      Real offDiagonal = this->inPlane(i, j, k, cell);
      Real above = 0, nextLowerFace = 0;
      if (hasZ) {
        const Ordinal up = this->highStep(2, k, this->nz, plane);
        const Ordinal upperFace = this->firstZ + cell + up;
        nextLowerFace = this->lowerWeight(2, upperFace);
        if (this->hasLow(2, k)) offDiagonal += lowerFace * below;
        if (this->hasHigh(2, k, this->nz)) {
          above = this->x(cell + up);
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
/// store. Its own kernel, because the chunk's registers (56 a thread on sm_90, against
/// 32) would lower the occupancy of the face-coefficient path, which needs it (measured:
/// variable D fell from 0.91 to 0.61 of copy at 512^3 when both shared one kernel).
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
    const int nz = this->nz, kLast = kBegin + depth - 1;
    const Real west = this->hasLow(0, i) ? w0 : 0,
               east = this->hasHigh(0, i, nx) ? w0 : 0;
    const Real south = this->hasLow(1, j) ? w1 : 0,
               north = this->hasHigh(1, j, ny) ? w1 : 0;
    const Real bottom = this->hasLow(2, kBegin) ? w2 : 0;
    const Real top = this->hasHigh(2, kLast, nz) ? w2 : 0;
    // Missing neighbours: offset 0 with weight 0 (highStep's fallback is ignored).
    const Ordinal toWest = this->lowStep(0, i, nx, 1);
    const Ordinal toEast = east != 0 ? this->highStep(0, i, nx, 1) : 0;
    const Ordinal toSouth = this->lowStep(1, j, ny, nx);
    const Ordinal toNorth = north != 0 ? this->highStep(1, j, ny, nx) : 0;
    const Ordinal toBottom = this->lowStep(2, kBegin, nz, plane);
    const Ordinal toTop = top != 0 ? this->highStep(2, kLast, nz, plane) : 0;
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
        this->interiorCell >= 0 && this->hasAllNeighbours(i, j, 1);
    const Real uniformDiagonal = inPlaneInterior ? this->diagonal(this->interiorCell) : 0;
    for (int m = 0; m < depth; ++m) {
      const int k = kBegin + m;
      diagonal[m] = inPlaneInterior && this->hasLow(2, k) && this->hasHigh(2, k, nz)
                        ? uniformDiagonal
                        : ds[m * plane];
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

}  // namespace Details

template <class ExecSpace>
StencilOperator<ExecSpace>::StencilOperator(const Assembler<ExecSpace>& assembler,
                                            StencilLoop loop)
    : assembler_(&assembler), loop_(loop) {
  require(!assembler.equation().hasHigherOrder(),
          "StencilOperator: the higher-order diffusion term reaches neighbours' "
          "neighbours; use the assembled matrix");
  if (loop_ == StencilLoop::Auto) {
    loop_ = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                       typename ExecSpace::memory_space>::accessible
                ? StencilLoop::Rows
                : StencilLoop::Columns;
  }
  // Uniform weights: one diffusion constant (no field, no D(phi), no face values), no
  // convection, equal spacing along each axis. Then every interior face of an axis has
  // the weight D A / d of its first one (read once, here).
  const auto& equation = assembler.equation();
  const auto& mesh = equation.mesh();
  uniform_ = !equation.hasConvection() && !equation.diffusionPerFace() &&
             !equation.diffusionCoefficient().isField();
  for (int a = 0; a < mesh.dimension() && uniform_; ++a) {
    const auto& v = mesh.grid().vertices(a);
    const double h = v[1] - v[0];
    for (std::size_t i = 1; i + 1 < v.size() && uniform_; ++i)
      uniform_ = std::abs((v[i + 1] - v[i]) - h) <= 1e-12 * std::abs(h);
  }
  for (int a = 0; a < mesh.dimension() && uniform_; ++a) {
    if (mesh.grid().cells(a) < 2) continue;  // no interior face along this axis
    const auto n = mesh.cellCounts();  // the face between cells 0 and 1 of the axis:
    const Ordinal face = mesh.firstFace(a) + (a == 0 ? 1 : a == 1 ? n[0] : n[0] * n[1]);
    Real area = 0, distance = 0;
    Kokkos::deep_copy(area, Kokkos::subview(mesh.faceAreas(), face));
    Kokkos::deep_copy(distance, Kokkos::subview(mesh.faceDistances(), face));
    weights_[a] = equation.diffusionCoefficient().constant * area / distance;
  }
  // Every cell with all its neighbours then has the same diagonal when the transient
  // and implicit source coefficients are constants too (the cell volumes are equal):
  // the first such cell, (1, 1, 1) or its 1D/2D counterpart, stands for all of them.
  const auto n = mesh.cellCounts();
  bool interior = uniform_ && !equation.transientCoefficient().isField() &&
                  !equation.implicitSourceCoefficient().isField();
  for (int a = 0; a < mesh.dimension(); ++a) interior = interior && n[a] >= 3;
  if (interior)
    interiorCell_ = 1 + (mesh.dimension() >= 2 ? n[0] : 0) +
                    (mesh.dimension() >= 3 ? Ordinal(n[0]) * n[1] : 0);
  if (loop_ == StencilLoop::Columns)
    dotSums_ = BlockReduction<double, ExecSpace>("kfvm::StencilOperator::dotSums",
                                                 Details::StencilColumnTiles(n).items);
}

template <class ExecSpace>
Details::StencilData<ExecSpace> StencilOperator<ExecSpace>::stencilData(
    const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  const auto n = mesh.cellCounts();
  return {assembler_->faceCoefficients(),
          assembler_->faceNeighbourCoefficients(),
          assembler_->diagonal(),
          x,
          y,
          assembler_->theta(),
          n[0],
          n[1],
          n[2],
          mesh.dimension() >= 2 ? mesh.firstFace(1) : -1,
          mesh.dimension() >= 3 ? mesh.firstFace(2) : -1,
          uniform_,
          {weights_[0], weights_[1], weights_[2]},
          loop_ == StencilLoop::StreamingRows,
          interiorCell_,
          {mesh.isPeriodic(0), mesh.isPeriodic(1), mesh.isPeriodic(2)}};
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::applyBox(const Vector<ExecSpace>& x,
                                          const Vector<ExecSpace>& y,
                                          const std::array<int, 3>& begin,
                                          const std::array<int, 3>& end) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::applyBox: vectors must have ", mesh.numCells(),
          " entries, got ", x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  for (int a = 0; a < 3; ++a)
    require(begin[a] >= 0 && begin[a] <= end[a] && end[a] <= n[a],
            "StencilOperator::applyBox: the box [", begin[a], ", ", end[a],
            ") along axis ", a, " is not inside the grid's 0 .. ", n[a], " cells");
  const int count[3] = {end[0] - begin[0], end[1] - begin[1], end[2] - begin[2]};
  if (count[0] == 0 || count[1] == 0 || count[2] == 0) return;
  const auto data = stencilData(x, y);
  if (loop_ == StencilLoop::Rows || loop_ == StencilLoop::StreamingRows) {
    forEachIndex(
        "kfvm::StencilOperator::applyBoxRows", mesh.space(), Ordinal(count[1]) * count[2],
        Details::StencilBoxRows<ExecSpace>{
            data, {begin[0], begin[1], begin[2]}, {count[0], count[1], count[2]}});
  } else {
    forEachIndex(
        "kfvm::StencilOperator::applyBoxCells", mesh.space(),
        Ordinal(count[0]) * count[1] * count[2],
        Details::StencilBoxCells<ExecSpace>{
            data, {begin[0], begin[1], begin[2]}, {count[0], count[1], count[2]}});
  }
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                       const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::apply: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  const Details::StencilData<ExecSpace> data = stencilData(x, y);
  const ExecSpace& space = mesh.space();
  if (loop_ == StencilLoop::Rows || loop_ == StencilLoop::StreamingRows) {
    const int tile = 8;  // rows of j per tile
    forEachIndex(loop_ == StencilLoop::Rows ? "kfvm::StencilOperator::applyRows"
                                            : "kfvm::StencilOperator::applyStreamingRows",
                 space, Ordinal((n[1] + tile - 1) / tile) * tile * n[2],
                 Details::StencilRows<ExecSpace>{data, tile});
  } else if (loop_ == StencilLoop::Teams) {
    Kokkos::parallel_for("kfvm::StencilOperator::applyTeams",
                         Kokkos::TeamPolicy<ExecSpace>(space, n[1] * n[2], Kokkos::AUTO),
                         Details::StencilTeams<ExecSpace>{data});
  } else if (loop_ == StencilLoop::Columns) {
    const Details::StencilColumnTiles c(n);
    if (uniform_ && mesh.dimension() == 3)
      forEachIndex("kfvm::StencilOperator::applyUniformColumns", space, c.items,
                   Details::StencilUniformColumns<ExecSpace>{{data, c}});
    else
      forEachIndex("kfvm::StencilOperator::applyColumns", space, c.items,
                   Details::StencilColumns<ExecSpace>{data, c});
  } else {
    forEachCell("kfvm::StencilOperator::applyCells", mesh,
                Details::StencilCells<ExecSpace>{data});
  }
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::applyAndDot(const Vector<ExecSpace>& x,
                                             const Vector<ExecSpace>& y,
                                             const DeviceScalar<ExecSpace>& xDotY) const {
  const auto& mesh = assembler_->equation().mesh();
  const ExecSpace& space = mesh.space();
  using Sum = Kokkos::Sum<double, typename ExecSpace::memory_space>;
  if (loop_ != StencilLoop::Columns) {  // these loops do not sum: a reduction after
    apply(x, y);
    Blas::dotInto(x, y, xDotY);
    return;
  }
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::applyAndDot: vectors must have ", mesh.numCells(),
          " entries, got ", x.extent(0), " and ", y.extent(0));
  const auto data = stencilData(x, y);
  const Details::StencilColumnTiles c(mesh.cellCounts());
  if (uniform_ && mesh.dimension() == 3)
    dotSums_.sum("kfvm::StencilOperator::applyUniformColumnsAndDot", space, c.items,
                 Details::StencilUniformColumnsDot<ExecSpace>{{{data, c}}}, xDotY);
  else
    dotSums_.sum("kfvm::StencilOperator::applyColumnsAndDot", space, c.items,
                 Details::StencilColumnsDot<ExecSpace>{{data, c}}, xDotY);
}

#define KFVM_INSTANTIATE_STENCIL(Space) template class StencilOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL)

}  // namespace kfvm
