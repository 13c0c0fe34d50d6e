#ifndef KFVM_GMSH_MESH_HPP
#define KFVM_GMSH_MESH_HPP

#include <kfvm_GmshFile.hpp>
#include <kfvm_MeshTopology.hpp>

#include <string>

namespace kfvm {

/// The cells, patches and regions of a Gmsh mesh. Its elements of the largest dimension
/// (2: triangles and quadrangles in a plane z = const; 3: tetrahedra, hexahedra, prisms
/// and pyramids) become cells, labelled by their element numbers. Elements one dimension
/// lower in a physical group put their face on a patch named after the group (its name,
/// or its tag as text when it has none); physical groups of cells become regions. A 1D
/// mesh, a 2D mesh off its plane or a cell the topology rejects is a kfvm::Error naming
/// the file (name) and the element.
MeshTopology gmshMeshTopology(const GmshFile& file, const std::string& name);

/// Reads the .msh file at path (readGmshFile) and returns its topology.
MeshTopology readGmshTopology(const std::string& path);

}  // namespace kfvm

#endif
