#ifndef KFVM_MESH_GENERATORS_HPP
#define KFVM_MESH_GENERATORS_HPP

// General meshes of the unit cube, for tests, benchmarks and convergence studies: the
// cube's lattice of n^3 small cubes, each cut into 6 tetrahedra or 6 pyramids.

#include <kfvm_MeshTopology.hpp>

#include <array>
#include <functional>

namespace kfvm {

/// How cutCubeMesh cuts each small cube.
enum class CubeCut {
  Tetrahedra,  ///< the 6 tetrahedra around its main diagonal (Kuhn's triangulation)
  Pyramids     ///< 6 pyramids from its centre (an extra node), one on each of its faces
};

/// The unit cube in n^3 cubes, each cut into 6 cells (CubeCut). Cells in lattice order:
/// cubes x fastest, a cube's 6 cells together. The faces on the cube's sides go on the
/// patches left, right, bottom, top, back and front (x = 0, 1, y = 0, 1, z = 0, 1). move,
/// when given, moves every node after the sides are found (to distort the mesh: it must
/// keep the sides where they are). Throws kfvm::Error for n < 1.
MeshTopology cutCubeMesh(
    int n, CubeCut cut,
    const std::function<std::array<double, 3>(const std::array<double, 3>&)>& move = {});

}  // namespace kfvm

#endif
