"""Output and state: VTK files and .pvd series, PNG snapshots, probes, HDF5 checkpoints,
decks, deck expressions, and the allocation/copy watch."""

import os as _os

import numpy as _np

from . import _kfvm
from ._errors import Error
from .variables import CellVariable


def _cell_variables(variables, what):
    if isinstance(variables, CellVariable):
        variables = [variables]
    variables = list(variables)
    if not variables:
        raise Error("%s: give at least one CellVariable" % what)
    for v in variables:
        if not isinstance(v, CellVariable):
            raise Error("%s: %r is not a kfvm.CellVariable" % (what, v))
        if v.mesh is not variables[0].mesh:
            raise Error("%s: the variables must share one mesh" % what)
    return variables


def write_vtk(path, variables, time=0.0):
    """Writes cell variables of one mesh as a VTK file: a RectilinearGrid (.vtr) for a
    Cartesian grid, an UnstructuredGrid (.vtu) for a general mesh (written under a
    temporary name, checked, and renamed)."""
    variables = _cell_variables(variables, "write_vtk")
    mesh = variables[0].mesh
    mesh._module.write_vtk(str(path), mesh._cpp, [v._field for v in variables], float(time))


class VtkSeries:
    """A time series of .vtr (Cartesian) or .vtu (general mesh) files with its ParaView
    collection (.pvd) in a folder."""

    def __init__(self, directory, name="fields"):
        self.directory = str(directory)
        _os.makedirs(self.directory, exist_ok=True)
        self.name = name
        self._series = _kfvm.VtkTimeSeries(_os.path.join(self.directory, name + ".pvd"))
        self._count = 0

    def write(self, variables, time):
        """Writes NAME_NNNNNN.vtr (or .vtu) and adds it to NAME.pvd; returns the file's
        path."""
        variables = _cell_variables(variables, "VtkSeries.write")
        cartesian = variables[0].mesh._cpp.has_grid_layout
        file = "%s_%06d.%s" % (self.name, self._count, "vtr" if cartesian else "vtu")
        write_vtk(_os.path.join(self.directory, file), variables, time)
        self._series.add(float(time), file)
        self._count += 1
        return _os.path.join(self.directory, file)

    @property
    def pvd(self):
        return self._series.path


def write_png(path, variable):
    """A 2D variable (or the middle z slice of a 3D grid's) as a PNG with a colour bar;
    on a 2D general mesh its cells rasterized."""
    (variable,) = _cell_variables([variable], "write_png")
    mesh = variable.mesh
    if not mesh._cpp.has_grid_layout:
        if mesh.dim != 2:
            raise Error("write_png: PNG snapshots of 3D general meshes are not built "
                        "(write_vtk writes them)")
        _kfvm.write_polygons_png(str(path), mesh._cpp.cell_polygons(),
                                 list(map(float, variable.value)))
        return
    vertices = [list(mesh.vertices(a)) for a in range(mesh.dim)] + [[]] * (3 - mesh.dim)
    _kfvm.write_png(str(path), *vertices, list(map(float, variable.value)))


class Probes:
    """Values of variables at points (the cells that hold them), appended as CSV rows:
    ``time, var@point...``."""

    def __init__(self, variables, points, path=None):
        self.variables = _cell_variables(variables, "Probes")
        mesh = self.variables[0].mesh
        self.cells = []
        for point in points:
            point = _np.atleast_1d(_np.asarray(point, dtype=float))
            if point.shape != (mesh.dim,):
                raise Error("a probe point needs %d coordinates, got %s" % (mesh.dim, point))
            if not mesh._cpp.has_grid_layout:  # a general mesh: the cell holding the point
                padded = list(point) + [0.0] * (3 - mesh.dim)
                cell = mesh._cpp.cell_containing(padded)
                if cell < 0:
                    raise Error("probe point %s is outside the mesh" % (point,))
                self.cells.append(cell)
                continue
            index = 0
            stride = 1
            for axis in range(mesh.dim):
                vertices = mesh.vertices(axis)
                if not (vertices[0] <= point[axis] <= vertices[-1]):
                    raise Error("probe point %s is outside the mesh" % (point,))
                i = min(int(_np.searchsorted(vertices, point[axis], side="right")) - 1,
                        len(vertices) - 2)
                index += i * stride
                stride *= len(vertices) - 1
            self.cells.append(index)
        self.points = [tuple(p) if _np.ndim(p) else (p,) for p in points]
        self.path = None if path is None else str(path)
        if self.path is not None:
            with open(self.path, "w") as out:
                names = ["%s@%s" % (v.name, "(" + ",".join("%g" % c for c in p) + ")")
                         for v in self.variables for p in self.points]
                out.write(",".join(["time"] + names) + "\n")

    def values(self):
        """The values now: one row per variable, one column per point (small copies)."""
        return _np.array([v._field.values_at(self.cells) for v in self.variables])

    def record(self, time):
        """Appends a row to the CSV file (when there is one; written and flushed, a failed
        write raises); returns the values."""
        values = self.values()
        if self.path is not None:
            with open(self.path, "a") as out:
                out.write(",".join(["%.17g" % time] + ["%.17g" % x for x in values.ravel()]) + "\n")
                out.flush()  # a full disk raises here (OSError), not later
        return values


