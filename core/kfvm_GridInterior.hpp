#ifndef KFVM_GRID_INTERIOR_HPP
#define KFVM_GRID_INTERIOR_HPP

#include <kfvm_FixedDivisor.hpp>
#include <kfvm_Types.hpp>

#include <array>

namespace kfvm {

/// The cells of a structured grid (numbered i + nx (j + ny k)) that have all their face
/// neighbours inside the grid along the axes below `dimension`. Kernels over a flat cell
/// index use it to take a structured path for those cells (neighbours and faces found by
/// (i, j, k)) and the general one (the face lists) at the grid's boundary. (i, j, k)
/// comes from the flat index by FixedDivisor, without integer divisions. A
/// default-constructed one covers no cell.
class GridInterior {
 public:
  GridInterior() = default;
  GridInterior(int dimension, const std::array<int, 3>& cells)
      : dimension_(dimension),
        cells_{cells[0], cells[1], cells[2]},
        byRow_(cells[0]),
        byColumn_(cells[1]) {}

  KOKKOS_INLINE_FUNCTION int dimension() const { return dimension_; }
  KOKKOS_INLINE_FUNCTION int cells(int axis) const { return cells_[axis]; }

  /// True when cell has all its neighbours; index gets its (i, j, k) either way (unless
  /// no cell is covered).
  KOKKOS_INLINE_FUNCTION bool covers(Ordinal cell, int index[3]) const {
    if (dimension_ == 0) return false;
    indices(cell, index);
    for (int a = 0; a < dimension_; ++a)
      if (index[a] == 0 || index[a] == cells_[a] - 1) return false;
    return true;
  }
  /// (i, j, k) of cell, any cell of the grid.
  KOKKOS_INLINE_FUNCTION void indices(Ordinal cell, int index[3]) const {
    const int row = byRow_.quotient(cell);  // j + ny k
    index[0] = cell - row * cells_[0];
    index[2] = byColumn_.quotient(row);
    index[1] = row - index[2] * cells_[1];
  }
  KOKKOS_INLINE_FUNCTION bool covers(Ordinal cell) const {
    int index[3];
    return covers(cell, index);
  }

 private:
  int dimension_ = 0;  // 0: covers nothing
  int cells_[3] = {1, 1, 1};
  FixedDivisor byRow_, byColumn_;
};

}  // namespace kfvm

#endif
