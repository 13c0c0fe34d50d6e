#include <detail/kfvm_PeriodicFaces.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_MeshTopology.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

namespace kfvm {

namespace {

/// A standard shape's faces as local node cycles (Gmsh's node order), flat: face f has
/// sizes[f] nodes, one face after another in nodes.
struct ShapeFaces {
  int count;
  int sizes[6];
  int nodes[24];
};

const ShapeFaces& shapeFaces(CellShape shape) {
  static constexpr ShapeFaces table[] = {
      {3, {2, 2, 2}, {0, 1, 1, 2, 2, 0}},                       // triangle
      {4, {2, 2, 2, 2}, {0, 1, 1, 2, 2, 3, 3, 0}},              // quadrilateral
      {4, {3, 3, 3, 3}, {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}},  // tetrahedron
      {6, {4, 4, 4, 4, 4, 4}, {0, 3, 2, 1, 0, 1, 5, 4, 1, 2, 6, 5,
                               2, 3, 7, 6, 3, 0, 4, 7, 4, 5, 6, 7}},  // hexahedron
      {5,
       {3, 3, 4, 4, 4},
       {0, 2, 1, 3, 4, 5, 0, 1, 4, 3, 1, 2, 5, 4, 2, 0, 3, 5}},                 // prism
      {5, {4, 3, 3, 3, 3}, {0, 3, 2, 1, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4}}};  // pyramid
  return table[static_cast<int>(shape)];
}

std::string listNodes(const Ordinal* nodes, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i)
    text += (i ? " " : "") + std::to_string(nodes[i]);
  return text;
}

std::string listNodes(const std::vector<Ordinal>& nodes) {
  return listNodes(nodes.data(), nodes.size());
}

/// "cell 3" or "cell 3 (element 17)".
std::string cellName(Ordinal cell, long long label) {
  return "cell " + std::to_string(cell) +
         (label >= 0 ? " (element " + std::to_string(label) + ")" : std::string());
}

/// Whether a face's nodes repeat one: pairs for short faces, a sorted copy for long ones.
bool repeatsANode(const Ordinal* nodes, int count) {
  if (count <= 16) {
    for (int i = 1; i < count; ++i)
      for (int k = 0; k < i; ++k)
        if (nodes[k] == nodes[i]) return true;
    return false;
  }
  std::vector<Ordinal> sorted(nodes, nodes + count);
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

}  // namespace

int cellShapeDimension(CellShape shape) {
  return shape == CellShape::Triangle || shape == CellShape::Quadrilateral ? 2 : 3;
}

int cellShapeNodes(CellShape shape) {
  constexpr int nodes[] = {3, 4, 4, 8, 6, 5};
  return nodes[static_cast<int>(shape)];
}

MeshTopology::MeshTopology(int dimension, std::vector<std::array<double, 3>> nodes)
    : dimension_(dimension), nodes_(std::move(nodes)) {
  require(dimension == 2 || dimension == 3, "a general mesh has dimension 2 or 3, got ",
          dimension);
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    for (int a = 0; a < 3; ++a)
      require(std::isfinite(nodes_[n][std::size_t(a)]), "node ", n, " has coordinate ",
              nodes_[n][std::size_t(a)]);
  }
}

void MeshTopology::checkNode(Ordinal node, const char* where) const {
  require(node >= 0 && node < Ordinal(nodes_.size()), where, " names node ", node,
          ", but the mesh has ", nodes_.size(), " nodes");
}

std::string MeshTopology::describeCell(Ordinal cell) const {
  return cellName(cell, cellLabels_.at(std::size_t(cell)));
}

Ordinal MeshTopology::addFaces(const std::vector<std::vector<Ordinal>>& faces,
                               long long label) {
  std::vector<Ordinal> nodes;
  std::vector<int> sizes;
  for (const auto& face : faces) {
    sizes.push_back(int(face.size()));
    nodes.insert(nodes.end(), face.begin(), face.end());
  }
  return addFlatFaces(nodes.data(), sizes.data(), int(sizes.size()), label);
}

