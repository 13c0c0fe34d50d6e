#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_LevelStencil.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace kfvm {

namespace Details {

template <class ExecSpace>
struct LevelApply {
  LevelGeometry<ExecSpace> g;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    Real diagonal;
    y(cell) = g.product(cell, idx, x, diagonal);
  }
};

/// a(i, j) = (A e_j)_i.
template <class ExecSpace>
struct LevelDense {
  LevelGeometry<ExecSpace> g;
  DeviceView<Real**, ExecSpace> a;
  Ordinal n;
  KOKKOS_FUNCTION void operator()(Ordinal entry) const {
    const Ordinal i = entry % n, j = entry / n;
    int idx[3];
    g.d.grid.indices(i, idx);
    Real diagonal;
    a(i, j) = g.product(i, idx, UnitVector{j}, diagonal);
  }
};

/// Per cell: 1 + (its off-diagonal magnitudes) / its diagonal (entry 0); where it has
/// neighbours on both sides along every axis, its diagonal and face coefficients and
/// their negatives (entries 1 to 8, for their ranges).
template <class ExecSpace>
struct LevelSummary {
  using Maxima = Compat::Maxima<9>;
  LevelGeometry<ExecSpace> g;
  KOKKOS_FUNCTION void operator()(Ordinal cell, Maxima& m) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    for (int a = 0; a < 3; ++a)  // owned rows only (ghost rows are partial)
      if (idx[a] < g.d.ownedBegin[a] || idx[a] >= g.d.ownedEnd[a]) return;
    const Real diagonal = g.d.diagonal(cell);
    Real off = 0;
    for (int a = 0; a < g.d.dimension; ++a)
      for (int upper = 0; upper < 2; ++upper)
        if (g.hasNeighbour(a, idx, upper))
          off += Compat::abs(g.d.faces(g.face(a, idx, upper)));
    m.raise(0, 1 + off / diagonal);
    if (!g.inside(idx)) return;
    m.raise(1, diagonal);
    m.raise(2, -diagonal);
    for (int a = 0; a < g.d.dimension; ++a)
      for (int upper = 0; upper < 2; ++upper) {
        const Real c = g.d.faces(g.face(a, idx, upper));
        m.raise(3 + 2 * a, c);
        m.raise(4 + 2 * a, -c);
      }
  }
};

/// Finest level: m = the operator's diagonal less the faces; the diagonal kept.
template <class ExecSpace>
struct LevelMassFromDiagonal {
  LevelGeometry<ExecSpace> g;
  Vector<ExecSpace> diagonal;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    g.d.grid.indices(cell, idx);
    const Real d = diagonal(cell);
    g.d.diagonal(cell) = d;
    g.d.mass(cell) = d - g.faceSum(idx);
  }
};

/// A coarse level's faces: inside, the fine faces' c d summed, over the coarse d; on the
/// boundary, their theta D A summed and their Robin a and b averaged; on a side facing
/// another rank, none (0, and a Neumann slot).
template <class ExecSpace>
struct CoarseFaces {
  LevelGeometry<ExecSpace> fine, coarse;
  Children<ExecSpace> children;
  int axis;
  KOKKOS_FUNCTION void operator()(Ordinal local) const {
    int idx[3];
    coarse.faceIndices(axis, local, idx);
    const int along = idx[axis];
    const int fineAlong = children.face(axis, along, coarse.d.global[axis]);
    int first[3] = {0, 0, 0}, count[3] = {1, 1, 1};
    for (int b = 0; b < coarse.d.dimension; ++b)
      if (b != axis) children.range(b, idx[b], first[b], count[b]);
    // The two ends of a periodic axis are one face inside (its value at both).
    const bool boundary =
        (along == 0 || along == coarse.d.cells[axis]) && !coarse.d.periodic[axis];
    const int upper = along == 0 ? 0 : 1;
    const int globalAlong = along + coarse.d.first[axis];
    const Ordinal face = coarse.d.firstFace[axis] + local;
    const bool facesRank = coarse.d.wrapped[axis] ||
                           (globalAlong != 0 && globalAlong != coarse.d.global[axis]);
    if (fineAlong < 0 || (boundary && facesRank)) {
      coarse.d.faces(face) = 0;  // beyond the fine block, or facing another rank
      if (boundary) {
        int cell[3] = {idx[0], idx[1], idx[2]};
        cell[axis] = upper ? coarse.d.cells[axis] - 1 : 0;
        const Ordinal s = coarse.slot(axis, cell, upper);
        coarse.d.robinA(s) = 0;
        coarse.d.robinB(s) = 1;
      }
      return;
    }
    Real sum = 0, a = 0, b = 0;
    int f[3], faces = 0;
    f[axis] = fineAlong;  // face(axis, f, 0) is then the fine face, the last one too
    for (int q = 0; q < count[2]; ++q)
      for (int p = 0; p < count[1]; ++p)
        for (int o = 0; o < count[0]; ++o) {
          if (axis != 0) f[0] = first[0] + o;
          if (axis != 1) f[1] = first[1] + p;
          if (axis != 2) f[2] = first[2] + q;
          sum += fine.d.faces(fine.face(axis, f, 0));
          if (boundary) {  // the slot of the fine face, as a side of its cell
            int cell[3] = {f[0], f[1], f[2]};
            cell[axis] = upper ? fine.d.cells[axis] - 1 : 0;
            const Ordinal s = fine.slot(axis, cell, upper);
            a += fine.d.robinA(s);
            b += fine.d.robinB(s);
            ++faces;
          }
        }
    if (boundary) {
      int cell[3] = {idx[0], idx[1], idx[2]};
      cell[axis] = upper ? coarse.d.cells[axis] - 1 : 0;
      const Ordinal s = coarse.slot(axis, cell, upper);
      coarse.d.faces(face) = sum;
      coarse.d.robinA(s) = faces > 0 ? a / Real(faces) : Real(0);
      coarse.d.robinB(s) = faces > 0 ? b / Real(faces) : Real(1);
    } else {
      coarse.d.faces(face) =
          sum * fine.d.distances[axis](fineAlong) / coarse.d.distances[axis](along);
    }
  }
};

