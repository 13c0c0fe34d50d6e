#include <kfvm_Error.hpp>
#include <kfvm_MeshPartition.hpp>

#ifdef KFVM_HAVE_METIS
#include <metis.h>
#endif

#include <algorithm>
#include <array>
#include <numeric>

namespace kfvm {

namespace {

/// Each cell's centre as the mean of its faces' nodes (each counted per face).
std::vector<std::array<double, 3>> roughCentres(const MeshTopology& topology,
                                                const MeshTopology::Connectivity& mesh) {
  std::vector<std::array<double, 3>> centres(std::size_t(topology.numCells()));
  const auto& nodes = topology.nodes();
  for (Ordinal c = 0; c < topology.numCells(); ++c) {
    std::array<double, 3> sum{0, 0, 0};
    std::size_t count = 0;
    for (Offset cf = mesh.cellFaceOffsets[std::size_t(c)];
         cf < mesh.cellFaceOffsets[std::size_t(c) + 1]; ++cf) {
      const Ordinal f = mesh.cellFaces[std::size_t(cf)];
      for (Offset k = mesh.faceNodeOffsets[std::size_t(f)];
           k < mesh.faceNodeOffsets[std::size_t(f) + 1]; ++k, ++count) {
        const auto& x = nodes[std::size_t(mesh.faceNodes[std::size_t(k)])];
        for (int a = 0; a < 3; ++a) sum[std::size_t(a)] += x[std::size_t(a)];
      }
    }
    for (int a = 0; a < 3; ++a)
      centres[std::size_t(c)][std::size_t(a)] = sum[std::size_t(a)] / double(count);
  }
  return centres;
}

/// Cells [begin, end) of order into parts [firstPart, firstPart + parts).
void bisect(std::vector<Ordinal>::iterator begin, std::vector<Ordinal>::iterator end,
            int firstPart, int parts, const std::vector<std::array<double, 3>>& centres,
            std::vector<int>& owners) {
  if (parts == 1) {
    for (auto it = begin; it != end; ++it) owners[std::size_t(*it)] = firstPart;
    return;
  }
  std::array<double, 3> lo{centres[std::size_t(*begin)]}, hi = lo;
  for (auto it = begin; it != end; ++it) {
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], centres[std::size_t(*it)][a]);
      hi[a] = std::max(hi[a], centres[std::size_t(*it)][a]);
    }
  }
  std::size_t axis = 0;
  for (std::size_t a = 1; a < 3; ++a)
    if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
  const int lower = parts / 2;
  const auto count = end - begin;
  const auto middle = begin + count * lower / parts;
  std::nth_element(begin, middle, end, [&](Ordinal x, Ordinal y) {
    const double cx = centres[std::size_t(x)][axis], cy = centres[std::size_t(y)][axis];
    return cx < cy || (cx == cy && x < y);  // ties by index: the same on every rank
  });
  bisect(begin, middle, firstPart, lower, centres, owners);
  bisect(middle, end, firstPart + lower, parts - lower, centres, owners);
}

#ifdef KFVM_HAVE_METIS
std::vector<int> metisParts(const MeshTopology& topology,
                            const MeshTopology::Connectivity& mesh, int parts) {
  const std::size_t n = std::size_t(topology.numCells());
  std::vector<idx_t> degree(n + 1, 0);
  for (const auto& cells : mesh.faceCells) {
    if (cells[1] < 0) continue;
    ++degree[std::size_t(cells[0]) + 1];
    ++degree[std::size_t(cells[1]) + 1];
  }
  std::partial_sum(degree.begin(), degree.end(), degree.begin());
  std::vector<idx_t> adjacency(std::size_t(degree.back())),
      next(degree.begin(), degree.end() - 1);
  for (const auto& cells : mesh.faceCells) {
    if (cells[1] < 0) continue;
    adjacency[std::size_t(next[std::size_t(cells[0])]++)] = idx_t(cells[1]);
    adjacency[std::size_t(next[std::size_t(cells[1])]++)] = idx_t(cells[0]);
  }
  idx_t vertices = idx_t(n), constraints = 1, nparts = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same split on every rank and every run
  std::vector<idx_t> part(n, 0);
  const int status = METIS_PartGraphKway(
      &vertices, &constraints, degree.data(), adjacency.data(), nullptr, nullptr, nullptr,
      &nparts, nullptr, nullptr, options, &cut, part.data());
  require(status == METIS_OK, "mesh partition: METIS_PartGraphKway failed (status ",
          status, ") splitting ", n, " cells into ", parts, " parts");
  return std::vector<int>(part.begin(), part.end());
}
#endif

}  // namespace

