#ifndef KFVM_MESH_HPP
#define KFVM_MESH_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Patch.hpp>
#include <kfvm_Types.hpp>

#include <array>
#include <cstdint>

namespace kfvm {

/// Face-based finite-volume mesh of a Cartesian grid, stored in Views in ExecSpace's
/// memory space (FiPy's model: cells, faces, and the two cells of each face).
///
/// Numbering. Cell (i, j, k) is i + nx (j + ny k). Faces normal to x come first,
/// (i, j, k) -> i + (nx+1)(j + ny k) with i in [0, nx]; then faces normal to y (from 2D),
/// then to z (3D), numbered likewise. A face's first cell is its owner; its second is the
/// neighbour across it, or -1 on a boundary. Normals point from owner to neighbour, and
/// outwards on a boundary. Boundary faces are also numbered by "slot": patch by patch in
/// the order left, right, bottom, top, back, front, and within a patch by the two other
/// axes, the first varying fastest. Per-face boundary values use that order.
template <class ExecSpace>
class Mesh {
 public:
  using execution_space = ExecSpace;
  template <class DataType>
  using View = DeviceView<DataType, ExecSpace>;

  explicit Mesh(const CartesianGrid& grid, const ExecSpace& space = ExecSpace());

  const CartesianGrid& grid() const { return grid_; }
  int dimension() const { return grid_.dimension(); }
  /// (nx, ny, nz): cells per axis, 1 beyond the dimension.
  std::array<int, 3> cellCounts() const { return grid_.cellCounts(); }
  Ordinal numCells() const { return numCells_; }
  Ordinal numFaces() const { return numFaces_; }
  Ordinal numBoundaryFaces() const { return numBoundaryFaces_; }
  /// Faces normal to an axis; they are numbered from firstFace(axis).
  Ordinal numFacesNormalTo(int axis) const { return facesPerAxis_[axis]; }
  Ordinal firstFace(int axis) const;
  /// Faces on a patch (0 when the grid's dimension does not have it).
  Ordinal patchSize(Patch patch) const { return patchSizes_[static_cast<int>(patch)]; }
  /// First boundary slot of a patch.
  Ordinal patchFirstSlot(Patch patch) const;
  bool hasPatch(Patch patch) const { return grid_.hasPatch(patch); }
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
  /// Boundary slot of each face, -1 for interior faces.
  View<const Ordinal*> faceBoundarySlots() const { return faceBoundarySlots_; }
  /// Face of each boundary slot, and the patch (as int) it lies on.
  View<const Ordinal*> boundaryFaces() const { return boundaryFaces_; }
  View<const int*> boundaryPatches() const { return boundaryPatches_; }

 private:
  CartesianGrid grid_;
  ExecSpace space_;
  std::uint64_t id_;
  Ordinal numCells_ = 0, numFaces_ = 0, numBoundaryFaces_ = 0;
  std::array<Ordinal, 3> facesPerAxis_{};
  std::array<Ordinal, numPatches> patchSizes_{};
  View<Real*> cellVolumes_;
  View<Real* [3]> cellCentres_;
  View<Offset*> cellFaceOffsets_;
  View<Ordinal*> cellFaces_;
  View<Ordinal* [2]> faceCells_;
  View<Real*> faceAreas_;
  View<Real* [3]> faceNormals_;
  View<Real* [3]> faceCentres_;
  View<Real*> faceDistances_;
  View<Ordinal*> faceBoundarySlots_;
  View<Ordinal*> boundaryFaces_;
  View<int*> boundaryPatches_;
};

}  // namespace kfvm

#endif
