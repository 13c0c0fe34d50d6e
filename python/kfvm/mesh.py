"""Meshes: FiPy's Grid1D, Grid2D and Grid3D on kfvm's Cartesian mesh, and general meshes
of any cells (GmshMesh from a Gmsh .msh file, UnstructuredMesh from nodes and cells)."""

import os as _os

import numpy as _np

from . import _extension
from ._errors import Error


def _backend_module(backend, cells=None):
    """The backend's module: the one named, else KFVM_BACKEND's, else the one placement
    chooses for this many cells (the build's default when the count is not known)."""
    if backend is None:
        from .placement import backend_for
        backend = backend_for(cells) if cells is not None else \
            (_os.environ.get("KFVM_BACKEND") or None)
    return _extension.require(_extension.default_backend() if backend is None
                              else str(backend))


def _vertices(n, d, axis):
    """Vertex coordinates from FiPy's (nx, dx): dx a number or one width per cell."""
    if d is None:
        d = 1.0
    widths = _np.atleast_1d(_np.asarray(d, dtype=float))
    if widths.ndim != 1:
        raise Error("d%s must be a number or a 1D sequence of widths" % axis)
    if n is None:
        n = len(widths) if widths.size > 1 else 1
    try:
        n = int(n)
    except (TypeError, ValueError):
        raise Error("n%s must be an integer, got %r" % (axis, n)) from None
    if n < 1:
        raise Error("n%s must be at least 1, got %d" % (axis, n))
    if widths.size == 1:
        widths = _np.full(n, widths[0])
    if widths.size != n:
        raise Error("d%s has %d widths but n%s is %d" % (axis, widths.size, axis, n))
    if not (_np.all(_np.isfinite(widths)) and _np.all(widths > 0)):
        raise Error("d%s must be finite and positive, got %s" % (axis, widths))
    return _np.concatenate([[0.0], _np.cumsum(widths)])


class FaceSet:
    """A set of faces (FiPy's face masks: mesh.facesLeft, mesh.exteriorFaces, ...).

    Combine with ``&``, ``|`` and ``~``, with each other or with boolean arrays over the
    faces (``mesh.facesLeft & (y > 0.5)`` with ``x, y = mesh.faceCenters``).
    """

    def __init__(self, mesh, mask):
        mask = _np.asarray(mask, dtype=bool)
        if mask.shape != (mesh.numberOfFaces,):
            raise Error("a face mask needs %d entries, got shape %s"
                        % (mesh.numberOfFaces, mask.shape))
        self.mesh = mesh
        self.mask = mask

    def _other(self, other):
        return other.mask if isinstance(other, FaceSet) else _np.asarray(other, dtype=bool)

    def __and__(self, other):
        return FaceSet(self.mesh, self.mask & self._other(other))

    __rand__ = __and__

    def __or__(self, other):
        return FaceSet(self.mesh, self.mask | self._other(other))

    __ror__ = __or__

    def __invert__(self):
        return FaceSet(self.mesh, ~self.mask)

    def __array__(self, dtype=None):
        return self.mask if dtype is None else self.mask.astype(dtype)

    def __len__(self):
        return int(self.mask.sum())

    @property
    def indices(self):
        """The faces in the set, in increasing order."""
        return _np.flatnonzero(self.mask)

    def __repr__(self):
        return "FaceSet(%d of %d faces)" % (len(self), self.mask.size)


