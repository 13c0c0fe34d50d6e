#ifndef KFVM_GMSH_FILE_HPP
#define KFVM_GMSH_FILE_HPP

#include <kfvm_Types.hpp>

#include <array>
#include <istream>
#include <string>
#include <vector>

namespace kfvm {

/// A mesh as a Gmsh .msh file holds it: its nodes, its first-order elements and its
/// physical groups (named or not). Read from MSH 2.2 and MSH 4.1, ASCII or binary
/// (little-endian, 8-byte size_t, as Gmsh writes them on x86-64 and ARM); another
/// version or byte order, a second-order element, a reference to a missing node or data
/// beyond a section's counts is a kfvm::Error naming the file, the line (the section's
/// header line in binary) and the value. Host memory; no Kokkos.
struct GmshFile {
  struct Element {
    long long tag = 0;           // its number in the file (errors name it)
    int type = 0;                // Gmsh's element type (gmshElementNodes())
    int dimension = 0;           // 0 point, 1 line, 2 surface, 3 volume
    int entity = 0;              // its elementary entity's tag
    std::vector<int> physicals;  // the tags of its physical groups (of its dimension)
    std::vector<Ordinal> nodes;  // indices into GmshFile::nodes
  };
  struct PhysicalGroup {
    int dimension = 0, tag = 0;
    std::string name;  // empty when the file gives none
  };

  std::string version;                       // "2.2" or "4.1"
  std::vector<std::array<double, 3>> nodes;  // in the file's order
  std::vector<Element> elements;             // in the file's order
  std::vector<PhysicalGroup> physicalGroups;

  /// The largest dimension of an element (0 without elements).
  int dimension() const;
  /// The physical group of this dimension and tag; throws kfvm::Error when none.
  const PhysicalGroup& physicalGroup(int dimension, int tag) const;
};

/// The number of nodes of a first-order Gmsh element type: 1 line (2), 2 triangle (3),
/// 3 quadrangle (4), 4 tetrahedron (4), 5 hexahedron (8), 6 prism (6), 7 pyramid (5),
/// 15 point (1); 0 for any other type.
int gmshElementNodes(int type);
/// The dimension of a first-order Gmsh element type (-1 for any other type).
int gmshElementDimension(int type);

/// Reads the .msh file at path.
GmshFile readGmshFile(const std::string& path);
/// Reads a .msh file's text from in; name names it in errors.
GmshFile readGmshFile(std::istream& in, const std::string& name);

}  // namespace kfvm

#endif
