// Periodic patch pairs of general meshes: matching two patches' faces by a translation
// and joining them into interior faces (MeshTopology::connect()).
#include <detail/kfvm_PeriodicFaces.hpp>
#include <kfvm_Error.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace kfvm::Details {

namespace {

using Point = std::array<double, 3>;

std::string describePoint(const Point& p) {
  std::ostringstream text;
  text.precision(6);
  text << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
  return text.str();
}

/// Points binned in cubes of side `cell`: the points within `tolerance` (<= cell) of a
/// point are in its cube or the 26 around it.
class PointBins {
 public:
  /// Bins counted from origin (the mesh's lowest corner: keys stay small).
  PointBins(const Point& origin, double cell) : origin_(origin), cell_(cell) {}
  void add(const Point& p, Ordinal id) { bins_[key(p)].push_back({p, id}); }
  /// The id of the one point within tolerance of p (added once or more), -1 for none,
  /// -2 for several.
  Ordinal find(const Point& p, double tolerance) const {
    const auto k = key(p);
    Ordinal found = -1;
    for (long long i = -1; i <= 1; ++i)
      for (long long j = -1; j <= 1; ++j)
        for (long long m = -1; m <= 1; ++m) {
          const auto bin = bins_.find({k[0] + i, k[1] + j, k[2] + m});
          if (bin == bins_.end()) continue;
          for (const auto& [q, id] : bin->second) {
            double d = 0;
            for (int a = 0; a < 3; ++a) d += (q[a] - p[a]) * (q[a] - p[a]);
            if (std::sqrt(d) > tolerance) continue;
            found = found == -1 || found == id ? id : -2;  // an id added twice is one
          }
        }
    return found;
  }

 private:
  std::array<long long, 3> key(const Point& p) const {
    std::array<long long, 3> k{};
    for (int a = 0; a < 3; ++a) k[a] = (long long)std::floor((p[a] - origin_[a]) / cell_);
    return k;
  }
  Point origin_;
  double cell_;
  std::map<std::array<long long, 3>, std::vector<std::pair<Point, Ordinal>>> bins_;
};

int patchNamed(const MeshTopology::Connectivity& mesh, const std::string& name) {
  const auto found = std::find(mesh.patchNames.begin(), mesh.patchNames.end(), name);
  if (found != mesh.patchNames.end()) return int(found - mesh.patchNames.begin());
  std::string known;
  for (const auto& patch : mesh.patchNames)
    known += (known.empty() ? "'" : ", '") + patch + "'";
  fail("periodic pair: the mesh has no patch '", name, "' (its patches: ", known, ")");
}

}  // namespace

