#include <detail/kfvm_MeshIds.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_Mesh.hpp>

#include <atomic>

namespace kfvm {

namespace Details {

std::uint64_t nextMeshId() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

template <class ExecSpace>
DeviceView<Real*, ExecSpace> vertexView(const CartesianGrid& grid, int axis) {
  const auto& coordinates = grid.vertices(axis);
  DeviceView<Real*, ExecSpace> vertices("kfvm::Mesh::vertices", coordinates.size());
  auto host = Kokkos::create_mirror_view(vertices);
  for (std::size_t i = 0; i < coordinates.size(); ++i) host(i) = Real(coordinates[i]);
  Kokkos::deep_copy(vertices, host);
  return vertices;
}

/// Faces along each axis of a grid: n + 1 per line of cells, n on a periodic axis (the
/// low face of the first cell is the high face of the last).
struct GridFaceCounts {
  int n[3];
  bool periodic[3];

  KOKKOS_FUNCTION int along(int axis) const { return n[axis] + (periodic[axis] ? 0 : 1); }
  /// The face normal to axis at position (i, j, k), idx[axis] in [0, n[axis]] (the high
  /// end of a periodic axis wraps to 0), counted from the axis' first face.
  KOKKOS_FUNCTION Ordinal index(int axis, int i, int j, int k) const {
    int idx[3] = {i, j, k};
    if (periodic[axis] && idx[axis] == n[axis]) idx[axis] = 0;
    int counts[3] = {n[0], n[1], n[2]};
    counts[axis] = along(axis);
    return idx[0] + counts[0] * (idx[1] + counts[1] * idx[2]);
  }
};

/// Cell volumes, centres and the faces of each cell (2 per axis: low side, high side).
template <class ExecSpace>
struct CellBuilder {
  DeviceView<Real*, ExecSpace> vx, vy, vz;
  GridFaceCounts counts;
  int dimension;
  Ordinal firstFace[3];
  DeviceView<Real*, ExecSpace> volumes;
  DeviceView<Real* [3], ExecSpace> centres;
  DeviceView<Offset*, ExecSpace> faceOffsets;
  DeviceView<Ordinal*, ExecSpace> faces;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int nx = counts.n[0], ny = counts.n[1];
    const int i = cell % nx, j = (cell / nx) % ny, k = cell / (nx * ny);
    volumes(cell) = (vx(i + 1) - vx(i)) * (vy(j + 1) - vy(j)) * (vz(k + 1) - vz(k));
    centres(cell, 0) = Real(0.5) * (vx(i) + vx(i + 1));
    centres(cell, 1) = Real(0.5) * (vy(j) + vy(j + 1));
    centres(cell, 2) = Real(0.5) * (vz(k) + vz(k + 1));
    const Offset first = Offset(cell) * Offset(2 * dimension);
    faceOffsets(cell + 1) = first + Offset(2 * dimension);
    if (cell == 0) faceOffsets(0) = 0;
    faces(first + 0) = firstFace[0] + counts.index(0, i, j, k);
    faces(first + 1) = firstFace[0] + counts.index(0, i + 1, j, k);
    if (dimension >= 2) {
      faces(first + 2) = firstFace[1] + counts.index(1, i, j, k);
      faces(first + 3) = firstFace[1] + counts.index(1, i, j + 1, k);
    }
    if (dimension >= 3) {
      faces(first + 4) = firstFace[2] + counts.index(2, i, j, k);
      faces(first + 5) = firstFace[2] + counts.index(2, i, j, k + 1);
    }
  }
};

/// Geometry and connectivity of the faces normal to one axis. On a periodic axis the
/// face at the low end joins the last cell (its owner) to the first: its centre is put
/// at the high end, on the owner's side, and its shift is the axis' length (the
/// neighbour's centre plus the shift is its image beside the owner).
template <class ExecSpace>
struct FaceBuilder {
  DeviceView<Real*, ExecSpace> v[3];
  GridFaceCounts counts;
  int axis;
  Ordinal firstFace;
  Ordinal lowSlot, highSlot;  // first boundary slot of the low and high patch
  DeviceView<Ordinal* [2], ExecSpace> faceCells;
  DeviceView<Real*, ExecSpace> areas, distances;
  DeviceView<Real*[3], ExecSpace> normals, centres, shifts;
  DeviceView<Ordinal*, ExecSpace> faceSlots, boundaryFaces;
  DeviceView<int*, ExecSpace> boundaryPatches;

  KOKKOS_FUNCTION Ordinal cellIndex(const int idx[3]) const {
    return idx[0] + counts.n[0] * (idx[1] + counts.n[1] * idx[2]);
  }

