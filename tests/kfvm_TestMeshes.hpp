#ifndef KFVM_TEST_MESHES_HPP
#define KFVM_TEST_MESHES_HPP

// General meshes for the tests: Gmsh files written element by element, hexahedra on
// given vertices, crossed triangles and prisms, and cubes cut into tetrahedra or
// pyramids.

#include <kfvm_GmshMesh.hpp>
#include <kfvm_MeshTopology.hpp>

#include <array>
#include <string>
#include <vector>

namespace kfvm::Test {

using Point = std::array<double, 3>;

/// A Gmsh MSH 2.2 file built element by element.
struct MshText {
  std::vector<Point> nodes;
  std::vector<std::string> elements, names;  // names: "dimension tag \"name\""

  /// Adds a node; returns its Gmsh number (from 1).
  int node(double x, double y, double z);
  /// Adds an element of a Gmsh type in one physical group (also its entity).
  void element(int type, int physical, const std::vector<int>& ids);
  std::string text() const;
  /// The file's text read back as "test.msh".
  MeshTopology topology() const;
};

/// Hexahedra on the vertices xs, ys, zs, cells in the Cartesian order (x fastest), the
/// six sides as physical groups named like the Cartesian patches, the cells "domain".
MshText hexahedra(const std::vector<double>& xs, const std::vector<double>& ys,
                  const std::vector<double>& zs);

/// The unit square in n x n squares, each cut by its diagonals into 4 triangles (FiPy's
/// Tri2D), extruded into prisms of height 1 / layers when layers > 0; the sides named
/// left, right, bottom, top (and back, front).
MshText crossedTriangles(int n, int layers);

/// x moved by a smooth field that vanishes on the unit cube's sides: each coordinate by
/// amount * sin(2 pi x) sin(2 pi y) sin(2 pi z) with its own phase.
Point distorted(const Point& x, double amount);

/// cutCubeMesh (kfvm_MeshGenerators.hpp) of 6 tetrahedra or 6 pyramids a cube, the
/// nodes then distorted().
MeshTopology cutCubes(int n, bool pyramids, double distortion = 0);

}  // namespace kfvm::Test

#endif
