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

namespace {

/// The file's lines, read one at a time, split into numbers or words, with the line
/// number for errors.
class Lines {
 public:
  Lines(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

  /// The next line; false at the end of the file.
  bool next() {
    if (!std::getline(in_, line_)) return false;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    ++number_;
    at_ = 0;
    return true;
  }
  /// The next line, which must exist (within section).
  void require(const char* section) {
    if (!next()) fail(where(), "the file ends inside ", section);
  }
  const std::string& line() const { return line_; }
  std::string where() const {
    return "Gmsh mesh '" + name_ + "', line " + std::to_string(number_) + ": ";
  }

  /// The line's next integer.
  long long integer(const char* what) {
    skip();
    const char* start = line_.c_str() + at_;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(start, &end, 10);
    if (end == start || errno != 0 || (*end != '\0' && *end != ' ' && *end != '\t'))
      fail(where(), "expected ", what, ", got '", token(), "'");
    at_ += std::size_t(end - start);
    return value;
  }
  /// The line's next integer, in [low, high].
  int integer(const char* what, long long low, long long high) {
    const long long value = integer(what);
    if (value < low || value > high)
      fail(where(), what, " ", value, " is outside [", low, ", ", high, "]");
    return int(value);
  }
  /// The line's next real number.
  double real(const char* what) {
    skip();
    const char* start = line_.c_str() + at_;
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(start, &end);
    if (end == start || errno == ERANGE)
      fail(where(), "expected ", what, ", got '", token(), "'");
    at_ += std::size_t(end - start);
    return value;
  }
  /// The rest of the line, quotes taken off.
  std::string rest() {
    skip();
    std::string s = line_.substr(at_);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
      s = s.substr(1, s.size() - 2);
    at_ = line_.size();
    return s;
  }

 private:
  void skip() {
    while (at_ < line_.size() && (line_[at_] == ' ' || line_[at_] == '\t')) ++at_;
  }
  std::string token() {
    skip();
    const auto end = line_.find_first_of(" \t", at_);
    return line_.substr(at_, end == std::string::npos ? std::string::npos : end - at_);
  }

  std::istream& in_;
  std::string name_, line_;
  long long number_ = 0;
  std::size_t at_ = 0;
};

constexpr long long maxCount = std::numeric_limits<Ordinal>::max();

/// Reads the lines up to "$End<section>".
void expectEnd(Lines& lines, const std::string& section) {
  lines.require(section.c_str());
  if (lines.line() != "$End" + section)
    fail(lines.where(), "expected $End", section, ", got '", lines.line(), "'");
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
void addNodes(Lines& lines, const std::unordered_map<long long, Ordinal>& index,
              int count, GmshFile::Element& element) {
  element.nodes.resize(std::size_t(count));
  for (int v = 0; v < count; ++v) {
    const long long tag = lines.integer("a node tag");
    const auto found = index.find(tag);
    if (found == index.end())
      fail(lines.where(), "the element refers to node ", tag, ", which the file lacks");
    element.nodes[std::size_t(v)] = found->second;
  }
}

int elementType(Lines& lines) {
  const int type = lines.integer("an element type", 1, maxCount);
  if (gmshElementNodes(type) == 0)
    fail(lines.where(), "element type ", type,
         " is not a first-order point, line, triangle, quadrangle, tetrahedron, "
         "hexahedron, prism or pyramid (mesh with Gmsh's -order 1)");
  return type;
}

void readVersion2(Lines& lines, GmshFile& mesh,
                  std::unordered_map<long long, Ordinal>& index,
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

using EntityPhysicals = std::map<std::pair<int, int>, std::vector<int>>;

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

void readNodes4(Lines& lines, GmshFile& mesh,
                std::unordered_map<long long, Ordinal>& index) {
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

void readElements4(Lines& lines, GmshFile& mesh,
                   const std::unordered_map<long long, Ordinal>& index,
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

}  // namespace

GmshFile readGmshFile(std::istream& in, const std::string& name) {
  Lines lines(in, name);
  GmshFile mesh;
  std::unordered_map<long long, Ordinal> index;  // node tag -> index
  EntityPhysicals physicals;
  bool sawNodes = false, sawElements = false;
  while (lines.next()) {
    const std::string section = lines.rest();
    if (section.empty()) continue;
    if (section == "$MeshFormat") {
      lines.require("$MeshFormat");
      const double version = lines.real("the format version");
      const int binary = lines.integer("the file type", 0, 1);
      if (version >= 2 && version < 3)
        mesh.version = "2.2";
      else if (version >= 4.1 && version < 5)
        mesh.version = "4.1";
      else
        fail(lines.where(), "MSH version ", version,
             " is not read (MSH 2.2 and 4.1 are: save with Gmsh's -format msh22 or "
             "msh41)");
      if (binary != 0)
        fail(lines.where(),
             "a binary MSH file is not read yet (save it as ASCII: Gmsh's "
             "-save_all -bin 0)");
      expectEnd(lines, "MeshFormat");
    } else if (mesh.version.empty()) {
      fail(lines.where(), "expected $MeshFormat first, got '", section, "'");
    } else if (section == "$PhysicalNames") {
      readPhysicalNames(lines, mesh);
    } else if (section == "$Entities" && mesh.version == "4.1") {
      readEntities4(lines, mesh, physicals);
    } else if (section == "$Nodes") {
      if (mesh.version == "2.2")
        readVersion2(lines, mesh, index, section);
      else
        readNodes4(lines, mesh, index);
      sawNodes = true;
    } else if (section == "$Elements") {
      if (!sawNodes) fail(lines.where(), "$Elements before $Nodes");
      if (mesh.version == "2.2")
        readVersion2(lines, mesh, index, section);
      else
        readElements4(lines, mesh, index, physicals);
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