void joinPeriodicPatches(MeshTopology::Connectivity& mesh,
                         const std::vector<Point>& nodes,
                         const std::vector<std::array<std::string, 2>>& pairs) {
  const std::size_t numFaces = mesh.faceCells.size();
  // The mesh's size: tolerances are relative to it.
  Point low = nodes.empty() ? Point{0, 0, 0} : nodes[0], high = low;
  for (const auto& p : nodes)
    for (int a = 0; a < 3; ++a) {
      low[a] = std::min(low[a], p[a]);
      high[a] = std::max(high[a], p[a]);
    }
  double size = 0;
  for (int a = 0; a < 3; ++a) size += (high[a] - low[a]) * (high[a] - low[a]);
  const double tolerance = 1e-6 * std::sqrt(size);
  require(tolerance > 0 && std::isfinite(tolerance),
          "periodic pairs: the mesh's nodes span no space (size ", std::sqrt(size), ")");
  const auto faceNodes = [&](std::size_t f) {
    return std::vector<Ordinal>(mesh.faceNodes.begin() + mesh.faceNodeOffsets[f],
                                mesh.faceNodes.begin() + mesh.faceNodeOffsets[f + 1]);
  };
  const auto centre = [&](std::size_t f) {
    Point c{0, 0, 0};
    const auto list = faceNodes(f);
    for (const Ordinal n : list)
      for (int a = 0; a < 3; ++a) c[a] += nodes[std::size_t(n)][a] / double(list.size());
    return c;
  };

  std::vector<std::vector<Ordinal>> patchFaces(mesh.patchNames.size());
  for (std::size_t slot = 0; slot < mesh.boundaryFaces.size(); ++slot)
    patchFaces[std::size_t(mesh.boundaryPatches[slot])].push_back(
        mesh.boundaryFaces[slot]);
  mesh.faceShifts.assign(numFaces, Point{0, 0, 0});
  std::vector<Ordinal> replacedBy(numFaces, -1);  // an image face: its source face
  std::vector<char> imaged(numFaces, 0);          // a source face already matched
  std::vector<std::vector<Ordinal>> imageNodes(numFaces);  // a joined face's, aligned
  std::vector<char> dropped(mesh.patchNames.size(), 0);
  for (const auto& pair : pairs) {
    const int source = patchNamed(mesh, pair[0]), image = patchNamed(mesh, pair[1]);
    const auto& sources = patchFaces[std::size_t(source)];
    const auto& images = patchFaces[std::size_t(image)];
    require(!sources.empty() && sources.size() == images.size(), "periodic pair ('",
            pair[0], "', '", pair[1], "'): the patches have ", sources.size(), " and ",
            images.size(), " faces; their faces must match one for one");
    // The translation from source to image: the difference of the face centres' means.
    Point move{0, 0, 0};
    for (const Ordinal f : sources) {
      const auto c = centre(std::size_t(f));
      for (int a = 0; a < 3; ++a) move[a] -= c[a] / double(sources.size());
    }
    for (const Ordinal f : images) {
      const auto c = centre(std::size_t(f));
      for (int a = 0; a < 3; ++a) move[a] += c[a] / double(images.size());
    }
    PointBins sourceCentres(low, 4 * tolerance), nodeBins(low, 4 * tolerance);
    for (const Ordinal f : sources) {
      sourceCentres.add(centre(std::size_t(f)), f);
      for (const Ordinal n : faceNodes(std::size_t(f)))
        nodeBins.add(nodes[std::size_t(n)], n);
    }
    const std::string where = "periodic pair ('" + pair[0] + "', '" + pair[1] + "')";
    for (const Ordinal f : images) {
      auto c = centre(std::size_t(f));
      for (int a = 0; a < 3; ++a) c[a] -= move[a];
      const Ordinal match = sourceCentres.find(c, tolerance);
      if (match < 0)
        fail(where, ": the face of '", pair[1], "' centred at ",
             describePoint(centre(std::size_t(f))), " has no face of '", pair[0], "' at ",
             describePoint(c), " (the patches differ by the translation ",
             describePoint(move), ")");
      if (imaged[std::size_t(match)])
        fail(where, ": two faces of '", pair[1], "' are the image of the face of '",
             pair[0], "' centred at ", describePoint(centre(std::size_t(match))));
      // Node for node: the image face's nodes moved back are the source face's.
      const auto sourceNodes = faceNodes(std::size_t(match));
      auto& aligned = imageNodes[std::size_t(match)];
      aligned.assign(sourceNodes.size(), -1);
      for (const Ordinal n : faceNodes(std::size_t(f))) {
        Point p = nodes[std::size_t(n)];
        for (int a = 0; a < 3; ++a) p[a] -= move[a];
        const Ordinal at = nodeBins.find(p, tolerance);
        if (at < 0 ||
            std::find(sourceNodes.begin(), sourceNodes.end(), at) == sourceNodes.end())
          fail(where, ": node ", n, " of the face of '", pair[1], "' centred at ",
               describePoint(centre(std::size_t(f))),
               " is on no node of its image's face on '", pair[0], "'");
        aligned[std::size_t(std::find(sourceNodes.begin(), sourceNodes.end(), at) -
                            sourceNodes.begin())] = n;
      }
      replacedBy[std::size_t(f)] = match;
      imaged[std::size_t(match)] = 1;
      mesh.faceCells[std::size_t(match)][1] = mesh.faceCells[std::size_t(f)][0];
      for (int a = 0; a < 3; ++a) mesh.faceShifts[std::size_t(match)][a] = -move[a];
    }
    dropped[std::size_t(source)] = dropped[std::size_t(image)] = 1;
  }

  // Renumber: the image faces go, the others keep their order.
  std::vector<Ordinal> newIndex(numFaces, -1);
  MeshTopology::Connectivity joined;
  joined.faceNodeOffsets.push_back(0);
  for (std::size_t f = 0; f < numFaces; ++f) {
    if (replacedBy[f] >= 0) continue;
    newIndex[f] = Ordinal(joined.faceCells.size());
    joined.faceCells.push_back(mesh.faceCells[f]);
    joined.faceShifts.push_back(mesh.faceShifts[f]);
    const auto list = faceNodes(f);
    joined.faceNodes.insert(joined.faceNodes.end(), list.begin(), list.end());
    const auto& image = imageNodes[f].empty() ? list : imageNodes[f];
    joined.faceImageNodes.insert(joined.faceImageNodes.end(), image.begin(), image.end());
    joined.faceNodeOffsets.push_back(Offset(joined.faceNodes.size()));
  }
  joined.cellFaceOffsets = mesh.cellFaceOffsets;
  for (const Ordinal f : mesh.cellFaces) {
    const Ordinal kept = replacedBy[std::size_t(f)] >= 0 ? replacedBy[std::size_t(f)] : f;
    joined.cellFaces.push_back(newIndex[std::size_t(kept)]);
  }
  std::vector<int> newPatch(mesh.patchNames.size(), -1);
  for (std::size_t p = 0; p < mesh.patchNames.size(); ++p) {
    if (dropped[p]) continue;
    newPatch[p] = int(joined.patchNames.size());
    joined.patchNames.push_back(mesh.patchNames[p]);
    joined.patchSizes.push_back(mesh.patchSizes[p]);
  }
  for (std::size_t slot = 0; slot < mesh.boundaryFaces.size(); ++slot) {
    const int patch = newPatch[std::size_t(mesh.boundaryPatches[slot])];
    if (patch < 0) continue;
    joined.boundaryFaces.push_back(newIndex[std::size_t(mesh.boundaryFaces[slot])]);
    joined.boundaryPatches.push_back(patch);
  }
  joined.regionNames = std::move(mesh.regionNames);
  joined.cellRegions = std::move(mesh.cellRegions);
  mesh = std::move(joined);
}

}  // namespace kfvm::Details