Ordinal MeshTopology::addFlatFaces(const Ordinal* nodes, const int* sizes, int count,
                                   long long label) {
  // Checked before anything is added (the topology stays as it was); the cell's name is
  // made only for an error.
  const Ordinal cell = numCells();
  const Ordinal numNodes = Ordinal(nodes_.size());
  std::size_t total = 0;
  for (int f = 0; f < count; ++f) {
    const Ordinal* face = nodes + total;
    const int size = sizes[f];
    if (size < dimension_) fail(cellName(cell, label), " has a face of ", size, " nodes");
    for (int i = 0; i < size; ++i)
      if (face[i] < 0 || face[i] >= numNodes)
        checkNode(face[i], cellName(cell, label).c_str());
    if (repeatsANode(face, size))
      fail(cellName(cell, label), " is degenerate: its face (",
           listNodes(face, std::size_t(size)), ") repeats a node");
    total += std::size_t(size);
  }
  try {
    cellLabels_.push_back(label);
    faceNodes_.insert(faceNodes_.end(), nodes, nodes + total);
    Offset offset = faceNodeOffsets_.back();
    for (int f = 0; f < count; ++f) faceNodeOffsets_.push_back(offset += sizes[f]);
    cellFaceOffsets_.push_back(Offset(faceNodeOffsets_.size() - 1));
    cellRegions_.push_back(-1);
  } catch (...) {  // out of memory: the topology stays as it was
    cellLabels_.resize(std::size_t(cell));
    faceNodes_.resize(std::size_t(faceNodeOffsets_[cellFaceOffsets_[std::size_t(cell)]]));
    faceNodeOffsets_.resize(std::size_t(cellFaceOffsets_[std::size_t(cell)]) + 1);
    cellFaceOffsets_.resize(std::size_t(cell) + 1);
    cellRegions_.resize(std::size_t(cell));
    throw;
  }
  return cell;
}

Ordinal MeshTopology::addCell(CellShape shape, const std::vector<Ordinal>& nodes,
                              long long label) {
  require(cellShapeDimension(shape) == dimension_, "a cell of dimension ",
          cellShapeDimension(shape), " (element ", label, ") in a mesh of dimension ",
          dimension_);
  require(Ordinal(nodes.size()) == cellShapeNodes(shape), "a cell of this shape has ",
          cellShapeNodes(shape), " nodes, got ", nodes.size(), " (element ", label, ")");
  const ShapeFaces& faces = shapeFaces(shape);
  Ordinal flat[24];
  int total = 0;
  for (int f = 0; f < faces.count; ++f) total += faces.sizes[f];
  for (int i = 0; i < total; ++i) flat[i] = nodes[std::size_t(faces.nodes[i])];
  return addFlatFaces(flat, faces.sizes, faces.count, label);
}

Ordinal MeshTopology::addPolygon(const std::vector<Ordinal>& nodes, long long label) {
  require(dimension_ == 2, "a polygon (element ", label, ") in a mesh of dimension ",
          dimension_);
  require(nodes.size() >= 3, "a polygon has at least 3 nodes, got ", nodes.size(),
          " (element ", label, ")");
  std::vector<Ordinal> segments;  // the polygon's sides, each two nodes
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    segments.push_back(nodes[i]);
    segments.push_back(nodes[(i + 1) % nodes.size()]);
  }
  const std::vector<int> sizes(nodes.size(), 2);
  return addFlatFaces(segments.data(), sizes.data(), int(sizes.size()), label);
}

Ordinal MeshTopology::addPolyhedron(const std::vector<std::vector<Ordinal>>& faces,
                                    long long label) {
  require(dimension_ == 3, "a polyhedron (element ", label, ") in a mesh of dimension ",
          dimension_);
  require(faces.size() >= 4, "a polyhedron has at least 4 faces, got ", faces.size(),
          " (element ", label, ")");
  return addFaces(faces, label);
}

