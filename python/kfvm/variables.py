"""Cell and face variables: kfvm fields on the device, with FiPy's names."""

import numpy as _np

from ._errors import Error
from .mesh import FaceSet


def _host_accessible(mesh):
    return mesh.backend in ("Serial", "OpenMP", "Threads")


class _Variable:
    _kind = None  # "CellField" or "FaceField"

    def __init__(self, mesh, value=0.0, name="", _field=None):
        from .mesh import _Mesh
        if not isinstance(mesh, _Mesh):
            raise Error("%s needs a kfvm mesh (Grid1D/2D/3D, GmshMesh, "
                        "UnstructuredMesh), got %r"
                        % (type(self).__name__, mesh))
        self.mesh = mesh
        self.name = str(name)
        if _field is None:
            _field = getattr(mesh._module, self._kind)(mesh._cpp, self.name or "unnamed", 0.0)
            self._field = _field
            self.setValue(value)
        else:
            self._field = _field

    # -- values --------------------------------------------------------------------------
    @property
    def value(self):
        """The values as a NumPy array: on host backends the field's memory itself (writes
        go through), on a GPU a copy made now."""
        if _host_accessible(self.mesh):
            return _np.asarray(self._field)
        return self._field.copy_to_numpy()

    @value.setter
    def value(self, value):
        self.setValue(value)

    def setValue(self, value, where=None):
        """Sets every value (a number, an array of the field's size, or another variable),
        or only where a boolean mask over the cells (faces) is True."""
        if where is not None:
            current = self._field.copy_to_numpy()
            mask = _np.asarray(where.mask if isinstance(where, FaceSet) else where, dtype=bool)
            if mask.shape != current.shape:
                raise Error("setValue: where has shape %s, the field %s"
                            % (mask.shape, current.shape))
            current[mask] = _np.broadcast_to(self._as_array(value), current.shape)[mask]
            self._field.assign(current)
            return
        if isinstance(value, _Variable):
            if value.mesh is not self.mesh or value._kind != self._kind:
                raise Error("cannot set '%s' from '%s': another mesh or centring"
                            % (self.name, value.name))
            self._field.copy_from(value._field)
            return
        if _np.ndim(value) == 0:
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise Error("'%s': cannot set the values from %r" % (self.name, value)) from None
            self._field.fill(number)
            return
        self._field.assign(self._as_array(value))

    def _as_array(self, value):
        if isinstance(value, _Variable):
            return value.value
        try:
            array = _np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise Error("'%s': cannot set the values from %r" % (self.name, value)) from None
        if array.ndim == 0:
            return _np.full(len(self), float(array))
        if array.shape != (len(self),):
            raise Error("'%s' has %d values; got an array of shape %s"
                        % (self.name, len(self), array.shape))
        return array

    def __len__(self):
        return len(self._field)

    @property
    def shape(self):
        return (len(self),)

    def __array__(self, dtype=None):
        values = self.value
        return values if dtype is None else values.astype(dtype)

    def __float__(self):
        if len(self) != 1:
            raise TypeError("only a variable of one value converts to float")
        return float(self.value[0])

    def __getitem__(self, index):
        return self.value[index]

    # Arithmetic gives NumPy arrays of the current values (kfvm has no lazy
    # expressions: a coefficient that follows phi is a kfvm.Polynomial).
    def __add__(self, other):
        return self.value + _np.asarray(other)

    def __radd__(self, other):
        return _np.asarray(other) + self.value

    def __sub__(self, other):
        return self.value - _np.asarray(other)

    def __rsub__(self, other):
        return _np.asarray(other) - self.value

    def __mul__(self, other):
        return self.value * _np.asarray(other)

    def __rmul__(self, other):
        return _np.asarray(other) * self.value

    def __truediv__(self, other):
        return self.value / _np.asarray(other)

    def __neg__(self):
        return -self.value

    def __pow__(self, other):
        return self.value ** other

    def min(self):
        return float(self.value.min())

    def max(self):
        return float(self.value.max())

    # -- zero-copy exchange ----------------------------------------------------------------
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the field's memory (no copy): numpy.from_dlpack (host
        backends), cupy.from_dlpack and torch.from_dlpack (CUDA) alias it."""
        if copy:
            raise BufferError("kfvm exports its memory itself (copy=True is not offered)")
        return self._field.__dlpack__(stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._field.__dlpack_device__()

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface (version 3) of a field on a CUDA backend."""
        try:
            return self._field.__cuda_array_interface__
        except AttributeError:
            raise AttributeError("'%s' lives on %s, not on a CUDA device"
                                 % (self.name, self.mesh.backend)) from None

    def __repr__(self):
        return "%s(name=%r, %d values on %s)" % (type(self).__name__, self.name, len(self),
                                                 self.mesh.backend)