  KOKKOS_FUNCTION void operator()(Ordinal local) const {
    const int* n = counts.n;
    int sizes[3] = {n[0], n[1], n[2]};
    sizes[axis] = counts.along(axis);
    int idx[3] = {local % sizes[0], (local / sizes[0]) % sizes[1],
                  local / (sizes[0] * sizes[1])};
    const Ordinal face = firstFace + local;
    const int a = axis, b = (axis + 1) % 3, c = (axis + 2) % 3;
    const int along = idx[a];
    areas(face) = (v[b](idx[b] + 1) - v[b](idx[b])) * (v[c](idx[c] + 1) - v[c](idx[c]));
    centres(face, a) = v[a](along);
    centres(face, b) = Real(0.5) * (v[b](idx[b]) + v[b](idx[b] + 1));
    centres(face, c) = Real(0.5) * (v[c](idx[c]) + v[c](idx[c] + 1));
    normals(face, b) = 0;
    normals(face, c) = 0;
    // Index of this face within its patch: the two other axes, lower axis fastest.
    const int lo = a == 0 ? 1 : 0, hi = a == 2 ? 1 : 2;
    const Ordinal inPatch = idx[lo] + n[lo] * idx[hi];
    int owner[3] = {idx[0], idx[1], idx[2]};
    if (counts.periodic[a] && along == 0) {
      owner[a] = n[a] - 1;
      faceCells(face, 0) = cellIndex(owner);
      faceCells(face, 1) = cellIndex(idx);
      normals(face, a) = 1;
      centres(face, a) = v[a](n[a]);
      distances(face) = Real(0.5) * (v[a](n[a]) - v[a](n[a] - 1) + v[a](1) - v[a](0));
      shifts(face, a) = v[a](n[a]) - v[a](0);
      shifts(face, b) = 0;
      shifts(face, c) = 0;
      faceSlots(face) = -1;
    } else if (along == 0 || along == n[a]) {
      const bool high = along == n[a];
      if (high) owner[a] = along - 1;
      const Ordinal slot = (high ? highSlot : lowSlot) + inPatch;
      const Real centre = Real(0.5) * (v[a](owner[a]) + v[a](owner[a] + 1));
      faceCells(face, 0) = cellIndex(owner);
      faceCells(face, 1) = -1;
      normals(face, a) = high ? Real(1) : Real(-1);
      distances(face) = high ? v[a](along) - centre : centre - v[a](along);
      faceSlots(face) = slot;
      boundaryFaces(slot) = face;
      boundaryPatches(slot) = 2 * a + (high ? 1 : 0);
    } else {
      owner[a] = along - 1;
      const Real lower = Real(0.5) * (v[a](along - 1) + v[a](along));
      const Real upper = Real(0.5) * (v[a](along) + v[a](along + 1));
      faceCells(face, 0) = cellIndex(owner);
      faceCells(face, 1) = cellIndex(idx);
      normals(face, a) = 1;
      distances(face) = upper - lower;
      faceSlots(face) = -1;
    }
  }
};

/// Scales a grid's face areas and cell volumes by r^power, r the x coordinate of the
/// face or cell centre (cylindrical: 1, spherical: 2).
template <class ExecSpace>
struct RadialScaling {
  DeviceView<Real*, ExecSpace> values;
  DeviceView<Real* [3], ExecSpace> centres;
  int power;

  KOKKOS_FUNCTION void operator()(Ordinal i) const {
    const Real r = centres(i, 0);
    values(i) *= power == 1 ? r : r * r;
  }
};

}  // namespace Details

const char* coordinatesName(Coordinates coordinates) {
  switch (coordinates) {
    case Coordinates::Cylindrical:
      return "cylindrical";
    case Coordinates::Spherical:
      return "spherical";
    default:
      return "cartesian";
  }
}

template <class ExecSpace>
void Mesh<ExecSpace>::allocate(Ordinal numCellFaces) {
  cellVolumes_ = View<Real*>("kfvm::Mesh::cellVolumes", numCells_);
  cellCentres_ = View<Real* [3]>("kfvm::Mesh::cellCentres", numCells_);
  cellFaceOffsets_ = View<Offset*>("kfvm::Mesh::cellFaceOffsets", numCells_ + 1);
  cellFaces_ = View<Ordinal*>("kfvm::Mesh::cellFaces", numCellFaces);
  faceCells_ = View<Ordinal* [2]>("kfvm::Mesh::faceCells", numFaces_);
  faceAreas_ = View<Real*>("kfvm::Mesh::faceAreas", numFaces_);
  faceNormals_ = View<Real* [3]>("kfvm::Mesh::faceNormals", numFaces_);
  faceCentres_ = View<Real* [3]>("kfvm::Mesh::faceCentres", numFaces_);
  faceDistances_ = View<Real*>("kfvm::Mesh::faceDistances", numFaces_);
  faceBoundarySlots_ = View<Ordinal*>("kfvm::Mesh::faceBoundarySlots", numFaces_);
  boundaryFaces_ = View<Ordinal*>("kfvm::Mesh::boundaryFaces", numBoundaryFaces_);
  boundaryPatches_ = View<int*>("kfvm::Mesh::boundaryPatches", numBoundaryFaces_);
  patchFirstSlots_.assign(patchSizes_.size(), 0);
  for (std::size_t p = 1; p < patchSizes_.size(); ++p)
    patchFirstSlots_[p] = patchFirstSlots_[p - 1] + patchSizes_[p - 1];
}

