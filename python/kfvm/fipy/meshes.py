"""FiPy's Cartesian, cylindrical and spherical grids as kfvm grids, with the maps
between their numberings."""

import numpy as _np

from .. import mesh as _kmesh

#: The FiPy mesh classes kfvm maps (by exact type: FiPy's cylindrical, spherical,
#: periodic and skewed grids derive from some of them and are other geometries).
_GRID_CLASSES = ("UniformGrid1D", "UniformGrid2D", "UniformGrid3D",
                 "NonUniformGrid1D", "NonUniformGrid2D", "NonUniformGrid3D")
#: FiPy's periodic grids (their periodic axes are found from the faces they leave unused).
_PERIODIC_CLASSES = ("PeriodicGrid1D", "PeriodicGrid2D", "PeriodicGrid2DLeftRight",
                     "PeriodicGrid2DTopBottom", "PeriodicGrid3D", "PeriodicGrid3DLeftRight",
                     "PeriodicGrid3DLeftRightTopBottom", "PeriodicGrid3DLeftRightFrontBack",
                     "PeriodicGrid3DTopBottom", "PeriodicGrid3DTopBottomFrontBack",
                     "PeriodicGrid3DFrontBack")
#: FiPy's grids in cylindrical (r, r-z) and spherical (r) coordinates, by exact type, and
#: the kfvm grid of each (x is the radius, from the FiPy mesh's first vertex).
_CURVILINEAR_CLASSES = {
    "CylindricalUniformGrid1D": ("cylindrical", 1),
    "CylindricalNonUniformGrid1D": ("cylindrical", 1),
    "CylindricalUniformGrid2D": ("cylindrical", 2),
    "CylindricalNonUniformGrid2D": ("cylindrical", 2),
    "SphericalUniformGrid1D": ("spherical", 1),
    "SphericalNonUniformGrid1D": ("spherical", 1),
}


class Untranslatable(Exception):
    """What kfvm cannot take over from FiPy; the message says what and why."""


def _nearest(points, values):
    """Index of the nearest of sorted points for each value."""
    if len(points) == 1:
        return _np.zeros(len(values), dtype=_np.int64)
    midpoints = 0.5 * (points[1:] + points[:-1])
    return _np.searchsorted(midpoints, values).astype(_np.int64)


def _face_keys(centres, normals, vertices, cells):
    """An integer per face from its normal axis and its position: (axis, i, j, k) with
    i, j, k indices of vertices along the normal axis and of cells across it."""
    dim = centres.shape[0]
    axis = _np.argmax(_np.abs(normals), axis=0)
    key = axis.astype(_np.int64)
    for a in range(dim):
        along = _nearest(vertices[a], centres[a])
        across = _nearest(cells[a], centres[a])
        index = _np.where(axis == a, along, across)
        key = key * (len(vertices[a]) + 1) + index
    return key


def _cell_keys(centres, cells):
    key = _np.zeros(centres.shape[1], dtype=_np.int64)
    for a in range(centres.shape[0]):
        key = key * len(cells[a]) + _nearest(cells[a], centres[a])
    return key


def _permutation(source_keys, target_keys, what):
    """p with target_keys[p] == source_keys (source entry i is target entry p[i])."""
    order = _np.argsort(target_keys, kind="stable")
    position = _np.searchsorted(target_keys[order], source_keys)
    position = _np.minimum(position, len(order) - 1)
    p = order[position]
    if not _np.array_equal(target_keys[p], source_keys) or len(_np.unique(p)) != len(p):
        raise Untranslatable("its %s do not map one to one onto a kfvm grid's" % what)
    return p


class MappedMesh:
    """What the translation reads of a FiPy mesh mapped onto a kfvm mesh: kfvm (the
    mesh), fipy, dim, fipy_faces, cell_to_kfvm (FiPy's cell i is kfvm's cell_to_kfvm[i]),
    cells_identity, face_to_kfvm (-1 for FiPy faces kfvm does not have), used_faces,
    kfvm_normals_in_fipy_order and boundary_slot_of_fipy_face; and the maps of values
    below (MappedGrid, MappedGeneral)."""

    def cells_to_kfvm(self, values):
        """FiPy cell values in kfvm's order."""
        if self.cells_identity:
            return values
        out = _np.empty_like(values)
        out[self.cell_to_kfvm] = values
        return out

    def cells_from_kfvm(self, values):
        """kfvm cell values in FiPy's order."""
        return values if self.cells_identity else values[self.cell_to_kfvm]

    def faces_to_kfvm(self, values):
        """FiPy face values (along the first axis) in kfvm's order; those of unused faces
        dropped."""
        values = _np.asarray(values)
        out = _np.empty((self.kfvm.numberOfFaces,) + values.shape[1:], dtype=values.dtype)
        out[self.face_to_kfvm[self.used_faces]] = values[self.used_faces]
        return out