void MeshTopology::addBoundaryFace(const std::string& patch,
                                   const std::vector<Ordinal>& nodes) {
  require(!patch.empty(), "a boundary patch needs a name");
  require(Ordinal(nodes.size()) >= dimension_, "boundary face on patch '", patch,
          "' has ", nodes.size(), " nodes");
  for (Ordinal node : nodes) checkNode(node, ("patch '" + patch + "'").c_str());
  const auto found = std::find(patchNames_.begin(), patchNames_.end(), patch);
  const std::size_t p = std::size_t(found - patchNames_.begin());
  if (found == patchNames_.end()) {
    patchNames_.push_back(patch);
    patchFaceNodes_.emplace_back();
  }
  auto& flat = patchFaceNodes_[p];
  flat.push_back(Ordinal(nodes.size()));
  flat.insert(flat.end(), nodes.begin(), nodes.end());
}

void MeshTopology::setCellRegion(Ordinal cell, const std::string& region) {
  require(cell >= 0 && cell < numCells(), "cell ", cell, " for region '", region,
          "' is not one of the mesh's ", numCells(), " cells");
  require(!region.empty(), "a cell region needs a name");
  const auto found = std::find(regionNames_.begin(), regionNames_.end(), region);
  if (found == regionNames_.end()) regionNames_.push_back(region);
  const int r = int(std::find(regionNames_.begin(), regionNames_.end(), region) -
                    regionNames_.begin());
  const int before = cellRegions_[std::size_t(cell)];
  require(before < 0 || before == r, describeCell(cell), " is in region '",
          before < 0 ? std::string() : regionNames_[std::size_t(before)],
          "' and cannot also be in '", region, "'");
  cellRegions_[std::size_t(cell)] = r;
}