/// A coarse level's m (the sum over its fine cells) and diagonal (m and the faces).
template <class ExecSpace>
struct CoarseCells {
  LevelGeometry<ExecSpace> fine, coarse;
  Children<ExecSpace> children;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    coarse.d.grid.indices(cell, idx);
    const Real m = sumOverChildren(fine, children, idx, fine.d.mass);
    coarse.d.mass(cell) = m;
    coarse.d.diagonal(cell) = m + coarse.faceSum(idx);
  }
};

/// Face distances along an axis of vertices v: centre to centre inside, centre to
/// vertex at the two ends (periodic: centre to centre across them, at both).
inline std::vector<double> faceDistances(const std::vector<double>& v, bool periodic) {
  const std::size_t n = v.size() - 1;
  std::vector<double> d(n + 1);
  const auto centre = [&](std::size_t i) {
    return 0.5 * (v[i] + v[i + 1]);
  };
  for (std::size_t f = 0; f <= n; ++f)
    d[f] = f == 0   ? centre(0) - v[0]
           : f == n ? v[n] - centre(n - 1)
                    : centre(f) - centre(f - 1);
  if (periodic) d[0] = d[n] = d[0] + d[n];
  return d;
}

/// The finest periodic level's faces from the assembler's (Mesh numbering: n faces per
/// line along a periodic axis, face 0 joining its ends; the level keeps n + 1, the
/// ends' value at both).
template <class ExecSpace>
struct LevelFacesFromMesh {
  LevelGeometry<ExecSpace> g;
  DeviceView<Real*, ExecSpace> meshFaces;
  Ordinal meshFirst;  // the mesh's first face normal to axis
  int axis;
  KOKKOS_FUNCTION void operator()(Ordinal local) const {
    int idx[3];
    g.faceIndices(axis, local, idx);
    int counts[3] = {g.d.cells[0], g.d.cells[1], g.d.cells[2]};
    if (g.d.periodic[axis]) {
      if (idx[axis] == counts[axis]) idx[axis] = 0;
    } else {
      counts[axis] += 1;
    }
    g.d.faces(g.d.firstFace[axis] + local) = meshFaces(
        meshFirst + idx[0] + Ordinal(counts[0]) * (idx[1] + counts[1] * idx[2]));
  }
};

}  // namespace Details

template <class ExecSpace>
GridLevel<ExecSpace>::GridLevel(const CartesianGrid& grid,
                                const std::array<bool, 3>& periodic)
    : GridLevel(grid.dimension(), {grid.vertices(0), grid.vertices(1), grid.vertices(2)},
                Placement{}, periodic) {}