class _Mesh:
    """What every kfvm mesh offers Python: sizes, geometry (NumPy copies, made once) and
    face sets (named patches, exterior and interior faces)."""

    def __init__(self, module, cpp, dimension):
        self._module = module
        self._cpp = cpp
        self.dim = dimension
        self.backend = module.__name__.rsplit(".", 1)[-1]
        self._cache = {}

    # -- sizes -------------------------------------------------------------------------
    @property
    def numberOfCells(self):
        return self._cpp.num_cells

    @property
    def numberOfFaces(self):
        return self._cpp.num_faces

    @property
    def patchNames(self):
        """The boundary patches' names, in boundary-slot order."""
        return [name for name in self._cpp.patch_names if self._cpp.has_patch(name)]

    # -- geometry, copied to the host once ---------------------------------------------
    def _get(self, key, make):
        if key not in self._cache:
            value = make()
            if isinstance(value, _np.ndarray):
                value.setflags(write=False)
            self._cache[key] = value
        return self._cache[key]

    @property
    def cellCenters(self):
        """Cell centres, shape (dim, cells) as FiPy's."""
        return self._get("cc", lambda: _np.ascontiguousarray(
            self._cpp.cell_centres()[:, :self.dim].T))

    @property
    def x(self):
        return self.cellCenters[0]

    @property
    def y(self):
        return self.cellCenters[1]

    @property
    def z(self):
        return self.cellCenters[2]

    @property
    def cellVolumes(self):
        return self._get("cv", self._cpp.cell_volumes)

    @property
    def faceCenters(self):
        """Face centres, shape (dim, faces)."""
        return self._get("fc", lambda: _np.ascontiguousarray(
            self._cpp.face_centres()[:, :self.dim].T))

    @property
    def faceNormals(self):
        """Unit normals, shape (dim, faces): owner to neighbour, outward on the boundary."""
        return self._get("fn", lambda: _np.ascontiguousarray(
            self._cpp.face_normals()[:, :self.dim].T))

    @property
    def faceAreas(self):
        return self._get("fa", self._cpp.face_areas)

    @property
    def faceCellIDs(self):
        """The two cells of each face, shape (2, faces); -1 across the boundary."""
        return self._get("fcid", lambda: _np.ascontiguousarray(self._cpp.face_cells().T))

    @property
    def _faceSlots(self):
        return self._get("slots", lambda: _np.array(self._cpp.face_boundary_slots()))

    # -- face sets ---------------------------------------------------------------------
    def _patch(self, name):
        def make():
            mask = _np.zeros(self.numberOfFaces, dtype=bool)
            if self._cpp.has_patch(name):
                first = self._cpp.patch_first_slot(name)
                size = self._cpp.patch_size(name)
                faces = _np.array(self._cpp.boundary_faces())[first:first + size]
                mask[faces] = True
            return mask
        return FaceSet(self, self._get("patch-" + name, make))

    facesLeft = property(lambda self: self._patch("left"))
    facesRight = property(lambda self: self._patch("right"))
    facesBottom = property(lambda self: self._patch("bottom"))
    facesTop = property(lambda self: self._patch("top"))
    # FiPy's z names run "from front to back": facesFront is z = 0 (kfvm's patch
    # "back", the low side) and facesBack is z = max (kfvm's "front").
    facesFront = property(lambda self: self._patch("back"))
    facesBack = property(lambda self: self._patch("front"))
    facesDown = facesBottom
    facesUp = facesTop

    @property
    def exteriorFaces(self):
        return FaceSet(self, self._faceSlots >= 0)

    @property
    def interiorFaces(self):
        return FaceSet(self, self._faceSlots < 0)

    def patch(self, name):
        """The faces of a named patch (a Cartesian grid's left, right, bottom, top, back,
        front; a Gmsh mesh's physical groups)."""
        known = self._known_patches()
        if name not in known:
            raise Error("unknown patch '%s' (known: %s)" % (name, ", ".join(known)))
        return self._patch(name)

    def _known_patches(self):
        return self.patchNames