MeshTopology::Connectivity MeshTopology::connect() const {
  require(numCells() > 0, "a general mesh needs at least one cell");
  const std::size_t numCellFaces = faceNodeOffsets_.size() - 1;
  // Each cell face's nodes sorted: equal keys are the same face.
  std::vector<Ordinal> keys = faceNodes_;
  for (std::size_t cf = 0; cf < numCellFaces; ++cf)
    std::sort(keys.begin() + faceNodeOffsets_[cf],
              keys.begin() + faceNodeOffsets_[cf + 1]);
  const auto keyLess = [&](std::size_t x, std::size_t y) {
    return std::lexicographical_compare(
        keys.begin() + faceNodeOffsets_[x], keys.begin() + faceNodeOffsets_[x + 1],
        keys.begin() + faceNodeOffsets_[y], keys.begin() + faceNodeOffsets_[y + 1]);
  };
  // The cell faces in key order, equal keys in cell-face order: a counting sort on the
  // smallest node (a key's first entry), then a stable sort of each node's few faces on
  // the whole key. Linear in the faces and mostly sequential, where one sort of all the
  // faces through keyLess jumped about memory (the most of a 10^7-cell mesh's setup).
  std::vector<std::size_t> order(numCellFaces);
  {
    const std::size_t numNodes = nodes_.size();
    std::vector<std::size_t> bucketStart(numNodes + 1, 0);
    for (std::size_t cf = 0; cf < numCellFaces; ++cf)
      ++bucketStart[std::size_t(keys[std::size_t(faceNodeOffsets_[cf])]) + 1];
    std::partial_sum(bucketStart.begin(), bucketStart.end(), bucketStart.begin());
    std::vector<std::size_t> next(bucketStart.begin(), bucketStart.end() - 1);
    for (std::size_t cf = 0; cf < numCellFaces; ++cf)
      order[next[std::size_t(keys[std::size_t(faceNodeOffsets_[cf])])]++] = cf;
    for (std::size_t n = 0; n < numNodes; ++n)
      if (bucketStart[n + 1] - bucketStart[n] > 1)
        std::stable_sort(order.begin() + std::ptrdiff_t(bucketStart[n]),
                         order.begin() + std::ptrdiff_t(bucketStart[n + 1]), keyLess);
  }

  std::vector<Ordinal> cellOf(numCellFaces);
  for (Ordinal c = 0; c < numCells(); ++c) {
    for (Offset cf = cellFaceOffsets_[std::size_t(c)];
         cf < cellFaceOffsets_[std::size_t(c) + 1]; ++cf)
      cellOf[std::size_t(cf)] = c;
  }
  // Groups of equal keys: one cell face (boundary) or two (interior).
  std::vector<std::size_t> groupOf(numCellFaces), groupStart;
  groupStart.reserve(numCellFaces + 1);  // bounds: only the pages used are touched
  for (std::size_t i = 0; i < numCellFaces; ++i) {
    if (i == 0 || keyLess(order[i - 1], order[i])) groupStart.push_back(i);
    groupOf[order[i]] = groupStart.size() - 1;
  }
  groupStart.push_back(numCellFaces);
  for (std::size_t g = 0; g + 1 < groupStart.size(); ++g) {
    const std::size_t size = groupStart[g + 1] - groupStart[g];
    if (size == 1) continue;
    const std::size_t first = order[groupStart[g]];
    const Ordinal second = cellOf[order[groupStart[g] + 1]];
    if (size == 2 && cellOf[first] != second) continue;
    const std::string nodes =
        listNodes(faceNodes_.data() + faceNodeOffsets_[first],
                  std::size_t(faceNodeOffsets_[first + 1] - faceNodeOffsets_[first]));
    if (size > 2)
      fail("the face (", nodes, ") belongs to ", size, " cells, among them ",
           describeCell(cellOf[first]), " and ", describeCell(second));
    fail(describeCell(second), " names its face (", nodes, ") twice");
  }

  Connectivity mesh;
  const std::size_t numGroups = groupStart.size() - 1;
  mesh.faceCells.reserve(numGroups);
  mesh.faceNodeOffsets.reserve(numGroups + 1);
  mesh.faceNodes.reserve(faceNodes_.size());
  std::vector<Ordinal> faceOfGroup(numGroups, -1);
  mesh.cellFaceOffsets.assign(cellFaceOffsets_.begin(), cellFaceOffsets_.end());
  mesh.cellFaces.resize(numCellFaces);
  mesh.faceNodeOffsets.push_back(0);
  for (std::size_t cf = 0; cf < numCellFaces; ++cf) {
    Ordinal& face = faceOfGroup[groupOf[cf]];
    if (face < 0) {  // first named here: this cell owns it
      face = Ordinal(mesh.faceCells.size());
      mesh.faceCells.push_back({cellOf[cf], -1});
      mesh.faceNodes.insert(mesh.faceNodes.end(),
                            faceNodes_.begin() + faceNodeOffsets_[cf],
                            faceNodes_.begin() + faceNodeOffsets_[cf + 1]);
      mesh.faceNodeOffsets.push_back(Offset(mesh.faceNodes.size()));
    } else {
      mesh.faceCells[std::size_t(face)][1] = cellOf[cf];
    }
    mesh.cellFaces[cf] = face;
  }

  // Patches: each named face found among the boundary faces.
  const std::size_t numFaces = mesh.faceCells.size();
  std::vector<int> patchOf(numFaces, -1);
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    const auto& flat = patchFaceNodes_[p];
    for (std::size_t i = 0; i < flat.size(); i += std::size_t(flat[i]) + 1) {
      std::vector<Ordinal> nodes(flat.begin() + std::ptrdiff_t(i) + 1,
                                 flat.begin() + std::ptrdiff_t(i) + 1 + flat[i]);
      std::vector<Ordinal> key = nodes;
      std::sort(key.begin(), key.end());
      const auto found = std::lower_bound(
          order.begin(), order.end(), key,
          [&](std::size_t cf, const std::vector<Ordinal>& k) {
            return std::lexicographical_compare(keys.begin() + faceNodeOffsets_[cf],
                                                keys.begin() + faceNodeOffsets_[cf + 1],
                                                k.begin(), k.end());
          });
      const bool match =
          found != order.end() &&
          std::equal(keys.begin() + faceNodeOffsets_[*found],
                     keys.begin() + faceNodeOffsets_[*found + 1], key.begin(), key.end());
      require(match, "patch '", patchNames_[p], "' names the face (", listNodes(nodes),
              "), which no cell has");
      const Ordinal face = faceOfGroup[groupOf[*found]];
      const auto cells = mesh.faceCells[std::size_t(face)];
      if (cells[1] >= 0)
        fail("patch '", patchNames_[p], "' names the face (", listNodes(nodes),
             ") inside the mesh, between ", describeCell(cells[0]), " and ",
             describeCell(cells[1]));
      const int before = patchOf[std::size_t(face)];
      require(before < 0 || before == int(p), "the boundary face (", listNodes(nodes),
              ") is on patch '",
              before < 0 ? std::string() : patchNames_[std::size_t(before)],
              "' and on patch '", patchNames_[p], "'");
      patchOf[std::size_t(face)] = int(p);
    }
  }
  mesh.patchNames = patchNames_;
  int unnamed = -1;
  for (std::size_t f = 0; f < numFaces; ++f) {
    if (mesh.faceCells[f][1] >= 0 || patchOf[f] >= 0) continue;
    if (unnamed < 0) {
      const auto found = std::find(patchNames_.begin(), patchNames_.end(), "boundary");
      unnamed = int(found - patchNames_.begin());
      if (found == patchNames_.end()) mesh.patchNames.push_back("boundary");
    }
    patchOf[f] = unnamed;
  }
  mesh.patchSizes.assign(mesh.patchNames.size(), 0);
  for (std::size_t p = 0; p < mesh.patchNames.size(); ++p) {
    for (std::size_t f = 0; f < numFaces; ++f) {
      if (patchOf[f] != int(p)) continue;
      mesh.boundaryFaces.push_back(Ordinal(f));
      mesh.boundaryPatches.push_back(int(p));
      ++mesh.patchSizes[p];
    }
  }
  mesh.regionNames = regionNames_;
  mesh.cellRegions = cellRegions_;
  if (!periodicPairs_.empty()) Details::joinPeriodicPatches(mesh, nodes_, periodicPairs_);
  return mesh;
}