template <class ExecSpace>
GridLevel<ExecSpace>::GridLevel(int dimension,
                                const std::array<std::vector<double>, 3>& vertices,
                                const Placement& placement,
                                const std::array<bool, 3>& periodic)
    : dimension_(dimension),
      vertices_(vertices),
      placement_(placement),
      periodic_(periodic) {
  Ordinal cellCount = 1;
  for (int a = 0; a < 3; ++a) {
    if (vertices_[a].size() < 2) vertices_[a] = {0.0, 1.0};  // an axis beyond dimension
    cells_[a] = int(vertices_[a].size()) - 1;
    cellCount *= cells_[a];
    auto& p = placement_;
    if (p.global[a] == 0) p.global[a] = cells_[a];
    if (p.ownedEnd[a] == 0) p.ownedEnd[a] = cells_[a];
    // A wrapped block's owned cells lie in the global level; its ghosts may pass an end.
    const bool fits = p.wrapped[a]
                          ? p.first[a] + p.ownedBegin[a] >= 0 &&
                                p.first[a] + p.ownedEnd[a] <= p.global[a]
                          : p.first[a] >= 0 && p.first[a] + cells_[a] <= p.global[a];
    require(fits && p.ownedBegin[a] >= 0 && p.ownedBegin[a] < p.ownedEnd[a] &&
                p.ownedEnd[a] <= cells_[a],
            "GridLevel: a block of ", cells_[a], " cells from ", p.first[a],
            " along axis ", a, " (owned ", p.ownedBegin[a], " to ", p.ownedEnd[a],
            ") does not fit a global level of ", p.global[a]);
    require(
        !periodic_[a] || (a < dimension_ && p.first[a] == 0 && p.global[a] == cells_[a] &&
                          p.ownedBegin[a] == 0 && p.ownedEnd[a] == cells_[a]),
        "GridLevel: axis ", a, " of a ", dimension_,
        "D level cannot be periodic here (periodic levels are one process's; a block "
        "across ranks wraps)");
    require(!p.wrapped[a] || a < dimension_, "GridLevel: axis ", a, " of a ", dimension_,
            "D level cannot wrap");
    data_.periodic[a] = periodic_[a];
    data_.wrapped[a] = p.wrapped[a];
    data_.first[a] = p.first[a];
    data_.global[a] = p.global[a];
    data_.ownedBegin[a] = p.ownedBegin[a];
    data_.ownedEnd[a] = p.ownedEnd[a];
  }
  space_ = VectorSpace<ExecSpace>(cellCount);
  const std::string name = "kfvm::GridLevel::";
  for (int a = 0; a < 3; ++a) {
    data_.firstFace[a] = numFaces_;
    if (a < dimension_) {
      auto counts = cells_;
      counts[a] += 1;
      numFaces_ += Ordinal(counts[0]) * counts[1] * counts[2];
      counts[a] -= periodic_[a] ? 1 : 0;
      meshFaces_ += Ordinal(counts[0]) * counts[1] * counts[2];
    }
    const auto d = Details::faceDistances(vertices_[a], periodic_[a]);
    data_.distances[a] = DeviceView<Real*, ExecSpace>(name + "distances", d.size());
    auto host = Kokkos::create_mirror_view(data_.distances[a]);
    for (std::size_t f = 0; f < d.size(); ++f) host(f) = Real(d[f]);
    Kokkos::deep_copy(data_.distances[a], host);
  }
  data_.anyPeriodic = periodic_[0] || periodic_[1] || periodic_[2];
  data_.grid = GridInterior(dimension_, cells_);
  data_.dimension = dimension_;
  for (int a = 0; a < 3; ++a) data_.cells[a] = cells_[a];
  data_.faces = DeviceView<Real*, ExecSpace>(name + "faces", numFaces_);
  Ordinal slots = 0;
  for (int p = 0; p < 6; ++p) {
    data_.patchFirst[p] = slots;
    if (p / 2 < dimension_) slots += cellCount / cells_[p / 2];
  }
  data_.robinA = DeviceView<Real*, ExecSpace>(name + "robinA", slots);
  data_.robinB = DeviceView<Real*, ExecSpace>(name + "robinB", slots);
  if (periodic_[0] || periodic_[1] || periodic_[2])
    fromMesh_ = DeviceView<Real*, ExecSpace>(name + "fromMesh", meshFaces_);
  data_.mass = DeviceView<Real*, ExecSpace>(name + "mass", cellCount);
  data_.diagonal = DeviceView<Real*, ExecSpace>(name + "diagonal", cellCount);
}

template <class ExecSpace>
std::array<bool, 3> GridLevel<ExecSpace>::mergeableAxes() const {
  std::array<bool, 3> allowed{}, merged{};
  for (int a = 0; a < 3; ++a)
    allowed[a] = !periodic_[a] || cells_[a] == 2 || cells_[a] % 4 == 0;
  (void)coarserVertices(dimension_, vertices_, allowed, merged);
  return merged;
}

template <class ExecSpace>
bool GridLevel<ExecSpace>::canCoarsen() const {
  const auto merged = mergeableAxes();
  return merged[0] || merged[1] || merged[2];
}

