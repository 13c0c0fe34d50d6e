#ifndef KFVM_MESH_HPP
#define KFVM_MESH_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_MeshTopology.hpp>
#include <kfvm_Patch.hpp>
#include <kfvm_Types.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kfvm {

/// The coordinates a grid's geometry is measured in (FiPy's CylindricalGrid1D/2D and
/// SphericalGrid1D): x is the radius r >= 0. Cylindrical (1D in r, 2D in r-z): face
/// areas scaled by the face centre's r, cell volumes by the cell centre's r (per radian,
/// as FiPy's). Spherical (1D in r): by r^2. Distances and normals stay the grid's.
enum class Coordinates { Cartesian, Cylindrical, Spherical };

/// "cartesian", "cylindrical", "spherical".
const char* coordinatesName(Coordinates coordinates);

/// How a grid's geometry is measured: its coordinates, and its periodic axes (FiPy's
/// PeriodicGrid1D/2D/3D and the partly periodic ones). On a periodic axis the two ends
/// are one: the faces there join the last cells to the first (no patches on that axis).
struct GridGeometry {
  Coordinates coordinates = Coordinates::Cartesian;
  std::array<bool, 3> periodic{false, false, false};
  GridGeometry(Coordinates coordinates_ = Coordinates::Cartesian,  // NOLINT: implicit
               std::array<bool, 3> periodic_ = {false, false, false})
      : coordinates(coordinates_), periodic(periodic_) {}
};

/// Face-based finite-volume mesh, stored in Views in ExecSpace's memory space (FiPy's
/// model: cells, faces, and the two cells of each face), built from a Cartesian grid or
/// from any cells (a MeshTopology: triangles, quadrilaterals, tetrahedra, hexahedra,
/// prisms, pyramids, polygons, polyhedra), with its geometry computed in ExecSpace.
/// Boundary faces lie on named patches. Every term and solver that reads the face lists
/// works on both; a Cartesian mesh also has its grid (grid()), which the structured
/// fast paths (matrix-free stencils, geometric multigrid) need.
///
/// General meshes. Faces and boundary slots are numbered as MeshTopology::connect()
/// gives them; a face's distance is the vector between its two cells' centroids (from
/// the owner's centroid to the face centroid on the boundary) projected on its normal
/// (OpenFOAM's non-orthogonal delta; FiPy's centroid distance on orthogonal faces), at
/// least 0.05 of the vector's length. A degenerate or inverted
/// cell (a face seen from inside the cell, or no volume) is a kfvm::Error naming it.
///
/// Cartesian numbering. Cell (i, j, k) is i + nx (j + ny k). Faces normal to x come
/// first, (i, j, k) -> i + (nx+1)(j + ny k) with i in [0, nx]; then faces normal to y
/// (from 2D), then to z (3D), numbered likewise. A face's first cell is its owner; its
/// second is the neighbour across it, or -1 on a boundary. Normals point from owner to
/// neighbour, and outwards on a boundary. Boundary faces are also numbered by "slot":
/// patch by patch in the order left, right, bottom, top, back, front, and within a patch
/// by the two other axes, the first varying fastest. Per-face boundary values use that
/// order. Along a periodic axis there are n faces per line, not n + 1: face i is cell
/// i's low face, and face 0 joins the last cell (its owner) to the first; that axis'
/// two patches have no faces.
template <class ExecSpace>
class Mesh {
 public:
  using execution_space = ExecSpace;
  template <class DataType>
  using View = DeviceView<DataType, ExecSpace>;

  explicit Mesh(const CartesianGrid& grid, const ExecSpace& space = ExecSpace());
  /// A grid in cylindrical or spherical coordinates, periodic along some axes
  /// (GridGeometry); throws kfvm::Error for a negative radius, a cylindrical grid in 3D,
  /// a spherical one beyond 1D, a periodic radius or a periodic axis of one cell.
  Mesh(const CartesianGrid& grid, const GridGeometry& geometry,
       const ExecSpace& space = ExecSpace());
  explicit Mesh(const MeshTopology& topology, const ExecSpace& space = ExecSpace());