void MeshTopology::addPeriodicPair(const std::string& source, const std::string& image) {
  require(!source.empty() && !image.empty() && source != image,
          "a periodic pair needs two different patch names, got '", source, "' and '",
          image, "'");
  for (const auto& pair : periodicPairs_)
    for (const auto& name : pair)
      require(name != source && name != image, "patch '", name,
              "' is already in the periodic pair ('", pair[0], "', '", pair[1], "')");
  periodicPairs_.push_back({source, image});
}

MeshTopology MeshTopology::part(const std::vector<Ordinal>& cells,
                                const Connectivity& connectivity,
                                const std::string& cutPatch) const {
  require(Offset(connectivity.cellFaces.size()) == cellFaceOffsets_.back(),
          "mesh part: the connectivity is not this topology's");
  require(!cutPatch.empty() &&
              std::find(connectivity.patchNames.begin(), connectivity.patchNames.end(),
                        cutPatch) == connectivity.patchNames.end(),
          "mesh part: the cut patch '", cutPatch, "' is empty or one of the mesh's");
  std::vector<char> kept(std::size_t(numCells()), 0);
  for (const Ordinal cell : cells) {
    require(cell >= 0 && cell < numCells(), "mesh part: cell ", cell,
            " is not one of the ", numCells(), " cells");
    require(!kept[std::size_t(cell)], "mesh part: cell ", cell, " is named twice");
    kept[std::size_t(cell)] = 1;
  }
  std::vector<int> patchOfFace(connectivity.faceCells.size(), -1);
  for (std::size_t slot = 0; slot < connectivity.boundaryFaces.size(); ++slot)
    patchOfFace[std::size_t(connectivity.boundaryFaces[slot])] =
        connectivity.boundaryPatches[slot];
  // Periodic pairs: a joined face between two kept cells goes back on its pair's two
  // patches (each side's cell names its own nodes), so that the part's connect() joins
  // it again; one whose other cell is left out is cut like any other.
  std::map<std::vector<Ordinal>, int> periodicSide;  // sorted nodes: 2 pair + side
  for (std::size_t p = 0; p < periodicPairs_.size(); ++p)
    for (int side = 0; side < 2; ++side) {
      const auto named = std::find(patchNames_.begin(), patchNames_.end(),
                                   periodicPairs_[p][std::size_t(side)]);
      if (named == patchNames_.end()) continue;  // connect() has named it already
      const auto& flat = patchFaceNodes_[std::size_t(named - patchNames_.begin())];
      for (std::size_t k = 0; k < flat.size(); k += std::size_t(flat[k]) + 1) {
        std::vector<Ordinal> key(flat.begin() + std::ptrdiff_t(k) + 1,
                                 flat.begin() + std::ptrdiff_t(k) + 1 + flat[k]);
        std::sort(key.begin(), key.end());
        periodicSide[key] = int(2 * p) + side;
      }
    }
  std::vector<std::vector<Ordinal>> periodicFaces(2 * periodicPairs_.size());

  std::vector<Ordinal> nodeOf(nodes_.size(), -1);
  std::vector<std::array<double, 3>> nodes;
  const auto localNode = [&](Ordinal node) {
    Ordinal& local = nodeOf[std::size_t(node)];
    if (local < 0) {
      local = Ordinal(nodes.size());
      nodes.push_back(nodes_[std::size_t(node)]);
    }
    return local;
  };
  // Nodes first (addFaces checks them against the node count).
  for (const Ordinal cell : cells) {
    for (Offset cf = cellFaceOffsets_[std::size_t(cell)];
         cf < cellFaceOffsets_[std::size_t(cell) + 1]; ++cf) {
      for (Offset k = faceNodeOffsets_[std::size_t(cf)];
           k < faceNodeOffsets_[std::size_t(cf) + 1]; ++k)
        localNode(faceNodes_[std::size_t(k)]);
    }
  }
  MeshTopology part(dimension_, std::move(nodes));
  part.convention_ = convention_;
  part.regionNames_ = regionNames_;
  part.patchNames_ = connectivity.patchNames;
  part.patchNames_.push_back(cutPatch);
  part.patchFaceNodes_.resize(part.patchNames_.size());
  const int cut = int(part.patchNames_.size()) - 1;
  for (const Ordinal cell : cells) {
    std::vector<std::vector<Ordinal>> faces;
    for (Offset cf = cellFaceOffsets_[std::size_t(cell)];
         cf < cellFaceOffsets_[std::size_t(cell) + 1]; ++cf) {
      std::vector<Ordinal> face;
      for (Offset k = faceNodeOffsets_[std::size_t(cf)];
           k < faceNodeOffsets_[std::size_t(cf) + 1]; ++k)
        face.push_back(nodeOf[std::size_t(faceNodes_[std::size_t(k)])]);
      const Ordinal f = connectivity.cellFaces[std::size_t(cf)];
      const auto& faceCells = connectivity.faceCells[std::size_t(f)];
      const Ordinal other = faceCells[0] == cell ? faceCells[1] : faceCells[0];
      const int patch =
          other < 0 ? patchOfFace[std::size_t(f)] : (kept[std::size_t(other)] ? -1 : cut);
      std::vector<Ordinal>* flat =
          patch >= 0 ? &part.patchFaceNodes_[std::size_t(patch)] : nullptr;
      if (patch < 0 && !periodicSide.empty()) {  // inside the part: joined periodically?
        std::vector<Ordinal> key(
            faceNodes_.begin() + faceNodeOffsets_[std::size_t(cf)],
            faceNodes_.begin() + faceNodeOffsets_[std::size_t(cf) + 1]);
        std::sort(key.begin(), key.end());
        const auto found = periodicSide.find(key);
        if (found != periodicSide.end())
          flat = &periodicFaces[std::size_t(found->second)];
      }
      if (flat != nullptr) {
        flat->push_back(Ordinal(face.size()));
        flat->insert(flat->end(), face.begin(), face.end());
      }
      faces.push_back(std::move(face));
    }
    const Ordinal local = part.addFaces(faces, cellLabels_[std::size_t(cell)]);
    part.cellRegions_[std::size_t(local)] = cellRegions_[std::size_t(cell)];
  }
  // The pairs with joined faces in the part, their patches after the cut one (joined
  // and dropped again by connect(): every part names the same patches).
  for (std::size_t p = 0; p < periodicPairs_.size(); ++p) {
    if (periodicFaces[2 * p].empty()) continue;
    for (int side = 0; side < 2; ++side) {
      part.patchNames_.push_back(periodicPairs_[p][std::size_t(side)]);
      part.patchFaceNodes_.push_back(std::move(periodicFaces[2 * p + std::size_t(side)]));
    }
    part.periodicPairs_.push_back(periodicPairs_[p]);
  }
  return part;
}

}  // namespace kfvm
