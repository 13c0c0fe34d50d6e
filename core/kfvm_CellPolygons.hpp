#ifndef KFVM_CELL_POLYGONS_HPP
#define KFVM_CELL_POLYGONS_HPP

// The cells of a 2D mesh as polygons on the host (for pictures: PNG snapshots).

#include <kfvm_Mesh.hpp>

#include <array>
#include <vector>

namespace kfvm {

/// Each cell of a 2D mesh as its corners (x, y) in order around it: a grid's cells as
/// rectangles (any coordinates), a general mesh's from its faces' nodes. Copies the
/// mesh's connectivity to the host. Throws kfvm::Error for a mesh that is not 2D or a
/// cell whose faces do not close around it.
template <class ExecSpace>
std::vector<std::vector<std::array<double, 2>>> cellPolygons(const Mesh<ExecSpace>& mesh);

}  // namespace kfvm

#endif
