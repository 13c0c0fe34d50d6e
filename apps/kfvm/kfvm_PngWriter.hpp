#ifndef KFVM_APPS_PNG_WRITER_HPP
#define KFVM_APPS_PNG_WRITER_HPP

#include <kfvm_CartesianGrid.hpp>

#include <array>
#include <string>
#include <vector>

namespace kfvm::app {

/// The colour (viridis) of a value t in [0, 1]; clamped outside.
std::array<unsigned char, 3> viridis(double t);

/// Writes a 2D field, or the middle z slice of a 3D one, as a PNG: one block of pixels
/// per cell (y up; at least 512 pixels along the longer side for small grids), and a
/// colour bar labelled with the minimum and maximum. values are the cell values in the
/// mesh's order (x fastest). Written to a temporary file and renamed. Throws kfvm::Error
/// for a 1D grid, a size mismatch or a file that cannot be written.
void writeFieldPng(const std::string& path, const CartesianGrid& grid,
                   const std::vector<double>& values);

}  // namespace kfvm::app

#endif