template <class ExecSpace>
std::array<std::vector<double>, 3> GridLevel<ExecSpace>::coarserVertices(
    int dimension, const std::array<std::vector<double>, 3>& vertices,
    const std::array<bool, 3>& allowed, std::array<bool, 3>& merged) {
  // Semi-coarsening: only the axes whose mean spacing is within twice the finest one's
  // (the strongly coupled directions of a grid of stretched cells), until the cells are
  // about as long along every axis.
  double finest = 0;
  std::array<double, 3> spacing{};
  const auto cells = [&](int a) {
    return int(vertices[a].size()) - 1;
  };
  for (int a = 0; a < dimension; ++a) {
    if (cells(a) <= 1) continue;
    spacing[a] = (vertices[a].back() - vertices[a].front()) / cells(a);
    if (finest == 0 || spacing[a] < finest) finest = spacing[a];
  }
  std::array<std::vector<double>, 3> coarse;
  for (int a = 0; a < 3; ++a) {
    const auto& v = vertices[a];
    merged[a] = a < dimension && cells(a) > 1 && spacing[a] < 2 * finest && allowed[a];
    if (!merged[a]) {
      coarse[a] = v;
      continue;
    }
    for (std::size_t i = 0; i < v.size(); i += 2) coarse[a].push_back(v[i]);
    if (cells(a) % 2 == 1) coarse[a].push_back(v.back());
  }
  return coarse;
}

template <class ExecSpace>
GridLevel<ExecSpace> GridLevel<ExecSpace>::coarser() const {
  require(canCoarsen(), "GridLevel::coarser: the ", description(),
          " has no axis to merge (one cell along every axis, or an odd count along a "
          "periodic one)");
  require(placement_.global == cells_, "GridLevel::coarser: the ", description(),
          " is one rank's block");
  const auto allowed = mergeableAxes();
  std::array<bool, 3> merged{};
  return GridLevel(dimension_, coarserVertices(dimension_, vertices_, allowed, merged),
                   Placement{}, periodic_);
}

template <class ExecSpace>
void GridLevel<ExecSpace>::refresh(const Assembler<ExecSpace>& assembler,
                                   const Vector<ExecSpace>& diagonal) {
  const auto& mesh = assembler.equation().mesh();
  bool samePeriodic = true;
  for (int a = 0; a < 3; ++a)
    samePeriodic = samePeriodic && mesh.isPeriodic(a) == periodic_[a];
  require(mesh.numCells() == numCells() && mesh.numFaces() == meshFaces_ &&
              mesh.cellCounts() == cells_ && samePeriodic,
          "GridLevel::refresh: the assembler's mesh of ", mesh.numCells(), " cells and ",
          mesh.numFaces(), " faces", mesh.isPeriodic() ? " (periodic)" : "",
          " is not the ", description());
  require(diagonal.extent(0) == std::size_t(numCells()),
          "GridLevel::refresh: ", diagonal.extent(0), " diagonal entries for ",
          numCells(), " cells");
  const auto& bcs = assembler.equation().boundaryConditions();
  if (fromMesh_.extent(0) == 0) {
    require(bcs.robinA().extent(0) == data_.robinA.extent(0),
            "GridLevel::refresh: the boundary conditions have ", bcs.robinA().extent(0),
            " slots, the ", description(), " has ", data_.robinA.extent(0));
    assembler.faceForm(data_.faces);
    Kokkos::deep_copy(ExecSpace(), data_.robinA, bcs.robinA());
    Kokkos::deep_copy(ExecSpace(), data_.robinB, bcs.robinB());
  } else {
    assembler.faceForm(fromMesh_);
    for (int a = 0; a < dimension_; ++a) {
      auto counts = cells_;
      counts[a] += 1;
      forEachIndex("kfvm::GridLevel::facesFromMesh", ExecSpace(),
                   Ordinal(counts[0]) * counts[1] * counts[2],
                   Details::LevelFacesFromMesh<ExecSpace>{
                       {data_}, fromMesh_, mesh.firstFace(a), a});
    }
    // Patch by patch: a periodic axis' two patches have no slots on the mesh; here
    // theirs are never read.
    for (int p = 0; p < 2 * dimension_; ++p) {
      const Ordinal size = mesh.patchSize(p), first = mesh.patchFirstSlot(p);
      const std::pair<Ordinal, Ordinal> mine(data_.patchFirst[p],
                                             data_.patchFirst[p] + size);
      const std::pair<Ordinal, Ordinal> theirs(first, first + size);
      Kokkos::deep_copy(ExecSpace(), Kokkos::subview(data_.robinA, mine),
                        Kokkos::subview(bcs.robinA(), theirs));
      Kokkos::deep_copy(ExecSpace(), Kokkos::subview(data_.robinB, mine),
                        Kokkos::subview(bcs.robinB(), theirs));
    }
  }
  forEachIndex("kfvm::GridLevel::massFromDiagonal", ExecSpace(), numCells(),
               Details::LevelMassFromDiagonal<ExecSpace>{{data_}, diagonal});
  summarize();
}

