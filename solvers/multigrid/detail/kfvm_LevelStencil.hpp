#ifndef KFVM_LEVEL_STENCIL_HPP
#define KFVM_LEVEL_STENCIL_HPP

// The stencil of a GridLevel by (i, j, k), for the kernels of GridLevel and of the
// multigrid cycle (Details; included by their .cpp files only).

#include <kfvm_GridLevel.hpp>

namespace kfvm::Details {

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
  /// The sum of cell idx's interior face coefficients and boundary conductances.
  KOKKOS_INLINE_FUNCTION Real faceSum(const int idx[3]) const {
    Real sum = 0;
    for (int a = 0; a < d.dimension; ++a) {
      sum += idx[a] > 0 ? d.faces(face(a, idx, 0)) : boundaryConductance(a, idx, 0);
      sum += idx[a] + 1 < d.cells[a] ? d.faces(face(a, idx, 1))
                                     : boundaryConductance(a, idx, 1);
    }
    return sum;
  }
  /// True when cell idx has a neighbour on both sides along every axis.
  KOKKOS_INLINE_FUNCTION bool inside(const int idx[3]) const {
    for (int a = 0; a < d.dimension; ++a)
      if (idx[a] == 0 || idx[a] + 1 == d.cells[a]) return false;
    return true;
  }
  /// (A x) at cell (indices idx); diagonal gets A's diagonal there. Inside the grid of a
  /// uniform level, from its uniform values (no face or diagonal array read).
  template <class Values>
  KOKKOS_INLINE_FUNCTION Real product(Ordinal cell, const int idx[3], const Values& x,
                                      Real& diagonal) const {
    if (d.uniform && inside(idx)) {
      diagonal = d.uniformDiagonal;
      Real sum = diagonal * x(cell);
      for (int a = 0; a < d.dimension; ++a)
        sum -= d.uniformFaces[a] * (x(cell - stride(a)) + x(cell + stride(a)));
      return sum;
    }
    diagonal = d.diagonal(cell);
    Real sum = diagonal * x(cell);
    for (int a = 0; a < d.dimension; ++a) {
      if (idx[a] > 0) sum -= d.faces(face(a, idx, 0)) * x(cell - stride(a));
      if (idx[a] + 1 < d.cells[a]) sum -= d.faces(face(a, idx, 1)) * x(cell + stride(a));
    }
    return sum;
  }
  /// A's diagonal at cell (indices idx).
  KOKKOS_INLINE_FUNCTION Real diagonal(Ordinal cell, const int idx[3]) const {
    return d.uniform && inside(idx) ? d.uniformDiagonal : d.diagonal(cell);
  }
};

}  // namespace kfvm::Details

#endif
