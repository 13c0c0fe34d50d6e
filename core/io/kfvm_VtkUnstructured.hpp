#ifndef KFVM_VTK_UNSTRUCTURED_HPP
#define KFVM_VTK_UNSTRUCTURED_HPP

#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// Cell fields of a general mesh (one built from a MeshTopology) as a VTK XML
/// UnstructuredGrid file (.vtu: ASCII, 17 significant digits), which ParaView and VisIt
/// open: 2D cells as polygons (VTK_POLYGON), 3D cells as polyhedra given by their faces
/// (VTK_POLYHEDRON), so any cell the mesh holds is written as it is. Written under a
/// temporary name and renamed into place (writeFileAtomically); add it to a
/// VtkTimeSeries for a .pvd series. Copies the mesh and fields to the host: call it
/// between time steps. Throws kfvm::Error naming the path when it cannot be written, the
/// mesh is Cartesian (writeVtkRectilinear writes those) or a field is on another mesh.
template <class ExecSpace>
void writeVtkUnstructured(const std::string& path, const Mesh<ExecSpace>& mesh,
                          const std::vector<const CellField<ExecSpace>*>& fields,
                          double time);

namespace Details {
/// writeVtkUnstructured's file as text, of the mesh's first cellCount cells (-1: all;
/// a distributed part's owned cells, which come first); path names it in errors.
template <class ExecSpace>
std::string unstructuredPieceText(const std::string& path, const Mesh<ExecSpace>& mesh,
                                  const std::vector<const CellField<ExecSpace>*>& fields,
                                  double time, Ordinal cellCount);
}  // namespace Details

}  // namespace kfvm

#endif
