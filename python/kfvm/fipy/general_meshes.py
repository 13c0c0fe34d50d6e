"""FiPy's general meshes (Tri2D, Gmsh2D, SkewedGrid2D, any Mesh2D; in 3D Gmsh3D and any
3D Mesh) as kfvm general meshes with FiPy's own geometry (GeometryConvention::FiPy), cell
for cell and face for face."""

import numpy as _np

from .. import mesh as _kmesh
from .meshes import MappedMesh, Untranslatable, _permutation


def _pair_keys(first, second, nodes):
    """An integer per face of two nodes, whatever their order."""
    low, high = _np.minimum(first, second), _np.maximum(first, second)
    return low.astype(_np.int64) * nodes + high


def _cell_polygons(fipy_mesh):
    """Each cell's vertices in order around it, chained from its faces (FiPy's own
    _orderedCellVertexIDs repeats vertices on some meshes, e.g. SkewedGrid2D)."""
    face_ids = _np.ma.filled(_np.ma.asarray(fipy_mesh.cellFaceIDs), -1).T
    segments = _np.ma.filled(_np.ma.asarray(fipy_mesh.faceVertexIDs), -1).T
    polygons = []
    for c, faces in enumerate(face_ids):
        left = [tuple(int(v) for v in segments[f]) for f in faces if f >= 0]
        chain = list(left.pop(0))
        while left:
            end = chain[-1]
            match = next((k for k, (a, b) in enumerate(left) if end in (a, b)), None)
            if match is None:
                raise Untranslatable("cell %d's faces do not close around it" % c)
            a, b = left.pop(match)
            chain.append(b if a == end else a)
        if chain[-1] != chain[0]:
            raise Untranslatable("cell %d's faces do not close around it" % c)
        polygons.append(chain[:-1])
    return polygons


def _cell_polyhedra(fipy_mesh):
    """Each 3D cell as its faces, each face its vertices in FiPy's order around it."""
    face_ids = _np.ma.filled(_np.ma.asarray(fipy_mesh.cellFaceIDs), -1).T
    vertices = _np.ma.filled(_np.ma.asarray(fipy_mesh.faceVertexIDs), -1).T
    faces = [[int(v) for v in face if v >= 0] for face in vertices]
    if min(len(face) for face in faces) < 3:
        raise Untranslatable("its cells are surfaces in 3D space (faces of 2 vertices); "
                             "kfvm maps 3D meshes of volumes")
    return [[faces[f] for f in cell if f >= 0] for cell in face_ids]


def _face_map(fipy_mesh, kfvm_mesh, nodes):
    """face_to_kfvm: FiPy face f is kfvm face face_to_kfvm[f] (the same nodes)."""
    face_vertices = _np.ma.filled(_np.ma.asarray(fipy_mesh.faceVertexIDs), -1)
    offsets = _np.asarray(kfvm_mesh._cpp.face_node_offsets())
    kfvm_nodes = _np.asarray(kfvm_mesh._cpp.face_nodes())
    if fipy_mesh.dim == 2:
        if _np.any(_np.diff(offsets) != 2) or face_vertices.shape[0] != 2:
            raise Untranslatable("its faces are not segments")
        return _permutation(
            _pair_keys(face_vertices[0], face_vertices[1], nodes),
            _pair_keys(kfvm_nodes[offsets[:-1]], kfvm_nodes[offsets[:-1] + 1], nodes),
            "faces")
    kfvm_face = {tuple(sorted(kfvm_nodes[offsets[k]:offsets[k + 1]].tolist())): k
                 for k in range(len(offsets) - 1)}
    face_to_kfvm = _np.empty(face_vertices.shape[1], dtype=_np.int64)
    for f, column in enumerate(face_vertices.T):
        k = kfvm_face.get(tuple(sorted(int(v) for v in column if v >= 0)))
        if k is None:
            raise Untranslatable("its face %d is no face of kfvm's mesh of its cells" % f)
        face_to_kfvm[f] = k
    if len(_np.unique(face_to_kfvm)) != len(face_to_kfvm):
        raise Untranslatable("its faces do not map one to one onto kfvm's")
    return face_to_kfvm


