#ifndef KFVM_LEVEL_STENCIL_HPP
#define KFVM_LEVEL_STENCIL_HPP

// The stencil of a GridLevel by (i, j, k), for the kernels of GridLevel and of the
// multigrid cycle (Details; included by their .cpp files only).

#include <kfvm_GridLevel.hpp>

namespace kfvm::Details {

/// Column j of the identity.
struct UnitVector {
  Ordinal j;
  KOKKOS_INLINE_FUNCTION Real operator()(Ordinal i) const { return i == j ? 1 : 0; }
};

/// The faces and neighbours of a level's cells by (i, j, k), and its products.
template <class ExecSpace>
struct LevelGeometry {
  using Data = typename GridLevel<ExecSpace>::Data;
  Data d;

  /// Face of cell idx along axis on its low (upper = 0) or high (upper = 1) side.
  KOKKOS_INLINE_FUNCTION Ordinal face(int axis, const int idx[3], int upper) const {
    const int nx = d.cells[0], ny = d.cells[1];
    if (axis == 0)
      return d.firstFace[0] + idx[0] + upper + (nx + 1) * (idx[1] + ny * idx[2]);
    if (axis == 1)
      return d.firstFace[1] + idx[0] + nx * (idx[1] + upper + (ny + 1) * idx[2]);
    return d.firstFace[2] + idx[0] + nx * (idx[1] + ny * (idx[2] + upper));
  }
  /// The indices of the local-th face along axis (faces numbered as cells, with one
  /// more along axis).
  KOKKOS_INLINE_FUNCTION void faceIndices(int axis, Ordinal local, int idx[3]) const {
    int counts[3] = {d.cells[0], d.cells[1], d.cells[2]};
    counts[axis] += 1;
    idx[0] = int(local % counts[0]);
    idx[1] = int((local / counts[0]) % counts[1]);
    idx[2] = int(local / (Ordinal(counts[0]) * counts[1]));
  }
  /// Cells between neighbours along axis.
  KOKKOS_INLINE_FUNCTION Ordinal stride(int axis) const {
    return axis == 0   ? 1
           : axis == 1 ? Ordinal(d.cells[0])
                       : Ordinal(d.cells[0]) * d.cells[1];
  }
  /// The boundary slot of the face of cell idx on side upper of axis: as Mesh numbers
  /// them, by patch (2 axis + upper), then the two other axes, the lower fastest.
  KOKKOS_INLINE_FUNCTION Ordinal slot(int axis, const int idx[3], int upper) const {
    const int lo = axis == 0 ? 1 : 0, hi = axis == 2 ? 1 : 2;
    return d.patchFirst[2 * axis + upper] + idx[lo] + Ordinal(d.cells[lo]) * idx[hi];
  }
  /// The conductance of the boundary face of cell idx on side upper of axis:
  /// K a / (a d + b).
  KOKKOS_INLINE_FUNCTION Real boundaryConductance(int axis, const int idx[3],
                                                  int upper) const {
    const Ordinal s = slot(axis, idx, upper);
    const Real a = d.robinA(s), b = d.robinB(s);
    const Real distance = d.distances[axis](upper ? d.cells[axis] : 0);
    return a == 0 ? Real(0) : d.faces(face(axis, idx, upper)) * a / (a * distance + b);
  }
  /// True when cell idx has a neighbour below (upper = 0) or above (upper = 1) along
  /// axis: inside the line, or around a periodic axis.
  KOKKOS_INLINE_FUNCTION bool hasNeighbour(int axis, const int idx[3], int upper) const {
    return d.periodic[axis] || (upper ? idx[axis] + 1 < d.cells[axis] : idx[axis] > 0);
  }
  /// The index step from cell idx to that neighbour (wrapping around a periodic axis).
  KOKKOS_INLINE_FUNCTION Ordinal step(int axis, const int idx[3], int upper) const {
    const Ordinal s = stride(axis), wrap = s * (d.cells[axis] - 1);
    if (upper) return idx[axis] + 1 < d.cells[axis] ? s : -wrap;
    return idx[axis] > 0 ? -s : wrap;
  }
  /// The sum of cell idx's interior face coefficients and boundary conductances.
  KOKKOS_INLINE_FUNCTION Real faceSum(const int idx[3]) const {
    Real sum = 0;
    if (!d.anyPeriodic) {
      for (int a = 0; a < d.dimension; ++a) {
        sum += idx[a] > 0 ? d.faces(face(a, idx, 0)) : boundaryConductance(a, idx, 0);
        sum += idx[a] + 1 < d.cells[a] ? d.faces(face(a, idx, 1))
                                       : boundaryConductance(a, idx, 1);
      }
      return sum;
    }
    for (int a = 0; a < d.dimension; ++a)
      for (int upper = 0; upper < 2; ++upper)
        sum += hasNeighbour(a, idx, upper) ? d.faces(face(a, idx, upper))
                                           : boundaryConductance(a, idx, upper);
    return sum;
  }
  /// True when cell idx has a neighbour on both sides along every axis.
  KOKKOS_INLINE_FUNCTION bool inside(const int idx[3]) const {
    for (int a = 0; a < d.dimension; ++a)
      if (idx[a] == 0 || idx[a] + 1 == d.cells[a]) return false;
    return true;
  }
  /// True when cell idx and its neighbours have neighbours on both sides along every
  /// axis (on a uniform level: all seven cells of its stencil take the uniform numbers).
  KOKKOS_INLINE_FUNCTION bool farInside(const int idx[3]) const {
    for (int a = 0; a < d.dimension; ++a)
      if (idx[a] < 2 || idx[a] + 2 >= d.cells[a]) return false;
    return true;
  }
  /// (A x) at cell (indices idx); diagonal gets A's diagonal there. Inside the grid of a
  /// uniform level, from its uniform values (no face or diagonal array read).
  template <class Values>
  KOKKOS_INLINE_FUNCTION Real product(Ordinal cell, const int idx[3], const Values& x,
                                      Real& diagonal) const {
    if (d.uniform && inside(idx)) {
      diagonal = d.uniformDiagonal;
      if (d.dimension == 3) {  // every load issued before the sums
        const Ordinal ny = d.cells[0], nz = ny * d.cells[1];
        const Real c = x(cell), w = x(cell - 1), e = x(cell + 1), s = x(cell - ny);
        const Real n = x(cell + ny), b = x(cell - nz), t = x(cell + nz);
        return diagonal * c - d.uniformFaces[0] * (w + e) - d.uniformFaces[1] * (s + n) -
               d.uniformFaces[2] * (b + t);
      }
      Real sum = diagonal * x(cell);
      for (int a = 0; a < d.dimension; ++a)
        sum -= d.uniformFaces[a] * (x(cell - stride(a)) + x(cell + stride(a)));
      return sum;
    }
    diagonal = d.diagonal(cell);
    Real sum = diagonal * x(cell);
    if (!d.anyPeriodic) {  // the same for every cell: no divergence
      for (int a = 0; a < d.dimension; ++a) {
        if (idx[a] > 0) sum -= d.faces(face(a, idx, 0)) * x(cell - stride(a));
        if (idx[a] + 1 < d.cells[a])
          sum -= d.faces(face(a, idx, 1)) * x(cell + stride(a));
      }
      return sum;
    }
    for (int a = 0; a < d.dimension; ++a)
      for (int upper = 0; upper < 2; ++upper)
        if (hasNeighbour(a, idx, upper))
          sum -= d.faces(face(a, idx, upper)) * x(cell + step(a, idx, upper));
    return sum;
  }
  /// A's diagonal at cell (indices idx).
  KOKKOS_INLINE_FUNCTION Real diagonal(Ordinal cell, const int idx[3]) const {
    return d.uniform && inside(idx) ? d.uniformDiagonal : d.diagonal(cell);
  }
};

/// The fine cells of a coarse one along each axis: first and count (1 or 2; fewer at
/// the edge of a rank's ghosted block, where the others belong to no local cell).
/// Around a wrapped axis (even counts) every coarse cell has two.
template <class ExecSpace>
struct Children {
  int fineCells[3], fineFirst[3], fineGlobal[3], coarseFirst[3];
  bool coarsened[3], wrapped[3];
  KOKKOS_INLINE_FUNCTION void range(int axis, int coarse, int& first, int& count) const {
    const int global = coarse + coarseFirst[axis];
    int fine = global, n = 1;
    if (coarsened[axis]) {
      fine = 2 * global;
      n = wrapped[axis] || fine + 1 < fineGlobal[axis] ? 2 : 1;
    }
    int lo = fine - fineFirst[axis], hi = lo + n;
    lo = lo < 0 ? 0 : lo;
    hi = hi > fineCells[axis] ? fineCells[axis] : hi;
    first = lo;
    count = hi > lo ? hi - lo : 0;
  }
  /// The fine face (local index along axis) on coarse face `along` (local), or -1 when
  /// it is outside the fine block.
  KOKKOS_INLINE_FUNCTION int face(int axis, int along, int coarseGlobal) const {
    const int global = along + coarseFirst[axis];
    const int fine = !coarsened[axis]         ? global
                     : global == coarseGlobal ? fineGlobal[axis]
                                              : 2 * global;
    const int local = fine - fineFirst[axis];
    return local < 0 || local > fineCells[axis] ? -1 : local;
  }
};

/// The sum of v over the fine cells of coarse cell idx.
template <class ExecSpace, class Values>
KOKKOS_INLINE_FUNCTION Real sumOverChildren(const LevelGeometry<ExecSpace>& fine,
                                            const Children<ExecSpace>& children,
                                            const int idx[3], const Values& v) {
  int first[3], count[3];
  for (int a = 0; a < 3; ++a) children.range(a, idx[a], first[a], count[a]);
  Real sum = 0;
  for (int q = 0; q < count[2]; ++q)
    for (int p = 0; p < count[1]; ++p)
      for (int o = 0; o < count[0]; ++o)
        sum += v(first[0] + o +
                 fine.d.cells[0] * (first[1] + p + fine.d.cells[1] * (first[2] + q)));
  return sum;
}

/// Children of coarse's cells in fine.
template <class ExecSpace>
Children<ExecSpace> childrenOf(const GridLevel<ExecSpace>& fine,
                               const GridLevel<ExecSpace>& coarse) {
  Children<ExecSpace> c{};
  for (int a = 0; a < 3; ++a) {
    c.fineCells[a] = fine.cells()[a];
    c.fineFirst[a] = fine.placement().first[a];
    c.fineGlobal[a] = fine.placement().global[a];
    c.coarseFirst[a] = coarse.placement().first[a];
    c.coarsened[a] = coarse.placement().global[a] != fine.placement().global[a];
    c.wrapped[a] = coarse.placement().wrapped[a];
  }
  return c;
}

}  // namespace kfvm::Details

#endif
