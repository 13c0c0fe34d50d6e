#include <kfvm_Error.hpp>
#include <kfvm_MeshGenerators.hpp>
#include <kfvm_Patch.hpp>

#include <vector>

namespace kfvm {

MeshTopology cutCubeMesh(
    int n, CubeCut cut,
    const std::function<std::array<double, 3>(const std::array<double, 3>&)>& move) {
  require(n >= 1, "cutCubeMesh: n must be at least 1, got ", n);
  using Point = std::array<double, 3>;
  std::vector<Point> lattice;
  for (int k = 0; k <= n; ++k) {
    for (int j = 0; j <= n; ++j) {
      for (int i = 0; i <= n; ++i)
        lattice.push_back({double(i) / n, double(j) / n, double(k) / n});
    }
  }
  const auto id = [n](int i, int j, int k) {
    return Ordinal(i + (n + 1) * (j + (n + 1) * k));
  };
  const Ordinal corners = Ordinal(lattice.size());
  for (int c = 0; cut == CubeCut::Pyramids && c < n * n * n; ++c) {
    const int i = c % n, j = (c / n) % n, k = c / (n * n);
    lattice.push_back({(i + 0.5) / n, (j + 0.5) / n, (k + 0.5) / n});
  }
  std::vector<Point> nodes = lattice;
  if (move) {
    for (auto& x : nodes) x = move(x);
  }
  MeshTopology topology(3, std::move(nodes));
  // A cell face whose nodes all lie on a side of the (unmoved) lattice is on its patch.
  const auto addIfOnSide = [&](const std::vector<Ordinal>& face) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int side = 0; side < 2; ++side) {
        bool on = true;
        for (Ordinal node : face)
          on = on && lattice[std::size_t(node)][std::size_t(axis)] == side;
        if (on)
          topology.addBoundaryFace(patchName(static_cast<Patch>(2 * axis + side)), face);
      }
    }
  };
  // Pyramids: the cube's faces, outward, as bases. Tetrahedra: the paths from corner 0
  // to corner 6 along three edges, and each tetrahedron's 4 faces.
  const int bases[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                           {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  const int paths[6][2] = {{1, 2}, {1, 5}, {3, 2}, {3, 7}, {4, 5}, {4, 7}};
  const int tetFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const Ordinal v[8] = {id(i, j, k),
                              id(i + 1, j, k),
                              id(i + 1, j + 1, k),
                              id(i, j + 1, k),
                              id(i, j, k + 1),
                              id(i + 1, j, k + 1),
                              id(i + 1, j + 1, k + 1),
                              id(i, j + 1, k + 1)};
        if (cut == CubeCut::Pyramids) {
          const Ordinal apex = corners + i + n * (j + n * k);
          for (const auto& b : bases) {
            topology.addCell(CellShape::Pyramid,
                             {v[b[0]], v[b[1]], v[b[2]], v[b[3]], apex});
            addIfOnSide({v[b[0]], v[b[1]], v[b[2]], v[b[3]]});
          }
          continue;
        }
        for (const auto& p : paths) {
          const Ordinal tet[4] = {v[0], v[p[0]], v[p[1]], v[6]};
          topology.addCell(CellShape::Tetrahedron, {tet[0], tet[1], tet[2], tet[3]});
          for (const auto& f : tetFaces) addIfOnSide({tet[f[0]], tet[f[1]], tet[f[2]]});
        }
      }
    }
  }
  return topology;
}

}  // namespace kfvm
