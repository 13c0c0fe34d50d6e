// Mesh<ExecSpace> built from a MeshTopology: connectivity on the host, geometry on the
// device (face areas, normals and centroids, cell volumes and centroids, distances).
#include <detail/kfvm_MeshIds.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_Mesh.hpp>

#include <cmath>

namespace kfvm {

namespace Details {

template <class T, class ExecSpace>
DeviceView<T*, ExecSpace> upload(const std::string& label, const std::vector<T>& values) {
  DeviceView<T*, ExecSpace> view(label, values.size());
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(view, host);
  return view;
}

/// Where cell c sees face f: a face joining periodic patches lies at its nodes on the
/// first cell's side; the second cell sees it moved back by the face's shift.
template <class ExecSpace>
struct PeriodicSides {
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real* [3], ExecSpace> shifts;  // empty without periodic faces
  KOKKOS_INLINE_FUNCTION Real offset(Ordinal f, Ordinal c, int a) const {
    return shifts.extent(0) > 0 && faceCells(f, 1) == c ? -shifts(f, a) : Real(0);
  }
};

/// A point inside each cell: the mean of its faces' node means (the apex of the
/// pyramids a cell is split into; the cell must be star-shaped from it).
template <class ExecSpace>
struct CellApex {
  DeviceView<const Real* [3], ExecSpace> nodes;
  DeviceView<const Offset*, ExecSpace> faceNodeOffsets, cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> faceNodes, cellFaces;
  PeriodicSides<ExecSpace> sides;
  DeviceView<Real* [3], ExecSpace> apex;

  KOKKOS_FUNCTION void operator()(Ordinal c) const {
    Real sum[3] = {0, 0, 0};
    for (Offset i = cellFaceOffsets(c); i < cellFaceOffsets(c + 1); ++i) {
      const Ordinal f = cellFaces(i);
      const Offset first = faceNodeOffsets(f), last = faceNodeOffsets(f + 1);
      for (Offset k = first; k < last; ++k) {
        for (int a = 0; a < 3; ++a)
          sum[a] += (nodes(faceNodes(k), a) + sides.offset(f, c, a)) / Real(last - first);
      }
    }
    const Real count = Real(cellFaceOffsets(c + 1) - cellFaceOffsets(c));
    for (int a = 0; a < 3; ++a) apex(c, a) = sum[a] / count;
  }
};

/// A face's area, unit normal (from its first cell outwards) and centroid: a segment in
/// 2D, in 3D the triangles from the nodes' mean to each edge.
template <class ExecSpace>
struct FaceGeometry {
  DeviceView<const Real* [3], ExecSpace> nodes;
  DeviceView<const Offset*, ExecSpace> faceNodeOffsets;
  DeviceView<const Ordinal*, ExecSpace> faceNodes;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real* [3], ExecSpace> apex;
  int dimension;
  bool fipy;  // GeometryConvention::FiPy: the centre is the mean of the nodes
  DeviceView<Real*, ExecSpace> areas;
  DeviceView<Real*[3], ExecSpace> normals, centres;

  KOKKOS_FUNCTION void operator()(Ordinal f) const {
    const Offset first = faceNodeOffsets(f), last = faceNodeOffsets(f + 1);
    Real S[3] = {0, 0, 0}, C[3] = {0, 0, 0};
    if (dimension == 2) {
      const Ordinal p = faceNodes(first), q = faceNodes(first + 1);
      S[0] = nodes(q, 1) - nodes(p, 1);
      S[1] = nodes(p, 0) - nodes(q, 0);
      for (int a = 0; a < 2; ++a) C[a] = Real(0.5) * (nodes(p, a) + nodes(q, a));
    } else {
      Real mean[3] = {0, 0, 0};
      for (Offset k = first; k < last; ++k) {
        for (int a = 0; a < 3; ++a)
          mean[a] += nodes(faceNodes(k), a) / Real(last - first);
      }
      Real weight = 0;
      for (Offset k = first; k < last; ++k) {
        const Ordinal p = faceNodes(k), q = faceNodes(k + 1 < last ? k + 1 : first);
        Real u[3], v[3];
        for (int a = 0; a < 3; ++a) {
          u[a] = nodes(p, a) - mean[a];
          v[a] = nodes(q, a) - mean[a];
        }
        const Real t[3] = {Real(0.5) * (u[1] * v[2] - u[2] * v[1]),
                           Real(0.5) * (u[2] * v[0] - u[0] * v[2]),
                           Real(0.5) * (u[0] * v[1] - u[1] * v[0])};
        const Real a = Compat::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int d = 0; d < 3; ++d) {
          S[d] += t[d];
          C[d] += a * (mean[d] + nodes(p, d) + nodes(q, d)) / Real(3);
        }
        weight += a;
      }
      for (int d = 0; d < 3; ++d) C[d] = weight > 0 && !fipy ? C[d] / weight : mean[d];
    }
    const Real area = Compat::sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
    const Ordinal owner = faceCells(f, 0);
    Real outward = 0;
    for (int a = 0; a < 3; ++a) outward += (C[a] - apex(owner, a)) * S[a];
    const Real sign = outward < 0 ? Real(-1) : Real(1);
    areas(f) = area;
    for (int a = 0; a < 3; ++a) {
      normals(f, a) = area > 0 ? sign * S[a] / area : Real(0);
      centres(f, a) = C[a];
    }
  }
};

/// A cell's volume and centroid from the pyramids (triangles in 2D) between its apex
/// and its faces; bad(c) = 1 when one has no positive volume (degenerate, inverted or
/// not star-shaped from the apex).
template <class ExecSpace>
struct CellGeometry {
  DeviceView<const Offset*, ExecSpace> cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> cellFaces;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*, ExecSpace> areas;
  DeviceView<const Real*[3], ExecSpace> normals, faceCentres, apex;
  PeriodicSides<ExecSpace> sides;
  int dimension;
  bool fipy;  // GeometryConvention::FiPy: the centre is the mean of the face centres
  DeviceView<Real*, ExecSpace> volumes;
  DeviceView<Real* [3], ExecSpace> centres;
  DeviceView<int*, ExecSpace> bad;

