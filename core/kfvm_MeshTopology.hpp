#ifndef KFVM_MESH_TOPOLOGY_HPP
#define KFVM_MESH_TOPOLOGY_HPP

#include <kfvm_Types.hpp>

#include <array>
#include <string>
#include <vector>

namespace kfvm {

/// First-order cell shapes, their nodes in Gmsh's order.
enum class CellShape { Triangle, Quadrilateral, Tetrahedron, Hexahedron, Prism, Pyramid };

/// Where a Mesh built from a MeshTopology puts its cell and face centres, and how it
/// measures the distance across a face.
enum class GeometryConvention {
  /// Cell and face centroids; a face's distance is the vector between its cells'
  /// centroids projected on its normal (OpenFOAM's; the non-orthogonal correction
  /// supplies the rest).
  Centroids,
  /// FiPy's general meshes: a face's centre is the mean of its nodes, a cell's the mean
  /// of its faces' centres, a face's distance the length of the vector between its
  /// cells' centres (to the face centre on the boundary). The same as Centroids on
  /// triangles and tetrahedra whose faces are normal to the lines between centres.
  FiPy
};

/// The dimension of a cell shape (2 or 3).
int cellShapeDimension(CellShape shape);
/// The number of nodes of a cell shape.
int cellShapeNodes(CellShape shape);

/// A general mesh as its cells and nodes, in host memory, before it becomes a Mesh:
/// any cells (the standard shapes, polygons in 2D, polyhedra in 3D), each one a list of
/// faces (segments in 2D, node cycles in 3D); faces are shared by two cells when their
/// nodes are the same. Boundary faces go on named patches (faces on none go on a patch
/// called "boundary"), and cells into named regions. Every entry checks its input and
/// throws kfvm::Error naming the cell (and its label, e.g. a Gmsh element tag) or node.
class MeshTopology {
 public:
  /// dimension 2 (nodes in the x-y plane, z ignored) or 3.
  MeshTopology(int dimension, std::vector<std::array<double, 3>> nodes);

  int dimension() const { return dimension_; }
  const std::vector<std::array<double, 3>>& nodes() const { return nodes_; }
  Ordinal numCells() const { return Ordinal(cellLabels_.size()); }

  /// Adds a cell of a standard shape of the topology's dimension; returns its index.
  /// label names it in errors (e.g. the Gmsh element's number; -1: none).
  Ordinal addCell(CellShape shape, const std::vector<Ordinal>& nodes,
                  long long label = -1);
  /// Adds a 2D polygon: its nodes in order around it.
  Ordinal addPolygon(const std::vector<Ordinal>& nodes, long long label = -1);
  /// Adds a 3D polyhedron: its faces, each a cycle of at least 3 nodes.
  Ordinal addPolyhedron(const std::vector<std::vector<Ordinal>>& faces,
                        long long label = -1);

  /// Puts the boundary face with these nodes (in any order) on the patch called name.
  void addBoundaryFace(const std::string& patch, const std::vector<Ordinal>& nodes);
  /// Puts cell into the region called name (a cell is in at most one region).
  void setCellRegion(Ordinal cell, const std::string& region);
  /// Makes two patches one periodic boundary (FiPy's periodic grids, Gmsh's periodic
  /// surfaces): the faces of patch `image` are those of patch `source` moved by one
  /// translation, face for face and node for node. connect() joins each pair of faces
  /// into one interior face between their two cells (the source face's nodes, owned by
  /// the source side's cell; Connectivity::faceShifts holds the move that brings the
  /// image side's cell beside it) and drops the two patches. Checked there: both
  /// patches exist, are distinct and in one pair each, and their faces match within
  /// 1e-6 of the mesh's size; a face without its image is a kfvm::Error naming it.
  void addPeriodicPair(const std::string& source, const std::string& image);
  const std::vector<std::array<std::string, 2>>& periodicPairs() const {
    return periodicPairs_;
  }

