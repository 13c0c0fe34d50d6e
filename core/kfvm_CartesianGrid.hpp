#ifndef KFVM_CARTESIAN_GRID_HPP
#define KFVM_CARTESIAN_GRID_HPP

#include <kfvm_Patch.hpp>

#include <array>
#include <vector>

namespace kfvm {

/// Host-side description of a 1D, 2D or 3D Cartesian grid: the vertex coordinates along
/// each axis. Axes beyond the dimension have one cell of unit width, as in FiPy, so a
/// 1D face has area 1 and a 2D cell has volume dx*dy.
class CartesianGrid {
 public:
  /// nx (x ny (x nz)) cells of equal size spanning [0, L] on each axis.
  static CartesianGrid uniform1D(int nx, double lx);
  static CartesianGrid uniform2D(int nx, int ny, double lx, double ly);
  static CartesianGrid uniform3D(int nx, int ny, int nz, double lx, double ly, double lz);

  /// Cells of width dx[i] along x (and dy, dz), starting at the origin.
  static CartesianGrid fromSpacing(const std::vector<double>& dx,
                                   const std::vector<double>& dy = {},
                                   const std::vector<double>& dz = {});

  /// Cells between the given vertex coordinates, which must increase strictly.
  static CartesianGrid fromVertices(const std::vector<double>& xs,
                                    const std::vector<double>& ys = {},
                                    const std::vector<double>& zs = {});

  int dimension() const { return dimension_; }
  /// Cells along an axis (1 for axes beyond the dimension).
  int cells(int axis) const { return static_cast<int>(vertices_[axis].size()) - 1; }
  std::array<int, 3> cellCounts() const { return {cells(0), cells(1), cells(2)}; }
  long long numCells() const {
    return static_cast<long long>(cells(0)) * cells(1) * cells(2);
  }
  /// Vertex coordinates along an axis (cells(axis) + 1 values).
  const std::vector<double>& vertices(int axis) const { return vertices_[axis]; }
  /// True when the patch is a boundary of this grid (left/right always; bottom/top from
  /// 2D; back/front in 3D).
  bool hasPatch(Patch patch) const { return patchAxis(patch) < dimension_; }

 private:
  CartesianGrid(int dimension, std::array<std::vector<double>, 3> vertices);

  int dimension_;
  std::array<std::vector<double>, 3> vertices_;
};

}  // namespace kfvm

#endif