class _Grid(_Mesh):
    """A Cartesian grid (uniform or not) in 1, 2 or 3 dimensions, on one backend."""

    _patches = ("left", "right", "bottom", "top", "back", "front")

    def __init__(self, dimension, counts, spacings, backend, coordinates="cartesian",
                 origin=(0.0, 0.0, 0.0), periodic=(False, False, False)):
        vertices = [_vertices(n, d, axis) + float(o)
                    for n, d, axis, o in zip(counts, spacings, "xyz", origin)][:dimension]
        cells = 1
        for v in vertices:
            cells *= len(v) - 1
        module = _backend_module(backend, cells)
        self._vertices = vertices
        padded = [list(v) for v in vertices] + [[] for _ in range(3 - dimension)]
        if coordinates == "cartesian" and not any(periodic):
            cpp = module.Mesh(*padded)
        else:
            cpp = module.Mesh.with_geometry(*padded, coordinates, [bool(p) for p in periodic])
        super().__init__(module, cpp, dimension)

    @property
    def periodic(self):
        """Which axes are periodic (x, y, z)."""
        return tuple(self._cpp.periodic)

    @property
    def coordinates(self):
        """'cartesian', 'cylindrical' (x is r) or 'spherical' (x is r)."""
        return self._cpp.coordinates

    @property
    def shape(self):
        """Cells per axis."""
        return tuple(self._cpp.cell_counts[:self.dim])

    def vertices(self, axis):
        """The vertex coordinates along an axis (0 = x, 1 = y, 2 = z)."""
        return _np.array(self._vertices[axis])

    def _known_patches(self):
        return self._patches

    def __repr__(self):
        return "%s(shape=%s, backend=%s)" % (type(self).__name__, self.shape, self.backend)


class _General(_Mesh):
    """A mesh of any cells: its patches and cell regions by name."""

    @property
    def regionNames(self):
        return list(self._cpp.region_names)

    def region(self, name):
        """A boolean mask over the cells of a named region (a Gmsh physical group)."""
        names = self.regionNames
        if name not in names:
            raise Error("unknown cell region '%s' (known: %s)" % (name, ", ".join(names)))
        return _np.asarray(self._cpp.cell_regions()) == names.index(name)

    @property
    def nodes(self):
        """Node coordinates, shape (dim, nodes)."""
        return self._get("nodes", lambda: _np.ascontiguousarray(
            self._cpp.nodes()[:, :self.dim].T))

    def __repr__(self):
        return "%s(%d cells, %d faces, patches=%s, backend=%s)" % (
            type(self).__name__, self.numberOfCells, self.numberOfFaces, self.patchNames,
            self.backend)


def _patch_pairs(periodic):
    """[(source, image), ...] as lists of two names; a kfvm.Error otherwise."""
    pairs = []
    for pair in periodic or ():
        if isinstance(pair, str) or len(pair) != 2:
            raise Error("periodic takes pairs of patch names, e.g. [(\"left\", "
                        "\"right\")], got %r" % (pair,))
        pairs.append([str(pair[0]), str(pair[1])])
    return pairs


class GmshMesh(_General):
    """A Gmsh mesh in 2D or 3D: a .msh file (MSH 2.2 or 4.1, ASCII or binary), or a Gmsh script
    (a .geo file, or the script's text as FiPy's Gmsh2D takes it) meshed in dimension
    ``dimension`` by the gmsh program (Debian's gmsh; KFVM_GMSH names another). Its
    physical groups become named patches (mesh.patch("inlet")) and cell regions
    (mesh.region("core")). periodic: pairs of patches joined into one periodic boundary,
    e.g. [("left", "right")]: each face of the second is the first's moved by one
    translation (as Gmsh's Periodic Curve/Surface makes them); the two patches are then
    gone, their faces inside the mesh."""

    def __init__(self, source, dimension=None, backend=None, periodic=()):
        import os
        import tempfile
        module = _backend_module(backend)
        source = str(source)
        is_file = "\n" not in source and os.path.exists(source)
        periodic = _patch_pairs(periodic)
        if is_file and not source.endswith(".geo"):
            cpp = module.Mesh.from_gmsh(source, periodic)
        else:
            if dimension not in (2, 3):
                raise Error("a Gmsh script is meshed in dimension 2 or 3: give "
                            "dimension= (or use Gmsh2D, Gmsh3D)")
            if is_file:
                cpp = module.Mesh.from_gmsh_script(source, dimension, periodic)
            else:  # the script's text
                with tempfile.TemporaryDirectory(prefix="kfvm-geo-") as folder:
                    path = os.path.join(folder, "script.geo")
                    with open(path, "w") as script:
                        script.write(source)
                    cpp = module.Mesh.from_gmsh_script(path, dimension, periodic)
        super().__init__(module, cpp, cpp.dimension)