class CellVariable(_Variable):
    """Values at the cells of a mesh (FiPy's CellVariable), on the mesh's backend.

    ``hasOld=True`` keeps the values of the last :meth:`updateOld` as ``.old``: the
    TransientTerm then starts every solve and sweep from them, as in FiPy. Boundary
    conditions belong to the variable: :meth:`constrain` (a value), ``faceGrad.constrain``
    (a gradient), :meth:`constrainRobin` and :meth:`constrainFlux`.
    """

    _kind = "CellField"

    def __init__(self, mesh, value=0.0, name="", hasOld=False):
        super().__init__(mesh, value=value, name=name)
        self._constraints = []
        self._constraint_version = 0
        self._old = None
        if hasOld:
            self._old = mesh._module.CellField(mesh._cpp, (self.name or "unnamed") + ".old", 0.0)
            self._old.copy_from(self._field)

    @property
    def old(self):
        """The values at the last updateOld() (the variable itself without hasOld)."""
        if self._old is None:
            return self
        return CellVariable._wrap(self.mesh, self._old, self.name + ".old")

    @classmethod
    def _wrap(cls, mesh, field, name):
        variable = cls.__new__(cls)
        _Variable.__init__(variable, mesh, name=name, _field=field)
        variable._constraints, variable._constraint_version, variable._old = [], 0, None
        return variable

    def updateOld(self):
        """Copies the values to .old (on the device)."""
        if self._old is None:
            raise Error("'%s' has no old values: create it with hasOld=True" % self.name)
        self._old.copy_from(self._field)

    # -- boundary conditions ------------------------------------------------------------
    def _faces(self, where):
        if isinstance(where, FaceSet):
            mask = where.mask
        else:
            mask = _np.asarray(where, dtype=bool)
        if mask.shape != (self.mesh.numberOfFaces,):
            raise Error("constrain: where must be a face set or a mask of %d faces, "
                        "got shape %s" % (self.mesh.numberOfFaces, mask.shape))
        faces = _np.flatnonzero(mask)
        slots = self.mesh._faceSlots[faces]
        if _np.any(slots < 0):
            raise Error("constrain: face %d is an interior face; kfvm constrains "
                        "boundary faces only" % faces[_np.argmax(slots < 0)])
        return faces

    def _per_face(self, value, faces, what):
        """A number, one value per selected face, or one per face of the mesh."""
        if isinstance(value, FaceVariable):
            value = value.value
        array = _np.asarray(value, dtype=float)
        if array.ndim == 0:
            array = _np.full(len(faces), float(array))
        elif array.shape == (self.mesh.numberOfFaces,):
            array = array[faces]
        elif array.shape != (len(faces),):
            raise Error("constrain: %s has shape %s; give a number, %d values (one per "
                        "selected face) or %d (one per face)"
                        % (what, array.shape, len(faces), self.mesh.numberOfFaces))
        if not _np.all(_np.isfinite(array)):
            raise Error("constrain: %s is not finite at face %d"
                        % (what, faces[_np.argmax(~_np.isfinite(array))]))
        return array

    def _add_constraint(self, faces, a, b, g):
        self._constraints.append((faces, a, b, g))
        self._constraint_version += 1

    def constrain(self, value, where):
        """phi = value on the boundary faces where (Dirichlet); value a number or an array
        of face values."""
        faces = self._faces(where)
        g = self._per_face(value, faces, "value")
        self._add_constraint(faces, _np.ones(len(faces)), _np.zeros(len(faces)), g)

    def constrainRobin(self, a, b, g, where):
        """a phi + b dphi/dn = g on the boundary faces where (n the outward normal;
        a, b >= 0, not both zero)."""
        faces = self._faces(where)
        self._add_constraint(faces, self._per_face(a, faces, "a"),
                             self._per_face(b, faces, "b"), self._per_face(g, faces, "g"))

    def constrainNormalGradient(self, q, where):
        """dphi/dn = q on the boundary faces where, n the outward normal (Neumann)."""
        faces = self._faces(where)
        self._add_constraint(faces, _np.zeros(len(faces)), _np.ones(len(faces)),
                             self._per_face(q, faces, "gradient"))

    def release(self, where=None):
        """Drops every constraint (FiPy's release); the boundary is zero-flux again."""
        self._constraints = []
        self._constraint_version += 1

    @property
    def faceGrad(self):
        """The gradient at faces, for its constraint: ``phi.faceGrad.constrain(g, where)``."""
        return _FaceGradient(self)

    def _robin_slots(self):
        """The constraints as Robin coefficients per boundary slot (later ones win)."""
        n = self.mesh._cpp.num_boundary_faces
        a, b, g = _np.zeros(n), _np.ones(n), _np.zeros(n)
        touched = _np.zeros(n, dtype=bool)
        face_slots = self.mesh._faceSlots
        for faces, fa, fb, fg in self._constraints:
            slots = face_slots[faces]
            a[slots], b[slots], g[slots], touched[slots] = fa, fb, fg, True
        order = _np.flatnonzero(touched)
        return order.tolist(), a[order].tolist(), b[order].tolist(), g[order].tolist()

    def cellVolumeAverage(self):
        return float(_np.sum(self.value * self.mesh.cellVolumes) / _np.sum(self.mesh.cellVolumes))

    def integrate(self):
        """sum(value * volume), on the device."""
        return self.mesh._module.integrate(self._field, self.mesh._cpp)

    def _face_pairs(self):
        """The values of each face's two cells (the owner's twice on the boundary)."""
        cells = self.mesh.faceCellIDs
        values = self.value
        owner = values[cells[0]]
        return owner, _np.where(cells[1] >= 0, values[_np.maximum(cells[1], 0)], owner)

    @property
    def faceValue(self):
        """Face values: the mean of the two cells (the owner's on the boundary), as a new
        FaceVariable (computed now, on the host)."""
        owner, neighbour = self._face_pairs()
        return FaceVariable(self.mesh, value=0.5 * (owner + neighbour), name=self.name + ".faceValue")

    @property
    def harmonicFaceValue(self):
        """Face values by the harmonic mean of the two cells, as a new FaceVariable."""
        owner, neighbour = self._face_pairs()
        with _np.errstate(divide="ignore", invalid="ignore"):
            harmonic = _np.where(owner + neighbour != 0,
                                 2 * owner * neighbour / (owner + neighbour), 0.0)
        return FaceVariable(self.mesh, value=harmonic, name=self.name + ".harmonicFaceValue")