  KOKKOS_FUNCTION void operator()(Ordinal c) const {
    Real volume = 0, moment[3] = {0, 0, 0};
    int degenerate = 0;
    const Real toCentroid = Real(dimension) / Real(dimension + 1);
    for (Offset i = cellFaceOffsets(c); i < cellFaceOffsets(c + 1); ++i) {
      const Ordinal f = cellFaces(i);
      const Real sign = faceCells(f, 0) == c ? Real(1) : Real(-1);
      Real height = 0, seen[3];
      for (int a = 0; a < 3; ++a) {
        seen[a] = faceCentres(f, a) + sides.offset(f, c, a);
        height += (seen[a] - apex(c, a)) * normals(f, a);
      }
      const Real v = sign * height * areas(f) / Real(dimension);
      if (!(v > 0)) degenerate = 1;
      volume += v;
      for (int a = 0; a < 3; ++a)
        moment[a] += v * (apex(c, a) + toCentroid * (seen[a] - apex(c, a)));
    }
    volumes(c) = volume;
    for (int a = 0; a < 3; ++a)
      centres(c, a) = volume > 0 ? moment[a] / volume : apex(c, a);
    if (fipy) {
      const Offset first = cellFaceOffsets(c), last = cellFaceOffsets(c + 1);
      for (int a = 0; a < 3; ++a) {
        Real sum = 0;
        for (Offset i = first; i < last; ++i) {
          const Ordinal f = cellFaces(i);
          sum += faceCentres(f, a) + sides.offset(f, c, a);
        }
        centres(c, a) = sum / Real(last - first);
      }
    }
    bad(c) = degenerate || !(volume > 0);
  }
};

/// A face's distance: the vector from the owner's centroid to the neighbour's (to the
/// face's centroid on the boundary) projected on the face normal (OpenFOAM's
/// non-orthogonal delta), at least 0.05 of its length. On orthogonal faces this is the
/// distance between the centroids (FiPy's). GeometryConvention::FiPy: the vector's
/// length.
template <class ExecSpace>
struct FaceDistance {
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*[3], ExecSpace> cellCentres, faceCentres, normals;
  DeviceView<const Real* [3], ExecSpace> shifts;  // empty without periodic faces
  bool fipy;
  DeviceView<Real*, ExecSpace> distances;

  KOKKOS_FUNCTION void operator()(Ordinal f) const {
    const Ordinal o = faceCells(f, 0), n = faceCells(f, 1);
    Real length = 0, projected = 0;
    for (int a = 0; a < 3; ++a) {
      const Real shift = n >= 0 && shifts.extent(0) > 0 ? shifts(f, a) : Real(0);
      const Real d =
          (n >= 0 ? cellCentres(n, a) + shift : faceCentres(f, a)) - cellCentres(o, a);
      length += d * d;
      projected += d * normals(f, a);
    }
    length = Compat::sqrt(length);
    distances(f) = fipy                              ? length
                   : projected > Real(0.05) * length ? projected
                                                     : Real(0.05) * length;
  }
};

}  // namespace Details