template <class ExecSpace>
Mesh<ExecSpace>::Mesh(const CartesianGrid& grid, const ExecSpace& space)
    : Mesh(grid, GridGeometry{}, space) {}

template <class ExecSpace>
Mesh<ExecSpace>::Mesh(const CartesianGrid& grid, const GridGeometry& geometry,
                      const ExecSpace& space)
    : grid_(grid),
      periodic_(geometry.periodic),
      dimension_(grid.dimension()),
      space_(space),
      id_(Details::nextMeshId()),
      patchSizes_(numPatches, 0) {
  const auto n = grid.cellCounts();
  const int dim = dimension_;
  for (int axis = 0; axis < 3; ++axis) {
    require(!periodic_[axis] || axis < dim, "axis ", axis, " of a ", dim,
            "D grid cannot be periodic");
    require(!periodic_[axis] || n[axis] >= 2,
            "a periodic axis needs 2 cells or more; axis ", axis, " has ", n[axis]);
  }
  const Details::GridFaceCounts counts{{n[0], n[1], n[2]},
                                       {periodic_[0], periodic_[1], periodic_[2]}};
  numCells_ = static_cast<Ordinal>(grid.numCells());
  for (Patch patch : allPatches) patchNames_.push_back(kfvm::patchName(patch));
  for (int axis = 0; axis < dim; ++axis) {
    auto sizes = n;
    sizes[axis] = counts.along(axis);
    facesPerAxis_[axis] = sizes[0] * sizes[1] * sizes[2];
    const Ordinal perPatch = periodic_[axis] ? 0 : numCells_ / n[axis];
    patchSizes_[std::size_t(2 * axis)] = patchSizes_[std::size_t(2 * axis + 1)] =
        perPatch;
  }
  numFaces_ = facesPerAxis_[0] + facesPerAxis_[1] + facesPerAxis_[2];
  for (auto size : patchSizes_) numBoundaryFaces_ += size;
  allocate(Offset(numCells_) * 2 * dim);
  // Only periodic faces write their shift; without a periodic axis a row stands in.
  faceShifts_ = View<Real* [3]>("kfvm::Mesh::faceShifts", isPeriodic() ? numFaces_ : 0);
  const View<Real* [3]> shifts =
      isPeriodic() ? faceShifts_ : View<Real* [3]>("kfvm::Mesh::noShifts", 1);

  View<Real*> vertices[3] = {Details::vertexView<ExecSpace>(grid, 0),
                             Details::vertexView<ExecSpace>(grid, 1),
                             Details::vertexView<ExecSpace>(grid, 2)};
  Details::CellBuilder<ExecSpace> cells{
      vertices[0],  vertices[1],  vertices[2],
      counts,       dim,          {firstFace(0), firstFace(1), firstFace(2)},
      cellVolumes_, cellCentres_, cellFaceOffsets_,
      cellFaces_};
  forEachIndex("kfvm::Mesh::buildCells", space_, numCells_, cells);

  for (int axis = 0; axis < dim; ++axis) {
    const auto low = static_cast<Patch>(2 * axis),
               high = static_cast<Patch>(2 * axis + 1);
    Details::FaceBuilder<ExecSpace> faces{{vertices[0], vertices[1], vertices[2]},
                                          counts,
                                          axis,
                                          firstFace(axis),
                                          patchFirstSlot(low),
                                          patchFirstSlot(high),
                                          faceCells_,
                                          faceAreas_,
                                          faceDistances_,
                                          faceNormals_,
                                          faceCentres_,
                                          shifts,
                                          faceBoundarySlots_,
                                          boundaryFaces_,
                                          boundaryPatches_};
    forEachIndex("kfvm::Mesh::buildFaces", space_, facesPerAxis_[axis], faces);
  }
  Compat::fence(space_, "kfvm::Mesh::build");
  applyCoordinates(geometry.coordinates);
}

