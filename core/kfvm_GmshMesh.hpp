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

/// Meshes the Gmsh script (.geo) at path in dimension 2 or 3 with the gmsh program
/// (Debian's gmsh; KFVM_GMSH names another executable), as FiPy's Gmsh2D/Gmsh3D do,
/// and returns the topology of the mesh it writes (MSH 4.1, to a temporary file that is
/// removed). A missing program, a script gmsh rejects (its messages quoted) or an
/// empty mesh is a kfvm::Error naming the script.
MeshTopology meshGmshScript(const std::string& path, int dimension);

}  // namespace kfvm

#endif
