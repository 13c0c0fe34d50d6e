#ifndef KFVM_POINT_LOCATION_HPP
#define KFVM_POINT_LOCATION_HPP

#include <kfvm_Mesh.hpp>

#include <array>

namespace kfvm {

/// The cell of any mesh that holds point (on its faces counts as inside; the first such
/// cell when the point is on a face two cells share), or -1 when no cell does. A point
/// is in a cell when it lies behind each of the cell's face planes (convex cells, to
/// 1000 epsilons of Real times the coordinates' size). One reduction over the cells in
/// the mesh's execution space: for probes set up once, not for a loop over many points.
template <class ExecSpace>
Ordinal cellContaining(const Mesh<ExecSpace>& mesh, const std::array<double, 3>& point);

}  // namespace kfvm

#endif
