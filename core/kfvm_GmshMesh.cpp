#include <kfvm_Error.hpp>
#include <kfvm_GmshMesh.hpp>

#include <cmath>

namespace kfvm {

namespace {

CellShape shapeOfType(int type) {
  switch (type) {
    case 2:
      return CellShape::Triangle;
    case 3:
      return CellShape::Quadrilateral;
    case 4:
      return CellShape::Tetrahedron;
    case 5:
      return CellShape::Hexahedron;
    case 6:
      return CellShape::Prism;
    default:
      return CellShape::Pyramid;
  }
}

std::string groupName(const GmshFile& file, int dimension, int tag) {
  const auto& group = file.physicalGroup(dimension, tag);
  return group.name.empty() ? std::to_string(tag) : group.name;
}

}  // namespace

MeshTopology gmshMeshTopology(const GmshFile& file, const std::string& name) {
  const int dimension = file.dimension();
  require(dimension == 2 || dimension == 3, "Gmsh mesh '", name, "' has dimension ",
          dimension, "; kfvm reads 2D and 3D Gmsh meshes (use a CartesianGrid in 1D)");
  if (dimension == 2) {  // every cell's node in one plane z = const
    double z = 0;
    bool first = true;
    for (const auto& element : file.elements) {
      if (element.dimension != 2) continue;
      for (Ordinal node : element.nodes) {
        const double zn = file.nodes[std::size_t(node)][2];
        if (first) z = zn;
        first = false;
        require(std::abs(zn - z) <= 1e-12 * (1 + std::abs(z)), "Gmsh mesh '", name,
                "': 2D element ", element.tag, " leaves the plane z = ", z,
                " (a node at z = ", zn, "); kfvm's 2D meshes lie in the x-y plane");
      }
    }
  }
  MeshTopology topology(dimension, file.nodes);
  try {
    for (const auto& element : file.elements) {
      if (element.dimension == dimension) {
        const Ordinal cell =
            topology.addCell(shapeOfType(element.type), element.nodes, element.tag);
        for (int tag : element.physicals)
          topology.setCellRegion(cell, groupName(file, dimension, tag));
      } else if (element.dimension == dimension - 1) {
        for (int tag : element.physicals)
          topology.addBoundaryFace(groupName(file, dimension - 1, tag), element.nodes);
      }
    }
  } catch (const Error& error) {
    fail("Gmsh mesh '", name, "': ", error.message());
  }
  return topology;
}

MeshTopology readGmshTopology(const std::string& path) {
  return gmshMeshTopology(readGmshFile(path), path);
}

}  // namespace kfvm