def _bandwidth_order(fipy_mesh):
    """FiPy's cells in reverse Cuthill-McKee order (scipy's, when scipy is there): FiPy
    numbers a Tri2D's triangles by kind, far from their neighbours, and ILU(0), kfvm's
    stand-in for FiPy's LU, stalls on that order (FiPy's exponential1D/tri2D: 4000 cells
    in a column, residual 6e-4 after 2000 GMRES iterations); with neighbours near each
    other in the matrix it converges."""
    cells = fipy_mesh.numberOfCells
    try:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import reverse_cuthill_mckee
    except ImportError:
        return _np.arange(cells)
    pairs = _np.ma.filled(_np.ma.asarray(fipy_mesh.faceCellIDs), -1)
    inner = (pairs[0] >= 0) & (pairs[1] >= 0)
    a, b = pairs[0, inner], pairs[1, inner]
    graph = coo_matrix((_np.ones(2 * len(a)), (_np.concatenate([a, b]),
                                               _np.concatenate([b, a]))),
                       shape=(cells, cells)).tocsr()
    return _np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), dtype=_np.int64)


class MappedGeneral(MappedMesh):
    """A kfvm general mesh of a FiPy 2D or 3D mesh: the same nodes and cells (FiPy's cell i is
    kfvm's cell_to_kfvm[i], cells renumbered for a narrow matrix), FiPy's centres and
    distances; face_to_kfvm[f] is the kfvm face of FiPy's face f.
    Its geometry is checked against FiPy's: where it differs (beyond round-off) the mesh
    is not translated."""

    def __init__(self, fipy_mesh, backend=None):
        name = type(fipy_mesh).__name__
        if fipy_mesh.dim not in (2, 3):
            raise Untranslatable("its mesh is a %dD FiPy %s; kfvm maps FiPy's general "
                                 "meshes in 2D and 3D" % (fipy_mesh.dim, name))
        vertices = _np.asarray(fipy_mesh.vertexCoords, dtype=float).T
        shapes = (_cell_polygons if fipy_mesh.dim == 2 else _cell_polyhedra)(fipy_mesh)
        order = _bandwidth_order(fipy_mesh)  # kfvm's cell k is FiPy's cell order[k]
        cells = [shapes[c] for c in order]
        try:
            self.kfvm = _kmesh.UnstructuredMesh(vertices, cells, backend=backend,
                                                convention="fipy")
        except Exception as error:  # kfvm refuses the mesh (a degenerate cell, ...)
            raise Untranslatable("kfvm cannot build its mesh: %s" % error) from None
        self.fipy = fipy_mesh
        self.fipy_faces = fipy_mesh.numberOfFaces
        self.dim = fipy_mesh.dim
        if self.kfvm.numberOfFaces != fipy_mesh.numberOfFaces:
            raise Untranslatable("it has %d faces, kfvm's mesh of its cells %d" % (
                fipy_mesh.numberOfFaces, self.kfvm.numberOfFaces))
        self.face_to_kfvm = _face_map(fipy_mesh, self.kfvm, len(vertices))
        self.cell_to_kfvm = _np.empty(fipy_mesh.numberOfCells, dtype=_np.int64)
        self.cell_to_kfvm[order] = _np.arange(fipy_mesh.numberOfCells)
        self.cells_identity = bool(_np.array_equal(order, _np.arange(len(order))))
        self.used_faces = _np.ones(fipy_mesh.numberOfFaces, dtype=bool)
        self.kfvm_normals_in_fipy_order = self.kfvm.faceNormals[:, self.face_to_kfvm]
        self.boundary_slot_of_fipy_face = self.kfvm._faceSlots[self.face_to_kfvm]
        self._check_geometry()

    def _check_geometry(self):
        """FiPy's cell volumes and centres, face areas and distances, to round-off."""
        fipy, kfvm, f, c = self.fipy, self.kfvm, self.face_to_kfvm, self.cell_to_kfvm
        scale = float(_np.max(_np.ptp(_np.asarray(fipy.vertexCoords), axis=1)))
        dim = self.dim
        pairs = [
            ("cell volumes", fipy.cellVolumes, kfvm.cellVolumes[c], scale ** dim),
            ("cell centres", fipy.cellCenters, kfvm.cellCenters[:, c], scale),
            ("face areas", fipy._faceAreas, kfvm.faceAreas[f], scale ** (dim - 1)),
            ("face distances", fipy._cellDistances,
             _np.asarray(kfvm._cpp.face_distances())[f], scale),
        ]
        for what, theirs, ours, size in pairs:
            theirs = _np.asarray(getattr(theirs, "value", theirs), dtype=float)
            if not _np.allclose(ours, theirs, rtol=1e-9, atol=1e-12 * size):
                raise Untranslatable("kfvm's %s of its mesh differ from FiPy's (by up to "
                                     "%.3g)" % (what, _np.max(_np.abs(ours - theirs))))