template <class ExecSpace>
Mesh<ExecSpace>::Mesh(const MeshTopology& topology, const ExecSpace& space)
    : dimension_(topology.dimension()), space_(space), id_(Details::nextMeshId()) {
  const MeshTopology::Connectivity c = topology.connect();
  numCells_ = topology.numCells();
  numFaces_ = Ordinal(c.faceCells.size());
  numBoundaryFaces_ = Ordinal(c.boundaryFaces.size());
  patchNames_ = c.patchNames;
  patchSizes_ = c.patchSizes;
  regionNames_ = c.regionNames;
  allocate(Offset(c.cellFaces.size()));

  // Connectivity, through host mirrors.
  auto hostFaceCells = Kokkos::create_mirror_view(faceCells_);
  std::vector<Ordinal> slots(std::size_t(numFaces_), -1);
  for (std::size_t f = 0; f < c.faceCells.size(); ++f) {
    hostFaceCells(f, 0) = c.faceCells[f][0];
    hostFaceCells(f, 1) = c.faceCells[f][1];
  }
  for (std::size_t s = 0; s < c.boundaryFaces.size(); ++s)
    slots[std::size_t(c.boundaryFaces[s])] = Ordinal(s);
  Kokkos::deep_copy(faceCells_, hostFaceCells);
  Kokkos::deep_copy(cellFaceOffsets_,
                    Details::upload<Offset, ExecSpace>("kfvm::Mesh::cellFaceOffsets",
                                                       c.cellFaceOffsets));
  Kokkos::deep_copy(cellFaces_, Details::upload<Ordinal, ExecSpace>(
                                    "kfvm::Mesh::cellFaces", c.cellFaces));
  Kokkos::deep_copy(faceBoundarySlots_, Details::upload<Ordinal, ExecSpace>(
                                            "kfvm::Mesh::faceBoundarySlots", slots));
  Kokkos::deep_copy(boundaryFaces_, Details::upload<Ordinal, ExecSpace>(
                                        "kfvm::Mesh::boundaryFaces", c.boundaryFaces));
  Kokkos::deep_copy(
      boundaryPatches_,
      Details::upload<int, ExecSpace>("kfvm::Mesh::boundaryPatches", c.boundaryPatches));
  if (!regionNames_.empty())
    cellRegions_ =
        Details::upload<int, ExecSpace>("kfvm::Mesh::cellRegions", c.cellRegions);
  faceNodeOffsets_ = Details::upload<Offset, ExecSpace>("kfvm::Mesh::faceNodeOffsets",
                                                        c.faceNodeOffsets);
  faceNodes_ = Details::upload<Ordinal, ExecSpace>("kfvm::Mesh::faceNodes", c.faceNodes);
  faceImageNodes_ =
      Details::upload<Ordinal, ExecSpace>("kfvm::Mesh::faceImageNodes", c.faceImageNodes);
  // Periodic pairs: each joined face's shift (no View without them).
  faceShifts_ = View<Real* [3]>("kfvm::Mesh::faceShifts", c.faceShifts.size());
  auto hostShifts = Kokkos::create_mirror_view(faceShifts_);
  for (std::size_t f = 0; f < c.faceShifts.size(); ++f)
    for (int a = 0; a < 3; ++a) hostShifts(f, a) = Real(c.faceShifts[f][std::size_t(a)]);
  Kokkos::deep_copy(faceShifts_, hostShifts);
  const Details::PeriodicSides<ExecSpace> sides{faceCells_, faceShifts_};
  const auto& points = topology.nodes();
  nodes_ = View<Real* [3]>("kfvm::Mesh::nodes", points.size());
  auto hostNodes = Kokkos::create_mirror_view(nodes_);
  for (std::size_t n = 0; n < points.size(); ++n) {
    for (int a = 0; a < 3; ++a)
      hostNodes(n, a) = a < dimension_ ? Real(points[n][std::size_t(a)]) : Real(0);
  }
  Kokkos::deep_copy(nodes_, hostNodes);

  // Geometry, on the device.
  convention_ = topology.geometryConvention();
  const bool fipy = convention_ == GeometryConvention::FiPy;
  View<Real* [3]> apex("kfvm::Mesh::cellApex", numCells_);
  forEachIndex("kfvm::Mesh::cellApex", space_, numCells_,
               Details::CellApex<ExecSpace>{nodes_, faceNodeOffsets_, cellFaceOffsets_,
                                            faceNodes_, cellFaces_, sides, apex});
  forEachIndex("kfvm::Mesh::faceGeometry", space_, numFaces_,
               Details::FaceGeometry<ExecSpace>{nodes_, faceNodeOffsets_, faceNodes_,
                                                faceCells_, apex, dimension_, fipy,
                                                faceAreas_, faceNormals_, faceCentres_});
  View<int*> bad("kfvm::Mesh::badCells", numCells_);
  forEachIndex("kfvm::Mesh::cellGeometry", space_, numCells_,
               Details::CellGeometry<ExecSpace>{cellFaceOffsets_, cellFaces_, faceCells_,
                                                faceAreas_, faceNormals_, faceCentres_,
                                                apex, sides, dimension_, fipy,
                                                cellVolumes_, cellCentres_, bad});
  forEachIndex(
      "kfvm::Mesh::faceDistances", space_, numFaces_,
      Details::FaceDistance<ExecSpace>{faceCells_, cellCentres_, faceCentres_,
                                       faceNormals_, faceShifts_, fipy, faceDistances_});
  Compat::fence(space_, "kfvm::Mesh::geometry");
  const auto hostBad = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad);
  for (Ordinal cell = 0; cell < numCells_; ++cell) {
    if (!hostBad(cell)) continue;
    Real volume = 0;
    Kokkos::deep_copy(volume, Kokkos::subview(cellVolumes_, cell));
    fail(topology.describeCell(cell), " is degenerate or inverted: its volume is ",
         volume, ", or one of its faces is seen from inside it");
  }
}

#define KFVM_INSTANTIATE_MESH_FROM_TOPOLOGY(Space) \
  template Mesh<Space>::Mesh(const MeshTopology&, const Space&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MESH_FROM_TOPOLOGY)

}  // namespace kfvm