template <class ExecSpace>
void GridLevel<ExecSpace>::refresh(const GridLevel& fine) {
  bool below = fine.dimension_ == dimension_;
  for (int a = 0; a < 3; ++a) {
    const int n = fine.placement_.global[a], m = placement_.global[a];
    below = below && (m == n || m == (n + 1) / 2) &&
            fine.placement_.wrapped[a] == placement_.wrapped[a];
  }
  require(below, "GridLevel::refresh: the ", description(),
          " is not the next coarser level of the ", fine.description());
  const auto children = Details::childrenOf(fine, *this);
  for (int a = 0; a < dimension_; ++a) {
    auto counts = cells_;
    counts[a] += 1;
    forEachIndex("kfvm::GridLevel::coarseFaces", ExecSpace(),
                 Ordinal(counts[0]) * counts[1] * counts[2],
                 Details::CoarseFaces<ExecSpace>{{fine.data_}, {data_}, children, a});
  }
  forEachIndex("kfvm::GridLevel::coarseCells", ExecSpace(), numCells(),
               Details::CoarseCells<ExecSpace>{{fine.data_}, {data_}, children});
  summarize();
}

template <class ExecSpace>
void GridLevel<ExecSpace>::summarize() {
  data_.uniform = false;  // the summary reads the arrays
  Compat::Maxima<9> m;
  Kokkos::parallel_reduce(
      "kfvm::GridLevel::summarize", indexRange(ExecSpace(), numCells()),
      Details::LevelSummary<ExecSpace>{{data_}}, Kokkos::Sum<Compat::Maxima<9>>(m));
  jacobiBound_ = m.value[0];
  require(std::isfinite(jacobiBound_) && jacobiBound_ > 0, "GridLevel: the ",
          description(), " has a non-positive or non-finite diagonal (Jacobi bound ",
          jacobiBound_, ")");
  const double tolerance = 64 * std::numeric_limits<Real>::epsilon();
  const auto same = [&](int entry) {  // max - min within tolerance of the largest
    const double high = m.value[entry], low = -m.value[entry + 1];
    return high >= low &&
           high - low <= tolerance * std::max(std::abs(high), std::abs(low));
  };
  bool uniform = m.value[1] > -1e308 && same(1);
  for (int a = 0; a < dimension_; ++a) uniform = uniform && same(3 + 2 * a);
  data_.uniform = uniform;
  data_.uniformDiagonal = Real(m.value[1]);
  for (int a = 0; a < 3; ++a)
    data_.uniformFaces[a] = a < dimension_ ? Real(m.value[3 + 2 * a]) : Real(0);
}

template <class ExecSpace>
std::string GridLevel<ExecSpace>::description() const {
  std::string text = "multigrid level of " + std::to_string(cells_[0]);
  for (int a = 1; a < dimension_; ++a) text += " x " + std::to_string(cells_[a]);
  text += " cells";
  for (int a = 0; a < dimension_; ++a)
    if (periodic_[a] || placement_.wrapped[a])
      text += std::string(", periodic in ") + "xyz"[a];
  return text;
}

template <class ExecSpace>
void GridLevel<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                 const Vector<ExecSpace>& y) const {
  forEachIndex("kfvm::GridLevel::apply", ExecSpace(), numCells(),
               Details::LevelApply<ExecSpace>{{data_}, x, y});
}

template <class ExecSpace>
void GridLevel<ExecSpace>::dense(const DeviceView<Real**, ExecSpace>& a) const {
  const Ordinal n = numCells();
  require(a.extent(0) == std::size_t(n) && a.extent(1) == std::size_t(n),
          "GridLevel::dense: a matrix of ", a.extent(0), " x ", a.extent(1), " for the ",
          description());
  forEachIndex("kfvm::GridLevel::dense", ExecSpace(), n * n,
               Details::LevelDense<ExecSpace>{{data_}, a, n});
}

template <class ExecSpace>
void GridLevel<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  Kokkos::deep_copy(ExecSpace(), d, data_.diagonal);
}

#define KFVM_INSTANTIATE_GRID_LEVEL(Space) template class GridLevel<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_GRID_LEVEL)

}  // namespace kfvm