class MappedGrid(MappedMesh):
    """A kfvm grid with FiPy's mesh's cells and faces, and the maps between them.

    cell_to_kfvm[i] is the kfvm cell of FiPy's cell i (the identity on FiPy's grids,
    which number cells as kfvm does, x fastest); face_to_kfvm[f] the kfvm face of
    FiPy's face f.
    """

    def __init__(self, fipy_mesh, backend=None):
        name = type(fipy_mesh).__name__
        curvilinear = _CURVILINEAR_CLASSES.get(name)
        periodic = name in _PERIODIC_CLASSES
        if name not in _GRID_CLASSES and curvilinear is None and not periodic:
            raise Untranslatable("its mesh is a FiPy %s; kfvm maps FiPy's Grid1D/2D/3D, "
                                 "CylindricalGrid1D/2D, SphericalGrid1D and periodic grids "
                                 "(uniform or not) only, until it maps general meshes"
                                 % name)
        dim = fipy_mesh.dim
        vertex_coords = _np.asarray(fipy_mesh.vertexCoords, dtype=float)
        vertices = [_np.unique(vertex_coords[a]) for a in range(dim)]
        shape = tuple(int(n) for n in fipy_mesh.shape)[:dim]
        if tuple(len(v) - 1 for v in vertices) != shape:
            raise Untranslatable("its vertices do not form a %s grid" % (shape,))
        widths = [_np.diff(v) for v in vertices]
        counts = [len(w) for w in widths] + [1] * (3 - dim)
        spacings = [w for w in widths] + [1.0] * (3 - dim)
        arguments = {}
        origin = _np.array([v[0] for v in vertices]).reshape(dim, 1)
        kfvm_origin = _np.zeros((dim, 1))  # where the kfvm grid starts
        fipy_faces = _np.asarray(fipy_mesh.faceCenters, dtype=float) - origin
        fipy_normals = _np.asarray(fipy_mesh.faceNormals, dtype=float)
        local = [v - v[0] for v in vertices]
        used = _np.ones(fipy_mesh.numberOfFaces, dtype=bool)
        if periodic:
            # FiPy joins the faces at a periodic axis' low end to the last cells and
            # leaves those at its high end unused; kfvm has the joining faces only, with
            # their centres at the high end (the last cell's side).
            face_ids = _np.ma.filled(_np.ma.asarray(fipy_mesh.cellFaceIDs), -1)
            used[:] = False
            used[face_ids[face_ids >= 0]] = True
            normal_axis = _np.argmax(_np.abs(fipy_normals), axis=0)
            axes = []
            for a in range(dim):
                on_axis = normal_axis == a
                high = on_axis & _np.isclose(fipy_faces[a], local[a][-1])
                axes.append(bool(_np.any(high & ~used)))
                if axes[-1]:
                    low = on_axis & _np.isclose(fipy_faces[a], 0.0) & used
                    fipy_faces[a, low] = local[a][-1]
            if _np.count_nonzero(~used) == 0 or not any(axes):
                raise Untranslatable("its periodic axes could not be found")
            make = lambda backend, **kw: _kmesh._Grid(  # noqa: E731
                dim, [kw["n" + a] for a in "xyz"[:dim]] + [1] * (3 - dim),
                [kw["d" + a] for a in "xyz"[:dim]] + [1.0] * (3 - dim), backend,
                periodic=tuple(axes) + (False,) * (3 - dim))
            names = "xyz"
        elif curvilinear is None:
            make = {1: _kmesh.Grid1D, 2: _kmesh.Grid2D, 3: _kmesh.Grid3D}[dim]
            names = "xyz"
        else:  # the radius is a coordinate of the geometry: the grid starts where FiPy's does
            coordinates, expected = curvilinear
            if dim != expected:
                raise Untranslatable("its mesh is a %dD FiPy %s" % (dim, name))
            make = {("cylindrical", 1): _kmesh.CylindricalGrid1D,
                    ("cylindrical", 2): _kmesh.CylindricalGrid2D,
                    ("spherical", 1): _kmesh.SphericalGrid1D}[curvilinear]
            names = "rz"
            arguments["origin"] = tuple(origin.ravel()) if dim > 1 else float(origin[0, 0])
            kfvm_origin = origin
        for a, axis in enumerate(names[:dim]):
            arguments["n" + axis] = counts[a]
            arguments["d" + axis] = spacings[a]
        self.kfvm = make(backend=backend, **arguments)
        self.fipy = fipy_mesh
        self.fipy_faces = fipy_mesh.numberOfFaces  # the length of FiPy's face arrays
        self.dim = dim
        cells = [0.5 * (v[1:] + v[:-1]) - v[0] for v in vertices]

        fipy_cells = _np.asarray(fipy_mesh.cellCenters, dtype=float) - origin
        self.cell_to_kfvm = _permutation(
            _cell_keys(fipy_cells, cells),
            _cell_keys(self.kfvm.cellCenters - kfvm_origin, cells), "cells")
        self.cells_identity = bool(_np.array_equal(self.cell_to_kfvm,
                                                   _np.arange(len(self.cell_to_kfvm))))
        if _np.count_nonzero(used) != self.kfvm.numberOfFaces:
            raise Untranslatable("it has %d faces in use, the kfvm grid %d" % (
                _np.count_nonzero(used), self.kfvm.numberOfFaces))
        #: FiPy's faces that no cell has (a periodic grid's high ends); -1 in
        #: face_to_kfvm, -2 in boundary_slot_of_fipy_face.
        self.used_faces = used
        self.face_to_kfvm = _np.full(fipy_mesh.numberOfFaces, -1, dtype=_np.int64)
        self.face_to_kfvm[used] = _permutation(
            _face_keys(fipy_faces[:, used], fipy_normals[:, used], local, cells),
            _face_keys(self.kfvm.faceCenters - kfvm_origin, self.kfvm.faceNormals, local,
                       cells), "faces")
        #: kfvm's face normals (owner to neighbour, outward on the boundary) in FiPy's
        #: face order: a FiPy face vector dotted with them is kfvm's normal component.
        self.kfvm_normals_in_fipy_order = _np.zeros((dim, fipy_mesh.numberOfFaces))
        self.kfvm_normals_in_fipy_order[:, used] = \
            self.kfvm.faceNormals[:, self.face_to_kfvm[used]]
        self.boundary_slot_of_fipy_face = _np.full(fipy_mesh.numberOfFaces, -2,
                                                   dtype=_np.int64)
        self.boundary_slot_of_fipy_face[used] = self.kfvm._faceSlots[self.face_to_kfvm[used]]