  /// The faces, cells and patches a Mesh is built from. Faces are numbered in the order
  /// the cells first name them; a face's first cell is the one that named it first, its
  /// second is -1 on the boundary. Boundary slots run patch by patch (in the order the
  /// patches were named, "boundary" last), by face number within a patch.
  struct Connectivity {
    std::vector<Offset> faceNodeOffsets;
    std::vector<Ordinal> faceNodes;  // each face's nodes, in its owner's order
    std::vector<std::array<Ordinal, 2>> faceCells;
    std::vector<Offset> cellFaceOffsets;
    std::vector<Ordinal> cellFaces;
    std::vector<std::string> patchNames;
    std::vector<Ordinal> patchSizes;
    std::vector<Ordinal> boundaryFaces;  // the face of each boundary slot
    std::vector<int> boundaryPatches;    // the patch of each boundary slot
    std::vector<std::string> regionNames;
    std::vector<int> cellRegions;  // -1: in no region
    // Per face with periodic pairs (empty without): what the second cell's centre moves
    // by to lie beside the first's across the face (0 on the other faces), and the
    // face's nodes as its second cell has them, laid out as faceNodes (a joined face:
    // the image side's nodes, each the one matched to faceNodes' node there).
    std::vector<std::array<double, 3>> faceShifts;
    std::vector<Ordinal> faceImageNodes;
  };
  /// Matches the cells' faces and joins the periodic pairs; throws kfvm::Error for a
  /// face of more than two cells, a patch face that is not on the boundary or on two
  /// patches, a mesh without cells, or periodic patches that do not match.
  Connectivity connect() const;

  /// The sub-mesh of the given cells (each once; they become cells 0, 1, ... in this
  /// order), with their faces, labels and regions, the nodes they use renumbered in the
  /// order of first use, and this topology's convention. connectivity is connect()'s
  /// result. Its patches are all of this topology's (connectivity.patchNames, empty
  /// where the part has none of their faces), then cutPatch: the faces between a kept
  /// cell and a cell left out. Region names are all kept too, so that every part of one
  /// topology names its patches and regions alike. A periodic face joining two kept
  /// cells stays joined (the part takes the pair again, with those faces only); one
  /// joining a kept cell to a cell left out goes on cutPatch.
  MeshTopology part(const std::vector<Ordinal>& cells, const Connectivity& connectivity,
                    const std::string& cutPatch) const;

  /// The convention the Mesh built from this topology follows (Centroids unless set).
  void setGeometryConvention(GeometryConvention convention) { convention_ = convention; }
  GeometryConvention geometryConvention() const { return convention_; }

  /// The label given to a cell ("cell 3" or "cell 3 (element 17)"), for errors.
  std::string describeCell(Ordinal cell) const;

 private:
  Ordinal addFaces(const std::vector<std::vector<Ordinal>>& faces, long long label);
  /// Adds a cell of count faces, face f of sizes[f] nodes, the faces one after another
  /// in nodes (no allocation but the topology's own).
  Ordinal addFlatFaces(const Ordinal* nodes, const int* sizes, int count,
                       long long label);
  void checkNode(Ordinal node, const char* where) const;

  int dimension_;
  std::vector<std::array<double, 3>> nodes_;
  std::vector<long long> cellLabels_;
  std::vector<Offset> cellFaceOffsets_{0};  // into the cell faces below
  std::vector<Offset> faceNodeOffsets_{0};  // of each cell's faces, in cell order
  std::vector<Ordinal> faceNodes_;
  std::vector<std::string> patchNames_;
  std::vector<std::vector<Ordinal>> patchFaceNodes_;  // flat: a count, then the nodes
  std::vector<std::string> regionNames_;
  std::vector<int> cellRegions_;
  std::vector<std::array<std::string, 2>> periodicPairs_;
  GeometryConvention convention_ = GeometryConvention::Centroids;
};

}  // namespace kfvm

#endif