def Gmsh2D(source, backend=None):
    """FiPy's Gmsh2D: a 2D .msh file, .geo file or Gmsh script text (GmshMesh)."""
    return GmshMesh(source, dimension=2, backend=backend)


def Gmsh3D(source, backend=None):
    """FiPy's Gmsh3D: a 3D .msh file, .geo file or Gmsh script text (GmshMesh)."""
    return GmshMesh(source, dimension=3, backend=backend)


def _cell_kind(cell, index):
    """"nodes" for a cell given by its nodes, "faces" for one given by its faces."""
    cell = list(cell)
    if not cell:
        raise Error("cell %d is empty" % index)
    depth = {_np.ndim(entry) for entry in cell}
    if depth == {0}:
        return "nodes"
    if depth == {1}:
        return "faces"
    raise Error("cell %d mixes nodes and faces (a cell is a list of nodes, or in 3D a "
                "list of faces, each a list of nodes)" % index)


class UnstructuredMesh(_General):
    """A mesh from nodes (shape (points, dim)) and cells, each a list of node indices: in
    2D polygons (nodes in order around them), in 3D tetrahedra (4), pyramids (5), prisms
    (6) or hexahedra (8) in Gmsh's node order, or else every cell a polyhedron given as
    its faces, each a list of nodes in order around it. patches: {name: [face nodes, ...]}; the
    boundary faces on no patch form the patch "boundary". convention: "centroids"
    (cell and face centroids, distances projected on the normals) or "fipy" (FiPy's
    centres and centre-to-centre distances: GeometryConvention::FiPy). periodic: pairs
    of patches joined into one periodic boundary (as GmshMesh's)."""

    def __init__(self, nodes, cells, patches=None, backend=None, convention="centroids",
                 periodic=()):
        module = _backend_module(backend, len(cells) if hasattr(cells, "__len__") else None)
        nodes = _np.asarray(nodes, dtype=float)
        if nodes.ndim != 2 or nodes.shape[1] not in (2, 3):
            raise Error("nodes must have shape (points, 2) or (points, 3), got %s"
                        % (nodes.shape,))
        dimension = nodes.shape[1]
        padded = _np.zeros((len(nodes), 3))
        padded[:, :dimension] = nodes
        cells = list(cells)
        patches = {str(k): [[int(n) for n in face] for face in v]
                   for k, v in (patches or {}).items()}
        # Every cell a list of nodes, or (3D) every cell a list of faces.
        kinds = [_cell_kind(cell, c) for c, cell in enumerate(cells)]
        if dimension == 3 and kinds and kinds[0] == "faces":
            if "nodes" in kinds:
                raise Error("cell %d is a list of nodes, cell 0 a list of faces: give "
                            "every cell the same way" % kinds.index("nodes"))
            polyhedra = [[[int(n) for n in face] for face in cell] for cell in cells]
            cpp = module.Mesh.from_polyhedra(padded.tolist(), polyhedra, patches,
                                             str(convention), _patch_pairs(periodic))
        else:
            if "faces" in kinds:
                raise Error("cell %d is a list of faces, which only 3D meshes given "
                            "as polyhedra take (every cell a list of faces)"
                            % kinds.index("faces"))
            cells = [[int(n) for n in cell] for cell in cells]
            cpp = module.Mesh.from_cells(dimension, padded.tolist(), cells, patches,
                                         str(convention), _patch_pairs(periodic))
        super().__init__(module, cpp, dimension)