_grids = {}


def _map(fipy_mesh, backend):
    """A FiPy grid (Cartesian, cylindrical, spherical or periodic) as a MappedGrid; any
    other 2D or 3D FiPy mesh (Mesh2D, Mesh: Gmsh2D, Gmsh3D, ...) as a MappedGeneral."""
    name = type(fipy_mesh).__name__
    if name in _GRID_CLASSES or name in _PERIODIC_CLASSES or name in _CURVILINEAR_CLASSES:
        return MappedGrid(fipy_mesh, backend)
    from fipy.meshes.mesh import Mesh
    from fipy.meshes.mesh2D import Mesh2D
    if isinstance(fipy_mesh, Mesh2D) or (isinstance(fipy_mesh, Mesh)
                                         and fipy_mesh.dim == 3):
        from .general_meshes import MappedGeneral
        return MappedGeneral(fipy_mesh, backend)
    return MappedGrid(fipy_mesh, backend)  # refuses it, naming the class


def mapped_grid(fipy_mesh, backend=None):
    """The MappedGrid (or MappedGeneral) of a FiPy mesh, built once per mesh and
    backend."""
    key = (id(fipy_mesh), backend)
    entry = _grids.get(key)
    if entry is None or entry[0] is not fipy_mesh:
        entry = (fipy_mesh, _map(fipy_mesh, backend))
        _grids[key] = entry
    return entry[1]
