#include <detail/kfvm_GmshReading.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_GmshFile.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <unordered_map>

namespace kfvm {

namespace {
/// The first-order element types: Gmsh's number, nodes, dimension.
struct ElementType {
  int type, nodes, dimension;
};
constexpr ElementType elementTypes[] = {{1, 2, 1}, {2, 3, 2}, {3, 4, 2}, {4, 4, 3},
                                        {5, 8, 3}, {6, 6, 3}, {7, 5, 3}, {15, 1, 0}};
const ElementType* findType(int type) {
  for (const auto& t : elementTypes)
    if (t.type == type) return &t;
  return nullptr;
}
}  // namespace

int gmshElementNodes(int type) {
  const auto* t = findType(type);
  return t ? t->nodes : 0;
}

int gmshElementDimension(int type) {
  const auto* t = findType(type);
  return t ? t->dimension : -1;
}

int GmshFile::dimension() const {
  int d = 0;
  for (const auto& element : elements) d = element.dimension > d ? element.dimension : d;
  return d;
}

const GmshFile::PhysicalGroup& GmshFile::physicalGroup(int dim, int tag) const {
  for (const auto& group : physicalGroups)
    if (group.dimension == dim && group.tag == tag) return group;
  fail("Gmsh mesh: no physical group of dimension ", dim, " and tag ", tag);
}

namespace Details::Gmsh {

/// Reads the lines up to "$End<section>".
void expectEnd(Lines& lines, const std::string& section) {
  lines.require(section.c_str());
  if (lines.line() != "$End" + section)
    fail(lines.where(), "expected $End", section, ", got '", lines.line(), "'");
}

/// The end of a binary section: the newline after its data, then "$End<section>".
void expectBinaryEnd(Lines& lines, const std::string& section) {
  lines.require(section.c_str());
  if (!lines.line().empty())
    fail(lines.where(), "the binary $", section,
         " section holds more than its counts say");
  expectEnd(lines, section);
}

void readPhysicalNames(Lines& lines, GmshFile& mesh) {
  lines.require("$PhysicalNames");
  const int count = lines.integer("the number of physical names", 0, maxCount);
  for (int n = 0; n < count; ++n) {
    lines.require("$PhysicalNames");
    GmshFile::PhysicalGroup group;
    group.dimension = lines.integer("a physical group's dimension", 0, 3);
    group.tag = lines.integer("a physical group's tag", 1, maxCount);
    group.name = lines.rest();
    mesh.physicalGroups.push_back(group);
  }
  expectEnd(lines, "PhysicalNames");
}

/// A physical group seen on an element or entity, added (without a name) when the file
/// named none.
void notePhysical(GmshFile& mesh, int dimension, int tag) {
  for (const auto& group : mesh.physicalGroups)
    if (group.dimension == dimension && group.tag == tag) return;
  mesh.physicalGroups.push_back({dimension, tag, std::string()});
}

/// An element's nodes from tags to indices.
void addNodes(Lines& lines, const NodeIndex& index, int count,
              GmshFile::Element& element) {
  element.nodes.resize(std::size_t(count));
  for (int v = 0; v < count; ++v) {
    const long long tag = lines.integer("a node tag");
    const auto found = index.find(tag);
    if (found == index.end())
      fail(lines.where(), "the element refers to node ", tag, ", which the file lacks");
    element.nodes[std::size_t(v)] = found->second;
  }
}

/// A node's index from its tag (a binary file's elements).
Ordinal nodeIndex(Lines& lines, const NodeIndex& index, long long tag) {
  const auto found = index.find(tag);
  if (found == index.end())
    fail(lines.where(), "an element refers to node ", tag, ", which the file lacks");
  return found->second;
}

int checkedType(Lines& lines, long long type) {
  if (type < 1 || type > maxCount || gmshElementNodes(int(type)) == 0)
    fail(lines.where(), "element type ", type,
         " is not a first-order point, line, triangle, quadrangle, tetrahedron, "
         "hexahedron, prism or pyramid (mesh with Gmsh's -order 1)");
  return int(type);
}

int elementType(Lines& lines) {
  const int type = lines.integer("an element type", 1, maxCount);
  if (gmshElementNodes(type) == 0)
    fail(lines.where(), "element type ", type,
         " is not a first-order point, line, triangle, quadrangle, tetrahedron, "
         "hexahedron, prism or pyramid (mesh with Gmsh's -order 1)");
  return type;
}

void readVersion2(Lines& lines, GmshFile& mesh, NodeIndex& index,
                  const std::string& section) {
  if (section == "$Nodes") {
    lines.require("$Nodes");
    const int count = lines.integer("the number of nodes", 0, maxCount);
    mesh.nodes.reserve(std::size_t(count));
    for (int n = 0; n < count; ++n) {
      lines.require("$Nodes");
      const long long tag = lines.integer("a node tag");
      const std::array<double, 3> x{lines.real("x"), lines.real("y"), lines.real("z")};
      if (!index.emplace(tag, Ordinal(mesh.nodes.size())).second)
        fail(lines.where(), "node ", tag, " appears twice");
      mesh.nodes.push_back(x);
    }
    expectEnd(lines, "Nodes");
  } else {  // $Elements
    lines.require("$Elements");
    const int count = lines.integer("the number of elements", 0, maxCount);
    mesh.elements.reserve(std::size_t(count));
    for (int e = 0; e < count; ++e) {
      lines.require("$Elements");
      GmshFile::Element element;
      element.tag = lines.integer("an element tag");
      element.type = elementType(lines);
      element.dimension = gmshElementDimension(element.type);
      const int tags = lines.integer("the number of element tags", 0, 1000);
      for (int t = 0; t < tags; ++t) {
        const int tag = int(lines.integer("an element tag"));
        if (t == 0 && tag > 0) element.physicals.push_back(tag);
        if (t == 1) element.entity = tag;
      }
      for (const int p : element.physicals) notePhysical(mesh, element.dimension, p);
      addNodes(lines, index, gmshElementNodes(element.type), element);
      mesh.elements.push_back(std::move(element));
    }
    expectEnd(lines, "Elements");
  }
}

void readEntities4(Lines& lines, GmshFile& mesh, EntityPhysicals& physicals) {
  lines.require("$Entities");
  int counts[4];
  for (int d = 0; d < 4; ++d)
    counts[d] = lines.integer("a number of entities", 0, maxCount);
  for (int d = 0; d < 4; ++d)
    for (int n = 0; n < counts[d]; ++n) {
      lines.require("$Entities");
      const int tag = lines.integer("an entity tag", 1, maxCount);
      for (int c = 0; c < (d == 0 ? 3 : 6); ++c) lines.real("a bounding coordinate");
      const int count = lines.integer("the number of physical tags", 0, maxCount);
      auto& tags = physicals[{d, tag}];
      for (int p = 0; p < count; ++p) {
        const int physical = int(lines.integer("a physical tag"));
        tags.push_back(physical < 0 ? -physical : physical);
        notePhysical(mesh, d, tags.back());
      }
    }
  expectEnd(lines, "Entities");
}

void readNodes4(Lines& lines, GmshFile& mesh, NodeIndex& index) {
  lines.require("$Nodes");
  const int blocks = lines.integer("the number of node blocks", 0, maxCount);
  const int count = lines.integer("the number of nodes", 0, maxCount);
  mesh.nodes.reserve(std::size_t(count));
  for (int b = 0; b < blocks; ++b) {
    lines.require("$Nodes");
    lines.integer("an entity dimension", 0, 3);
    lines.integer("an entity tag");
    const int parametric = lines.integer("the parametric flag", 0, 1);
    const int inBlock = lines.integer("the number of nodes in a block", 0, maxCount);
    std::vector<long long> tags(static_cast<std::size_t>(inBlock));
    for (auto& tag : tags) {
      lines.require("$Nodes");
      tag = lines.integer("a node tag");
    }
    for (const long long tag : tags) {
      lines.require("$Nodes");
      const std::array<double, 3> x{lines.real("x"), lines.real("y"), lines.real("z")};
      if (parametric != 0) lines.rest();  // parametric coordinates: not used
      if (!index.emplace(tag, Ordinal(mesh.nodes.size())).second)
        fail(lines.where(), "node ", tag, " appears twice");
      mesh.nodes.push_back(x);
    }
  }
  if (Ordinal(mesh.nodes.size()) != count)
    fail(lines.where(), "the $Nodes section holds ", mesh.nodes.size(), " nodes, not ",
         count);
  expectEnd(lines, "Nodes");
}

void readElements4(Lines& lines, GmshFile& mesh, const NodeIndex& index,
                   const EntityPhysicals& physicals) {
  lines.require("$Elements");
  const int blocks = lines.integer("the number of element blocks", 0, maxCount);
  const int count = lines.integer("the number of elements", 0, maxCount);
  mesh.elements.reserve(std::size_t(count));
  for (int b = 0; b < blocks; ++b) {
    lines.require("$Elements");
    const int dimension = lines.integer("an entity dimension", 0, 3);
    const int entity = lines.integer("an entity tag", 1, maxCount);
    const int type = elementType(lines);
    if (gmshElementDimension(type) != dimension)
      fail(lines.where(), "element type ", type, " in an entity of dimension ",
           dimension);
    const int inBlock = lines.integer("the number of elements in a block", 0, maxCount);
    const auto found = physicals.find({dimension, entity});
    for (int e = 0; e < inBlock; ++e) {
      lines.require("$Elements");
      GmshFile::Element element;
      element.tag = lines.integer("an element tag");
      element.type = type;
      element.dimension = dimension;
      element.entity = entity;
      if (found != physicals.end()) element.physicals = found->second;
      addNodes(lines, index, gmshElementNodes(type), element);
      mesh.elements.push_back(std::move(element));
    }
  }
  if (Ordinal(mesh.elements.size()) != count)
    fail(lines.where(), "the $Elements section holds ", mesh.elements.size(),
         " elements, not ", count);
  expectEnd(lines, "Elements");
}

/// Lines up to the end of a section this reader does not use.
void skipSection(Lines& lines, const std::string& section) {
  const std::string end = "$End" + section.substr(1);
  do lines.require(section.c_str());
  while (lines.line() != end);
}

}  // namespace Details::Gmsh

GmshFile readGmshFile(std::istream& in, const std::string& name) {
  using namespace Details::Gmsh;
  Lines lines(in, name);
  GmshFile mesh;
  NodeIndex index;  // node tag -> index
  EntityPhysicals physicals;
  bool sawNodes = false, sawElements = false, binary = false;
  while (lines.next()) {
    const std::string section = lines.rest();
    if (section.empty()) continue;
    if (section == "$MeshFormat") {
      lines.require("$MeshFormat");
      const double version = lines.real("the format version");
      binary = lines.integer("the file type", 0, 1) == 1;
      const int dataSize = lines.integer("the data size", 1, 64);
      if (version >= 2 && version < 3)
        mesh.version = "2.2";
      else if (version >= 4.1 && version < 5)
        mesh.version = "4.1";
      else
        fail(lines.where(), "MSH version ", version,
             " is not read (MSH 2.2 and 4.1 are: save with Gmsh's -format msh22 or "
             "msh41)");
      if (binary) {
        if (dataSize != int(sizeof(std::size_t)))
          fail(lines.where(), "a binary MSH file with data size ", dataSize,
               " (this reader takes ", sizeof(std::size_t), ")");
        if (lines.binary<int>("$MeshFormat") != 1)
          fail(lines.where(),
               "a binary MSH file of the other byte order (written on another kind of "
               "machine: save it as ASCII, Gmsh's -bin 0)");
        expectBinaryEnd(lines, "MeshFormat");
      } else {
        expectEnd(lines, "MeshFormat");
      }
    } else if (mesh.version.empty()) {
      fail(lines.where(), "expected $MeshFormat first, got '", section, "'");
    } else if (section == "$PhysicalNames") {
      readPhysicalNames(lines, mesh);
    } else if (section == "$Entities" && mesh.version == "4.1") {
      if (binary)
        readEntities4Binary(lines, mesh, physicals);
      else
        readEntities4(lines, mesh, physicals);
    } else if (section == "$Nodes") {
      if (mesh.version == "2.2")
        binary ? readVersion2Binary(lines, mesh, index, section)
               : readVersion2(lines, mesh, index, section);
      else
        binary ? readNodes4Binary(lines, mesh, index) : readNodes4(lines, mesh, index);
      sawNodes = true;
    } else if (section == "$Elements") {
      if (!sawNodes) fail(lines.where(), "$Elements before $Nodes");
      if (mesh.version == "2.2")
        binary ? readVersion2Binary(lines, mesh, index, section)
               : readVersion2(lines, mesh, index, section);
      else
        binary ? readElements4Binary(lines, mesh, index, physicals)
               : readElements4(lines, mesh, index, physicals);
      sawElements = true;
    } else if (section[0] == '$') {
      skipSection(lines, section);
    } else {
      fail(lines.where(), "expected a section, got '", section, "'");
    }
  }
  if (mesh.version.empty()) fail("Gmsh mesh '", name, "': no $MeshFormat section");
  if (!sawNodes || !sawElements)
    fail("Gmsh mesh '", name, "': no ", sawNodes ? "$Elements" : "$Nodes", " section");
  return mesh;
}

GmshFile readGmshFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(bool(in), "Gmsh mesh '", path, "' cannot be opened");
  return readGmshFile(in, path);
}

}  // namespace kfvm
