// The binary sections of Gmsh .msh files (MSH 2.2 and 4.1, little-endian, 8-byte
// size_t), read into GmshFile as the ASCII ones are.
#include <detail/kfvm_GmshReading.hpp>

namespace kfvm::Details::Gmsh {

/// MSH 2.2 binary: a count line, then per node int tag and 3 doubles; elements in
/// blocks of one type: int type, count, number of tags, then per element int tag, its
/// tags (physical, entity, ...) and its nodes.
void readVersion2Binary(Lines& lines, GmshFile& mesh, NodeIndex& index,
                        const std::string& section) {
  lines.require(section.c_str());
  if (section == "$Nodes") {
    const int count = lines.integer("the number of nodes", 0, maxCount);
    mesh.nodes.reserve(std::size_t(count));
    for (int n = 0; n < count; ++n) {
      const int tag = lines.binary<int>("$Nodes");
      std::array<double, 3> x;
      lines.binary(x.data(), 3, "$Nodes");
      if (!index.emplace(tag, Ordinal(mesh.nodes.size())).second)
        fail(lines.where(), "node ", tag, " appears twice");
      mesh.nodes.push_back(x);
    }
    expectBinaryEnd(lines, "Nodes");
    return;
  }
  const int count = lines.integer("the number of elements", 0, maxCount);
  mesh.elements.reserve(std::size_t(count));
  while (int(mesh.elements.size()) < count) {
    int header[3];
    lines.binary(header, 3, "$Elements");
    const int type = checkedType(lines, header[0]);
    if (header[1] < 0 || header[1] > count - int(mesh.elements.size()) || header[2] < 0 ||
        header[2] > 1000)
      fail(lines.where(), "a binary element block of ", header[1], " elements with ",
           header[2], " tags each does not fit the section's ", count, " elements");
    std::vector<int> data(std::size_t(1 + header[2] + gmshElementNodes(type)));
    for (int e = 0; e < header[1]; ++e) {
      lines.binary(data.data(), data.size(), "$Elements");
      GmshFile::Element element;
      element.tag = data[0];
      element.type = type;
      element.dimension = gmshElementDimension(type);
      if (header[2] > 0 && data[1] > 0) element.physicals.push_back(data[1]);
      if (header[2] > 1) element.entity = data[2];
      for (const int p : element.physicals) notePhysical(mesh, element.dimension, p);
      for (int v = 0; v < gmshElementNodes(type); ++v)
        element.nodes.push_back(
            nodeIndex(lines, index, data[std::size_t(1 + header[2] + v)]));
      mesh.elements.push_back(std::move(element));
    }
  }
  expectBinaryEnd(lines, "Elements");
}

/// MSH 4.1 binary $Entities: 4 counts (size_t), then per entity int tag, its bounding
/// box (3 or 6 doubles), its physical tags (a size_t count, ints) and, beyond points,
/// its bounding entities (a size_t count, ints).
void readEntities4Binary(Lines& lines, GmshFile& mesh, EntityPhysicals& physicals) {
  std::size_t counts[4];
  lines.binary(counts, 4, "$Entities");
  for (int d = 0; d < 4; ++d) {
    const int entities = lines.binaryCount(counts[d], "a number of entities");
    for (int n = 0; n < entities; ++n) {
      const int tag = lines.binary<int>("$Entities");
      double box[6];
      lines.binary(box, d == 0 ? 3 : 6, "$Entities");
      std::vector<int> tags(std::size_t(lines.binaryCount(
          lines.binary<std::size_t>("$Entities"), "a number of physical tags")));
      lines.binary(tags.data(), tags.size(), "$Entities");
      auto& physical = physicals[{d, tag}];
      for (const int t : tags) {
        physical.push_back(t < 0 ? -t : t);
        notePhysical(mesh, d, physical.back());
      }
      if (d > 0) {
        std::vector<int> bounding(std::size_t(lines.binaryCount(
            lines.binary<std::size_t>("$Entities"), "a number of bounding entities")));
        lines.binary(bounding.data(), bounding.size(), "$Entities");
      }
    }
  }
  expectBinaryEnd(lines, "Entities");
}

/// MSH 4.1 binary $Nodes: 4 size_t (blocks, nodes, smallest and largest tag), then per
/// block int dimension, entity, parametric, a size_t count, the tags (size_t) and the
/// coordinates (3 doubles a node, and the parametric ones after them).
void readNodes4Binary(Lines& lines, GmshFile& mesh, NodeIndex& index) {
  std::size_t header[4];
  lines.binary(header, 4, "$Nodes");
  const int blocks = lines.binaryCount(header[0], "the number of node blocks");
  const int count = lines.binaryCount(header[1], "the number of nodes");
  mesh.nodes.reserve(std::size_t(count));
  for (int b = 0; b < blocks; ++b) {
    int info[3];
    lines.binary(info, 3, "$Nodes");
    const int inBlock = lines.binaryCount(lines.binary<std::size_t>("$Nodes"),
                                          "the number of nodes in a block");
    std::vector<std::size_t> tags(static_cast<std::size_t>(inBlock));
    lines.binary(tags.data(), tags.size(), "$Nodes");
    const int perNode = 3 + (info[2] != 0 ? info[0] : 0);
    std::vector<double> x(std::size_t(inBlock) * std::size_t(perNode));
    lines.binary(x.data(), x.size(), "$Nodes");
    for (int n = 0; n < inBlock; ++n) {
      if (!index.emplace((long long)tags[std::size_t(n)], Ordinal(mesh.nodes.size()))
               .second)
        fail(lines.where(), "node ", tags[std::size_t(n)], " appears twice");
      const double* p = x.data() + std::size_t(n) * std::size_t(perNode);
      mesh.nodes.push_back({p[0], p[1], p[2]});
    }
  }
  if (Ordinal(mesh.nodes.size()) != count)
    fail(lines.where(), "the $Nodes section holds ", mesh.nodes.size(), " nodes, not ",
         count);
  expectBinaryEnd(lines, "Nodes");
}

/// MSH 4.1 binary $Elements: 4 size_t, then per block int dimension, entity, type, a
/// size_t count, and per element its tag and nodes (size_t).
void readElements4Binary(Lines& lines, GmshFile& mesh, const NodeIndex& index,
                         const EntityPhysicals& physicals) {
  std::size_t header[4];
  lines.binary(header, 4, "$Elements");
  const int blocks = lines.binaryCount(header[0], "the number of element blocks");
  const int count = lines.binaryCount(header[1], "the number of elements");
  mesh.elements.reserve(std::size_t(count));
  for (int b = 0; b < blocks; ++b) {
    int info[3];
    lines.binary(info, 3, "$Elements");
    const int type = checkedType(lines, info[2]);
    if (gmshElementDimension(type) != info[0])
      fail(lines.where(), "element type ", type, " in an entity of dimension ", info[0]);
    const int inBlock = lines.binaryCount(lines.binary<std::size_t>("$Elements"),
                                          "the number of elements in a block");
    const auto found = physicals.find({info[0], info[1]});
    std::vector<std::size_t> data(std::size_t(1 + gmshElementNodes(type)));
    for (int e = 0; e < inBlock; ++e) {
      lines.binary(data.data(), data.size(), "$Elements");
      GmshFile::Element element;
      element.tag = (long long)data[0];
      element.type = type;
      element.dimension = info[0];
      element.entity = info[1];
      if (found != physicals.end()) element.physicals = found->second;
      for (std::size_t v = 1; v < data.size(); ++v)
        element.nodes.push_back(nodeIndex(lines, index, (long long)data[v]));
      mesh.elements.push_back(std::move(element));
    }
  }
  if (Ordinal(mesh.elements.size()) != count)
    fail(lines.where(), "the $Elements section holds ", mesh.elements.size(),
         " elements, not ", count);
  expectBinaryEnd(lines, "Elements");
}

}  // namespace kfvm::Details::Gmsh
