#include <kfvm_Backends.hpp>
#include <kfvm_CellPolygons.hpp>
#include <kfvm_Error.hpp>

namespace kfvm {

template <class ExecSpace>
std::vector<std::vector<std::array<double, 2>>> cellPolygons(
    const Mesh<ExecSpace>& mesh) {
  require(mesh.dimension() == 2, "cellPolygons: the mesh is ", mesh.dimension(),
          "D, not 2D");
  std::vector<std::vector<std::array<double, 2>>> polygons(std::size_t(mesh.numCells()));
  if (mesh.hasGridLayout()) {
    const auto& grid = mesh.gridLayout();
    const auto& xs = grid.vertices(0);
    const auto& ys = grid.vertices(1);
    for (int j = 0; j < grid.cells(1); ++j) {
      for (int i = 0; i < grid.cells(0); ++i) {
        const std::size_t x = std::size_t(i), y = std::size_t(j);
        polygons[x + std::size_t(grid.cells(0)) * y] = {{xs[x], ys[y]},
                                                        {xs[x + 1], ys[y]},
                                                        {xs[x + 1], ys[y + 1]},
                                                        {xs[x], ys[y + 1]}};
      }
    }
    return polygons;
  }
  const auto host = [](const auto& view) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  };
  const auto nodes = host(mesh.nodes());
  const auto nodeOffsets = host(mesh.faceNodeOffsets());
  const auto faceNodes = host(mesh.faceNodes());
  const auto cellOffsets = host(mesh.cellFaceOffsets());
  const auto cellFaces = host(mesh.cellFaces());
  const auto faceCells = host(mesh.faceCells());
  // A face joining periodic patches: its second cell has the image side's nodes.
  const auto imageNodes = host(mesh.faceImageNodes());
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    std::vector<std::array<Ordinal, 2>> segments;
    for (Offset i = cellOffsets(c); i < cellOffsets(c + 1); ++i) {
      const Ordinal f = cellFaces(i);
      const Offset first = nodeOffsets(f);
      const bool image = imageNodes.extent(0) > 0 && faceCells(f, 1) == c;
      const auto& list = image ? imageNodes : faceNodes;
      segments.push_back({list(first), list(first + 1)});
    }
    std::vector<Ordinal> chain{segments[0][0], segments[0][1]};
    segments.erase(segments.begin());
    while (!segments.empty()) {
      const Ordinal end = chain.back();
      auto next = segments.begin();
      while (next != segments.end() && (*next)[0] != end && (*next)[1] != end) ++next;
      require(next != segments.end(), "cellPolygons: the faces of cell ", c,
              " do not close around it");
      chain.push_back((*next)[0] == end ? (*next)[1] : (*next)[0]);
      segments.erase(next);
    }
    require(chain.back() == chain.front(), "cellPolygons: the faces of cell ", c,
            " do not close around it");
    chain.pop_back();
    auto& polygon = polygons[std::size_t(c)];
    for (Ordinal n : chain) polygon.push_back({double(nodes(n, 0)), double(nodes(n, 1))});
  }
  return polygons;
}

#define KFVM_INSTANTIATE_CELL_POLYGONS(Space)                                   \
  template std::vector<std::vector<std::array<double, 2>>> cellPolygons<Space>( \
      const Mesh<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CELL_POLYGONS)

}  // namespace kfvm