class _FaceGradient:
    """phi.faceGrad: only its constraint (FiPy's phi.faceGrad.constrain)."""

    def __init__(self, variable):
        self._variable = variable

    def constrain(self, value, where):
        """grad phi = value on the boundary faces where, as FiPy: value a vector (one
        number per axis, broadcast like FiPy's), or (dim, faces) vectors. The
        condition is its outward normal component dphi/dn = value . n (Neumann)."""
        v = self._variable
        faces = v._faces(where)
        dim = v.mesh.dim
        vector = _np.asarray(value, dtype=float)
        normals = v.mesh.faceNormals[:, faces]
        if vector.ndim == 0:
            vector = _np.full((dim, 1), float(vector))
        elif vector.ndim == 1 and vector.shape[0] in (1, dim):
            vector = _np.broadcast_to(vector.reshape(-1, 1), (dim, 1))
        elif vector.ndim == 2 and vector.shape[0] in (1, dim):
            if vector.shape[1] == v.mesh.numberOfFaces:
                vector = vector[:, faces]
            elif vector.shape[1] not in (1, len(faces)):
                raise Error("faceGrad.constrain: value has shape %s" % (vector.shape,))
            vector = _np.broadcast_to(vector, (dim, vector.shape[1]))
        else:
            raise Error("faceGrad.constrain: value has shape %s; give a vector of %d "
                        "numbers or (%d, faces) values" % (vector.shape, dim, dim))
        q = _np.sum(vector * normals, axis=0) * _np.ones(len(faces))
        if not _np.all(_np.isfinite(q)):
            raise Error("faceGrad.constrain: value is not finite")
        v._add_constraint(faces, _np.zeros(len(faces)), _np.ones(len(faces)), q)


class FaceVariable(_Variable):
    """Values at the faces of a mesh: a face coefficient (a diffusion coefficient used as
    it is, or the normal velocity u . n of a ConvectionTerm)."""

    _kind = "FaceField"