template <class ExecSpace>
void Mesh<ExecSpace>::applyCoordinates(Coordinates coordinates) {
  if (coordinates == Coordinates::Cartesian) return;
  const int power = coordinates == Coordinates::Cylindrical ? 1 : 2;
  require(coordinates != Coordinates::Cylindrical || dimension_ <= 2,
          "a cylindrical grid is 1D (r) or 2D (r, z), got ", dimension_, "D");
  require(coordinates != Coordinates::Spherical || dimension_ == 1,
          "a spherical grid is 1D (r), got ", dimension_, "D");
  require(grid_->vertices(0).front() >= 0, "a ", coordinatesName(coordinates),
          " grid's radius starts at r = ", grid_->vertices(0).front(), " < 0");
  require(!periodic_[0], "the radius of a ", coordinatesName(coordinates),
          " grid cannot be periodic");
  coordinates_ = coordinates;
  forEachIndex("kfvm::Mesh::radialFaceAreas", space_, numFaces_,
               Details::RadialScaling<ExecSpace>{faceAreas_, faceCentres_, power});
  forEachIndex("kfvm::Mesh::radialCellVolumes", space_, numCells_,
               Details::RadialScaling<ExecSpace>{cellVolumes_, cellCentres_, power});
  Compat::fence(space_, "kfvm::Mesh::radialScaling");
}

template <class ExecSpace>
const CartesianGrid& Mesh<ExecSpace>::grid() const {
  require(grid_.has_value(),
          "this mesh is not a Cartesian grid (it was built from general cells); the "
          "structured paths (matrix-free stencils, geometric multigrid, Cartesian "
          "output) need one");
  require(
      coordinates_ == Coordinates::Cartesian, "this grid is in ",
      coordinatesName(coordinates_),
      " coordinates; the structured paths (matrix-free stencils, geometric "
      "multigrid) take Cartesian ones (the assembled matrix and its solvers take any)");
  return *grid_;
}

template <class ExecSpace>
const CartesianGrid& Mesh<ExecSpace>::gridLayout() const {
  require(grid_.has_value(),
          "this mesh is not a grid (it was built from general cells): it has no grid "
          "layout");
  return *grid_;
}

template <class ExecSpace>
Ordinal Mesh<ExecSpace>::firstFace(int axis) const {
  require(axis >= 0 && axis < 3, "axis must be 0, 1 or 2, got ", axis);
  Ordinal first = 0;
  for (int a = 0; a < axis; ++a) first += facesPerAxis_[a];
  return first;
}

template <class ExecSpace>
int Mesh<ExecSpace>::findPatch(const std::string& name) const {
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    if (patchNames_[p] == name && (!hasGridLayout() || patchSizes_[p] > 0)) return int(p);
  }
  return -1;
}

template <class ExecSpace>
int Mesh<ExecSpace>::patchIndex(const std::string& name) const {
  const int p = findPatch(name);
  if (p >= 0) return p;
  std::string known;
  for (std::size_t q = 0; q < patchNames_.size(); ++q) {
    if (hasGridLayout() && patchSizes_[q] == 0) continue;
    known += (known.empty() ? "'" : ", '") + patchNames_[q] + "'";
  }
  fail("unknown boundary patch '", name, "'; this mesh has ", known);
}

template <class ExecSpace>
Ordinal Mesh<ExecSpace>::patchSize(int patch) const {
  require(patch >= 0 && patch < patchCount(), "boundary patch number ", patch,
          " is not one of the mesh's ", patchCount());
  return patchSizes_[std::size_t(patch)];
}

template <class ExecSpace>
Ordinal Mesh<ExecSpace>::patchFirstSlot(int patch) const {
  require(patch >= 0 && patch < patchCount(), "boundary patch number ", patch,
          " is not one of the mesh's ", patchCount());
  return patchFirstSlots_[std::size_t(patch)];
}

template <class ExecSpace>
bool Mesh<ExecSpace>::hasPatch(Patch patch) const {
  return hasGridLayout() ? patchSizes_[std::size_t(patch)] > 0
                         : findPatch(kfvm::patchName(patch)) >= 0;
}

template <class ExecSpace>
Ordinal Mesh<ExecSpace>::patchSize(Patch patch) const {
  if (hasGridLayout()) return patchSizes_[std::size_t(patch)];
  const int p = findPatch(kfvm::patchName(patch));
  return p < 0 ? 0 : patchSizes_[std::size_t(p)];
}

template <class ExecSpace>
Ordinal Mesh<ExecSpace>::patchFirstSlot(Patch patch) const {
  return hasGridLayout() ? patchFirstSlots_[std::size_t(patch)]
                         : patchFirstSlot(patchIndex(kfvm::patchName(patch)));
}

#define KFVM_INSTANTIATE_MESH(Space) template class Mesh<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MESH)

}  // namespace kfvm