bool haveMetis() {
#ifdef KFVM_HAVE_METIS
  return true;
#else
  return false;
#endif
}

std::vector<int> partitionCells(const MeshTopology& topology,
                                const MeshTopology::Connectivity& connectivity, int parts,
                                PartitionMethod method) {
  const Ordinal n = topology.numCells();
  require(parts >= 1, "mesh partition: parts must be 1 or more, got ", parts);
  require(n >= parts, "mesh partition: ", n, " cells cannot make ", parts,
          " parts of at least one cell");
  require(method != PartitionMethod::Metis || haveMetis(),
          "mesh partition: kfvm was built without METIS (Debian: libmetis-dev); use "
          "recursive bisection");
  std::vector<int> owners(std::size_t(n), 0);
  if (parts == 1) return owners;
#ifdef KFVM_HAVE_METIS
  if (method != PartitionMethod::RecursiveBisection)
    owners = metisParts(topology, connectivity, parts);
#endif
  if (method == PartitionMethod::RecursiveBisection || !haveMetis()) {
    std::vector<Ordinal> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Ordinal(0));
    bisect(order.begin(), order.end(), 0, parts, roughCentres(topology, connectivity),
           owners);
  }
  std::vector<Ordinal> sizes(std::size_t(parts), 0);
  for (const int p : owners) ++sizes[std::size_t(p)];
  for (int p = 0; p < parts; ++p)
    require(sizes[std::size_t(p)] > 0, "mesh partition: part ", p, " of ", parts,
            " got no cell (", n, " cells)");
  return owners;
}

MeshPart meshPart(const MeshTopology& topology,
                  const MeshTopology::Connectivity& connectivity,
                  const std::vector<int>& owners, int rank, int ghostLayers) {
  const Ordinal n = topology.numCells();
  require(Ordinal(owners.size()) == n, "mesh part: ", owners.size(), " owners for ", n,
          " cells");
  require(ghostLayers == 1 || ghostLayers == 2,
          "mesh part: ghost layers must be 1 or 2, got ", ghostLayers);
  std::vector<int> layer(std::size_t(n), -1);  // 0: owned, 1, 2: ghost layers
  std::vector<Ordinal> cells;
  for (Ordinal c = 0; c < n; ++c) {
    if (owners[std::size_t(c)] != rank) continue;
    layer[std::size_t(c)] = 0;
    cells.push_back(c);
  }
  require(!cells.empty(), "mesh part: rank ", rank, " owns no cell");
  MeshPart part{MeshTopology(topology.dimension(), {}), {}, Ordinal(cells.size()), {}};
  std::size_t layerBegin = 0;
  for (int l = 1; l <= ghostLayers; ++l) {
    const std::size_t layerEnd = cells.size();
    std::vector<Ordinal> next;
    for (std::size_t i = layerBegin; i < layerEnd; ++i) {
      const Ordinal c = cells[i];
      for (Offset cf = connectivity.cellFaceOffsets[std::size_t(c)];
           cf < connectivity.cellFaceOffsets[std::size_t(c) + 1]; ++cf) {
        const auto& faceCells =
            connectivity.faceCells[std::size_t(connectivity.cellFaces[std::size_t(cf)])];
        const Ordinal other = faceCells[0] == c ? faceCells[1] : faceCells[0];
        if (other < 0 || layer[std::size_t(other)] >= 0) continue;
        layer[std::size_t(other)] = l;
        next.push_back(other);
      }
    }
    std::sort(next.begin(), next.end());
    cells.insert(cells.end(), next.begin(), next.end());
    layerBegin = layerEnd;
  }
  part.topology = topology.part(cells, connectivity, MeshPart::cutPatch);
  part.globalCells.assign(cells.begin(), cells.end());
  for (std::size_t i = std::size_t(part.ownedCells); i < cells.size(); ++i)
    part.ghostOwners.push_back(owners[std::size_t(cells[i])]);
  return part;
}

}  // namespace kfvm