  /// True when built from a CartesianGrid in Cartesian coordinates with no periodic
  /// axis: every structured fast path's mesh. The matrix-free stencil and geometric
  /// multigrid also take periodic grids (grid()).
  bool isCartesian() const {
    return grid_.has_value() && coordinates_ == Coordinates::Cartesian && !isPeriodic();
  }
  /// True when some axis of the grid is periodic; isPeriodic(axis) for one axis.
  bool isPeriodic() const { return periodic_[0] || periodic_[1] || periodic_[2]; }
  bool isPeriodic(int axis) const { return axis >= 0 && axis < 3 && periodic_[axis]; }
  /// True when built from a CartesianGrid in any coordinates: the grid's cell, face and
  /// boundary-slot numbering (below) and its vertices (gridLayout()).
  bool hasGridLayout() const { return grid_.has_value(); }
  Coordinates coordinates() const { return coordinates_; }
  /// A general mesh's centres and distances (MeshTopology's GeometryConvention);
  /// Centroids on a grid.
  GeometryConvention geometryConvention() const { return convention_; }
  /// The Cartesian grid, periodic along isPeriodic()'s axes (the matrix-free stencil and
  /// geometric multigrid wrap around them); throws kfvm::Error on a general mesh or in
  /// other coordinates.
  const CartesianGrid& grid() const;
  /// The grid a mesh was built from, in any coordinates (numbering, vertices, output);
  /// throws kfvm::Error on a general mesh.
  const CartesianGrid& gridLayout() const;
  int dimension() const { return dimension_; }
  /// (nx, ny, nz): cells per axis, 1 beyond the dimension (Cartesian meshes only).
  std::array<int, 3> cellCounts() const { return grid().cellCounts(); }
  Ordinal numCells() const { return numCells_; }
  Ordinal numFaces() const { return numFaces_; }
  Ordinal numBoundaryFaces() const { return numBoundaryFaces_; }
  /// Faces normal to an axis; they are numbered from firstFace(axis) (Cartesian meshes;
  /// 0 faces on a general mesh).
  Ordinal numFacesNormalTo(int axis) const { return facesPerAxis_[axis]; }
  Ordinal firstFace(int axis) const;

  /// Boundary patches, numbered 0 ... patchCount() - 1: on a Cartesian mesh left,
  /// right, bottom, top, back, front (the Patch enum's order; those beyond the
  /// dimension have no faces), on a general mesh its topology's.
  int patchCount() const { return int(patchNames_.size()); }
  const std::vector<std::string>& patchNames() const { return patchNames_; }
  /// The patch called name; throws kfvm::Error listing the mesh's patches otherwise.
  int patchIndex(const std::string& name) const;
  /// The patch called name, -1 when there is none.
  int findPatch(const std::string& name) const;
  Ordinal patchSize(int patch) const;
  /// First boundary slot of a patch; its faces have the next patchSize() slots.
  Ordinal patchFirstSlot(int patch) const;
  /// A Cartesian side: on a general mesh, the patch of that name (patchName(patch)).
  Ordinal patchSize(Patch patch) const;
  Ordinal patchFirstSlot(Patch patch) const;
  bool hasPatch(Patch patch) const;

  /// Named cell regions (a general mesh's; none on a Cartesian mesh) and each cell's
  /// region index, -1 for none (an empty View without regions).
  const std::vector<std::string>& regionNames() const { return regionNames_; }
  View<const int*> cellRegions() const { return cellRegions_; }
  /// A general mesh's nodes, and each face's nodes in order around it
  /// (faceNodes()(faceNodeOffsets()(f) ... faceNodeOffsets()(f+1) - 1)); empty Views on
  /// a Cartesian mesh.
  View<const Real* [3]> nodes() const {
    return nodes_;
  } View<const Offset*> faceNodeOffsets() const {
    return faceNodeOffsets_;
  }
  View<const Ordinal*> faceNodes() const { return faceNodes_; }
  /// A general mesh with periodic patch pairs: each face's nodes as its second cell has
  /// them, laid out as faceNodes() (on a joined face the image side's nodes, each
  /// matched to faceNodes()' node there; elsewhere the face's own); an empty View
  /// otherwise.
  View<const Ordinal*> faceImageNodes() const { return faceImageNodes_; }
  /// Identifies this mesh (and its copies); fields remember the mesh they belong to.
  std::uint64_t id() const { return id_; }
  const ExecSpace& space() const { return space_; }