class Grid1D(_Grid):
    """nx cells along x, of width dx (a number, or one width per cell)."""

    def __init__(self, dx=1.0, nx=None, backend=None):
        super().__init__(1, (nx, 1, 1), (dx, 1.0, 1.0), backend)


class Grid2D(_Grid):
    """nx by ny cells of widths dx, dy (numbers or sequences); 1 deep in z, as in FiPy."""

    def __init__(self, dx=1.0, dy=1.0, nx=None, ny=None, backend=None):
        super().__init__(2, (nx, ny, 1), (dx, dy, 1.0), backend)


class Grid3D(_Grid):
    """nx by ny by nz cells of widths dx, dy, dz (numbers or sequences)."""

    def __init__(self, dx=1.0, dy=1.0, dz=1.0, nx=None, ny=None, nz=None, backend=None):
        super().__init__(3, (nx, ny, nz), (dx, dy, dz), backend)


class CylindricalGrid1D(_Grid):
    """FiPy's CylindricalGrid1D: nr cells along the radius, of width dr (a number or one
    width per cell), from r = origin >= 0; face areas and cell volumes scaled by r (per
    radian, as FiPy's)."""

    def __init__(self, dr=1.0, nr=None, origin=0.0, backend=None):
        super().__init__(1, (nr, 1, 1), (dr, 1.0, 1.0), backend, "cylindrical",
                         (float(_np.ravel(origin)[0]), 0.0, 0.0))


class CylindricalGrid2D(_Grid):
    """FiPy's CylindricalGrid2D in r-z: x is the radius (from origin[0] >= 0), y is z."""

    def __init__(self, dr=1.0, dz=1.0, nr=None, nz=None, origin=(0.0, 0.0), backend=None):
        origin = _np.ravel(origin)
        super().__init__(2, (nr, nz, 1), (dr, dz, 1.0), backend, "cylindrical",
                         (origin[0], origin[1], 0.0))


class SphericalGrid1D(_Grid):
    """FiPy's SphericalGrid1D: nr cells along the radius from r = origin >= 0; face areas
    and cell volumes scaled by r^2 (per steradian, as FiPy's)."""

    def __init__(self, dr=1.0, nr=None, origin=0.0, backend=None):
        super().__init__(1, (nr, 1, 1), (dr, 1.0, 1.0), backend, "spherical",
                         (_np.ravel(origin)[0], 0.0, 0.0))


class PeriodicGrid1D(_Grid):
    """FiPy's PeriodicGrid1D: nx cells of width dx, the last joined to the first (no
    left or right patch)."""

    def __init__(self, dx=1.0, nx=None, backend=None):
        super().__init__(1, (nx, 1, 1), (dx, 1.0, 1.0), backend, periodic=(True, False, False))


class PeriodicGrid2D(_Grid):
    """FiPy's PeriodicGrid2D: periodic in x and y; PeriodicGrid2DLeftRight and
    PeriodicGrid2DTopBottom are periodic along one axis."""

    _axes = (True, True, False)

    def __init__(self, dx=1.0, dy=1.0, nx=None, ny=None, backend=None):
        super().__init__(2, (nx, ny, 1), (dx, dy, 1.0), backend, periodic=self._axes)


class PeriodicGrid2DLeftRight(PeriodicGrid2D):
    _axes = (True, False, False)


class PeriodicGrid2DTopBottom(PeriodicGrid2D):
    _axes = (False, True, False)


class PeriodicGrid3D(_Grid):
    """FiPy's PeriodicGrid3D: periodic along every axis."""

    def __init__(self, dx=1.0, dy=1.0, dz=1.0, nx=None, ny=None, nz=None, backend=None):
        super().__init__(3, (nx, ny, nz), (dx, dy, dz), backend, periodic=(True, True, True))