def _fingerprint(variables):
    mesh = variables[0].mesh
    sizes = " x ".join(str(n) for n in mesh.shape)
    lengths = " x ".join("%.17g" % (mesh.vertices(a)[-1] - mesh.vertices(a)[0])
                         for a in range(mesh.dim))
    return "python mesh %dD %s cells, length %s; variables %s" % (
        mesh.dim, sizes, lengths, ",".join(v.name for v in variables))


def save_checkpoint(path, variables, time=0.0, step=0, dt=1.0):
    """Writes an HDF5 checkpoint of the variables (sealed with its length and checksum,
    read back and compared, then renamed into place; kfvm's deck format)."""
    variables = _cell_variables(variables, "save_checkpoint")
    mesh = variables[0].mesh
    cells = list(mesh.shape) + [1] * (3 - mesh.dim)
    _kfvm.write_checkpoint(str(path), int(step), float(time), float(dt), cells,
                           [v.name for v in variables],
                           [list(map(float, v.value)) for v in variables], _fingerprint(variables))


def load_checkpoint(path, variables):
    """Reads a checkpoint written by save_checkpoint into the variables (the same mesh
    and names, checked); returns {"time", "step", "dt"}."""
    variables = _cell_variables(variables, "load_checkpoint")
    state = _kfvm.read_checkpoint(str(path))
    if state["fingerprint"] != _fingerprint(variables):
        raise Error("checkpoint '%s' belongs to %s, not to %s"
                    % (path, state["fingerprint"], _fingerprint(variables)))
    for v, values in zip(variables, state["values"]):
        v.setValue(_np.asarray(values))
    return {"time": state["time"], "step": state["step"], "dt": state["dt"]}


def run_deck(path, output=None, restart=None, max_steps=None, cells=None,
             quiet=False, verbose=False):
    """Runs a TOML deck in this process, as ``kfvm run`` does (the same options);
    returns its exit status: 0, 2 (a solve failed) or 4 (its [check] failed). Errors
    raise kfvm.Error."""
    return _kfvm.run_deck(str(path), "" if output is None else str(output),
                          "" if restart is None else str(restart),
                          0 if max_steps is None else int(max_steps),
                          0 if cells is None else int(cells), bool(quiet), bool(verbose))


def check_deck(path):
    """``kfvm check``: every check a run makes before its first step."""
    return _kfvm.check_deck(str(path))


class Expression:
    """An expression in x, y, z and t, as decks write initial values and exact solutions
    (kfvm's own parser)."""

    def __init__(self, text):
        self._cpp = _kfvm.Expression(str(text))

    @property
    def text(self):
        return self._cpp.text

    def __call__(self, x, y=None, z=None, t=0.0):
        x = _np.atleast_1d(_np.asarray(x, dtype=float))
        y = _np.zeros_like(x) if y is None else _np.broadcast_to(_np.asarray(y, dtype=float), x.shape)
        z = _np.zeros_like(x) if z is None else _np.broadcast_to(_np.asarray(z, dtype=float), x.shape)
        return self._cpp.evaluate(_np.ascontiguousarray(x.ravel()), _np.ascontiguousarray(y.ravel()),
                                  _np.ascontiguousarray(z.ravel()), float(t)).reshape(x.shape)


class ResourceWatch:
    """Counts Kokkos allocations and copies between host and device while it is open::

        with kfvm.ResourceWatch() as watch:
            eq.solve(var=phi, dt=dt)
        assert watch.allocations == 0 and watch.cross_space_copies == 0
    """

    def __enter__(self):
        self._cpp = _kfvm.ResourceWatch()
        return self

    def __exit__(self, *exc):
        counts = self._cpp.counts()
        self.__dict__.update(counts)
        del self._cpp
        return False

    def counts(self):
        return self._cpp.counts() if hasattr(self, "_cpp") else {
            k: getattr(self, k) for k in ("allocations", "cross_space_copies",
                                          "first_allocation", "first_copy")}