  View<const Real*> cellVolumes() const { return cellVolumes_; }
  View<const Real* [3]> cellCentres() const {
    return cellCentres_;
  }
  /// Faces of cell c: cellFaces()(cellFaceOffsets()(c) ... cellFaceOffsets()(c+1) - 1).
  View<const Offset*> cellFaceOffsets() const {
    return cellFaceOffsets_;
  }
  View<const Ordinal*> cellFaces() const { return cellFaces_; }
  View<const Ordinal* [2]> faceCells() const {
    return faceCells_;
  } View<const Real*> faceAreas() const {
    return faceAreas_;
  }
  View<const Real* [3]> faceNormals() const {
    return faceNormals_;
  } View<const Real* [3]> faceCentres() const {
    return faceCentres_;
  }
  /// Distance between the centres of a face's two cells; on a boundary, from the owner
  /// cell's centre to the face centre.
  View<const Real*> faceDistances() const {
    return faceDistances_;
  }
  /// On a periodic grid, or a general mesh with periodic patch pairs
  /// (MeshTopology::addPeriodicPair), each face's shift: what the neighbour's centre
  /// moves by to lie beside the owner's (the translation between the joined ends on the
  /// faces that join them, 0 elsewhere); an empty View without periodic faces. A centre
  /// difference across face f is centre(neighbour) + shift(f) - centre(owner).
  View<const Real* [3]> faceShifts() const {
    return faceShifts_;
  }
  /// Boundary slot of each face, -1 for interior faces.
  View<const Ordinal*> faceBoundarySlots() const {
    return faceBoundarySlots_;
  }
  /// Face of each boundary slot, and the patch (as int) it lies on.
  View<const Ordinal*> boundaryFaces() const { return boundaryFaces_; }
  View<const int*> boundaryPatches() const { return boundaryPatches_; }

 private:
  void allocate(Ordinal numCellFaces);
  void applyCoordinates(Coordinates coordinates);

  std::optional<CartesianGrid> grid_;
  Coordinates coordinates_ = Coordinates::Cartesian;
  std::array<bool, 3> periodic_{false, false, false};
  GeometryConvention convention_ = GeometryConvention::Centroids;
  int dimension_;
  ExecSpace space_;
  std::uint64_t id_;
  Ordinal numCells_ = 0, numFaces_ = 0, numBoundaryFaces_ = 0;
  std::array<Ordinal, 3> facesPerAxis_{};
  std::vector<std::string> patchNames_;
  std::vector<Ordinal> patchSizes_, patchFirstSlots_;
  std::vector<std::string> regionNames_;
  View<int*> cellRegions_;
  View<Real* [3]> nodes_;
  View<Offset*> faceNodeOffsets_;
  View<Ordinal*> faceNodes_, faceImageNodes_;
  View<Real*> cellVolumes_;
  View<Real* [3]> cellCentres_;
  View<Offset*> cellFaceOffsets_;
  View<Ordinal*> cellFaces_;
  View<Ordinal* [2]> faceCells_;
  View<Real*> faceAreas_;
  View<Real* [3]> faceNormals_;
  View<Real* [3]> faceCentres_;
  View<Real*> faceDistances_;
  View<Real* [3]> faceShifts_;
  View<Ordinal*> faceBoundarySlots_;
  View<Ordinal*> boundaryFaces_;
  View<int*> boundaryPatches_;
};

}  // namespace kfvm

#endif
