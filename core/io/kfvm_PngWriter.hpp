#ifndef KFVM_PNG_WRITER_HPP
#define KFVM_PNG_WRITER_HPP

#include <kfvm_CartesianGrid.hpp>

#include <array>
#include <string>
#include <vector>

namespace kfvm {

/// The colour (viridis) of a value t in [0, 1]; clamped outside.
std::array<unsigned char, 3> viridis(double t);

/// Writes a 2D field, or the middle z slice of a 3D one, as a PNG: one block of pixels
/// per cell (y up; at least 512 pixels along the longer side for small grids), and a
/// colour bar labelled with the minimum and maximum. values are the cell values in the
/// mesh's order (x fastest). Written to a temporary file and renamed. Throws kfvm::Error
/// for a 1D grid, a size mismatch or a file that cannot be written.
void writeFieldPng(const std::string& path, const CartesianGrid& grid,
                   const std::vector<double>& values);

/// A cell of a 2D general mesh for writePolygonsPng: its corners (x, y) in order.
using Polygon = std::vector<std::array<double, 2>>;

/// Writes a field on the cells of a 2D general mesh as a PNG: the cells rasterized (a
/// pixel takes the value of the cell holding its centre; 512 pixels along the longer
/// side of the cells' bounding box, y up; pixels in no cell stay white) beside the same
/// colour bar as writeFieldPng. Throws kfvm::Error for a size mismatch, a cell of fewer
/// than 3 corners, cells of no area or a file that cannot be written.
void writePolygonsPng(const std::string& path, const std::vector<Polygon>& cells,
                      const std::vector<double>& values);

}  // namespace kfvm

#endif
