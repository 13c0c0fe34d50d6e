#ifndef KFVM_MESH_QUALITY_HPP
#define KFVM_MESH_QUALITY_HPP

#include <kfvm_Mesh.hpp>

namespace kfvm {

/// How far a mesh is from orthogonal, over its interior faces (the measures OpenFOAM's
/// checkMesh reports):
///  - non-orthogonality: the angle between a face's normal and the line between its two
///    cells' centroids (0 on a Cartesian grid; over 70 degrees wants the correction
///    with care, DiffusionCorrection);
///  - skewness: the distance from the face's centroid to where that line crosses the
///    face's plane, over the line's length (0 where the line passes through it).
struct MeshQuality {
  Ordinal interiorFaces = 0;
  double maxNonOrthogonality = 0;   ///< degrees
  double meanNonOrthogonality = 0;  ///< degrees
  Ordinal facesOver70Degrees = 0;
  double maxSkewness = 0;
};

/// Computed in the mesh's execution space (two reductions over the faces).
template <class ExecSpace>
MeshQuality meshQuality(const Mesh<ExecSpace>& mesh);

}  // namespace kfvm

#endif
