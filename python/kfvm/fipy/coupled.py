"""FiPy's coupled equations (eq1 & eq2 & ...) on kfvm's CoupledSystem: each equation's
terms read block by block (equation e, variable v), their coefficients evaluated by
FiPy to arrays, each variable's constraints, compiled once per structure.

Equation e is FiPy's sum of terms equal to zero, multiplied by sigma_e = +-1 so that its
transient coefficients are >= 0 (kfvm's form, kfvm_CoupledSystem.hpp):

  sum_v rho_ev dphi_v/dt = sum_v [div(D_ev grad phi_v) + c_ev phi_v] + s_e

with FiPy's ImplicitSourceTerm rule block by block (implicit where it adds to the
diagonal of block (e, v), explicit elsewhere) and D_ev of either sign.
"""

import numpy as _np
from fipy.terms.coupledBinaryTerm import _CoupledBinaryTerm

from .. import _kfvm
from .device_copies import DeviceCopies

from .meshes import Untranslatable
from .translate import (_KIND_OF, Value, _evaluate, _signature_of, diagonal_sign_of,
                        face_coefficient, implicit_sources, is_plain_cell_variable, leaves,
                        scaled, sum_values)


def is_coupled(term):
    return isinstance(term, _CoupledBinaryTerm)


def _is_zero(value):
    return value.is_constant and value.constant == 0


class _Unknown:
    """One unknown of the block system: a scalar CellVariable of FiPy's eq1 & eq2, or one
    component of the vector CellVariable of FiPy's vector form."""

    def __init__(self, var, component=None):
        self.var = var
        self.component = component
        self.name = var.name if component is None else "%s[%d]" % (var.name or "var",
                                                                 component)

    def values(self):
        value = _np.asarray(self.var.value, dtype=float)
        return value.reshape(-1) if self.component is None else value[self.component]

    def old_values(self):
        """FiPy's var.old (None without hasOld: then the transient term reads var)."""
        if getattr(self.var, "_old", None) is None:
            return None
        old = _np.asarray(self.var.old.value, dtype=float)
        return old.reshape(-1) if self.component is None else old[self.component]

    def constrained(self):
        """What conditions.constraints reads: the variable, or its component's view."""
        return self.var if self.component is None else _ComponentConstraints(self)


class _ComponentConstraints:
    """A component's face constraints, as conditions.constraints reads a scalar variable's."""

    class _Constraint:
        def __init__(self, constraint, component, elements):
            self.where = constraint.where
            value = _np.asarray(getattr(constraint.value, "value", constraint.value),
                                dtype=float)
            if value.ndim == 0:
                self.value = value
            elif value.shape[0] == elements:
                self.value = value[component]
            else:
                raise Untranslatable("a vector constraint of shape %s" % (value.shape,))

    def __init__(self, unknown):
        var = unknown.var
        face_grad = getattr(var, "_faceGrad", None)
        if face_grad is not None and face_grad.constraints:
            raise Untranslatable("a vector variable with gradient constraints")
        self._constraints = getattr(var, "_constraints", None)
        self._faceGrad = None
        elements = var.elementshape[0]
        self.faceConstraints = [self._Constraint(c, unknown.component, elements)
                                for c in getattr(var, "faceConstraints", [])]


def _new_parts(n):
    return {"transient": [[] for _ in range(n)], "diffusion": [[] for _ in range(n)],
            "implicit": [[] for _ in range(n)], "source": [], "signs": [None] * n}


def _kind_of(leaf, coupled):
    kind = _KIND_OF.get(type(leaf))
    if kind not in ("transient", "diffusion", "implicit", "source"):
        raise Untranslatable("kfvm's coupled systems do not take FiPy's %s yet"
                             % type(leaf).__name__)
    if kind == "diffusion" and leaf.order != 2:
        raise Untranslatable("a DiffusionTerm of order %d in a %s system"
                             % (leaf.order, "coupled" if coupled else "vector"))
    return kind


def _coupled_parts(term, grid):
    """FiPy's eq1 & eq2 & ...: (unknowns, parts per equation)."""
    variables = list(term._vars)
    equations = list(term._uncoupledTerms)
    n = len(variables)
    if n != len(equations):
        raise Untranslatable("it couples %d equations in %d variables" % (len(equations), n))
    for var in variables:
        if not is_plain_cell_variable(var) or var.rank != 0:
            raise Untranslatable("the variable %s is a %s of rank %s"
                                 % (var.name, type(var).__name__, getattr(var, "rank", "?")))
        if var.mesh is not variables[0].mesh:
            raise Untranslatable("its variables live on different meshes")
    cells = grid.kfvm.numberOfCells
    all_parts = []
    for e, equation in enumerate(equations):
        parts = _new_parts(n)
        parts["signs"] = [diagonal_sign_of(equation, var) for var in variables]
        for leaf in leaves(equation):
            kind = _kind_of(leaf, True)
            if leaf.var is None:
                raise Untranslatable("a term of equation %d names no variable" % e)
            matches = [v for v, var in enumerate(variables) if var is leaf.var]
            if not matches:
                raise Untranslatable("a term acts on %s, which is not solved for"
                                     % leaf.var.name)
            v = matches[0]
            if kind == "source":
                parts[kind].append((leaf, _evaluate(leaf.coeff, cells, "a source")))
            elif kind == "diffusion":
                parts[kind][v].append((leaf, face_coefficient(
                    leaf.nthCoeff, grid, "a DiffusionTerm's coefficient")))
            else:
                parts[kind][v].append((leaf, _evaluate(
                    leaf.coeff, cells, "a %s's coefficient" % type(leaf).__name__)))
        all_parts.append(parts)
    return [_Unknown(var) for var in variables], all_parts


def _blocks_of(coeff, shape, size, what):
    """A vector form's coefficient: one Value per entry of `shape` ((n, n) blocks or (n,)
    equations), each a number or one value per cell or face."""
    value = getattr(coeff, "value", coeff)
    try:
        array = _np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise Untranslatable("%s is a %s" % (what, type(coeff).__name__)) from None
    if array.shape == shape:
        return _np.vectorize(lambda x: Value(constant=float(x)), otypes=[object])(array)
    if array.shape == shape + (size,):
        blocks = _np.empty(shape, dtype=object)
        for index in _np.ndindex(*shape):
            blocks[index] = Value(array=array[index])
        return blocks
    raise Untranslatable("%s has shape %s (the vector form takes %s or %s)"
                         % (what, array.shape, shape, shape + (size,)))


def _vector_parts(term, var, grid):
    """FiPy's vector form (a CellVariable of elementshape (n,) and coefficients of shape
    (n, n), one block per entry): (unknowns, parts per equation)."""
    if var.rank != 1 or len(var.elementshape) != 1:
        raise Untranslatable("the variable is a CellVariable of shape %s" % (var.shape,))
    n = var.elementshape[0]
    cells = grid.kfvm.numberOfCells
    faces = grid.fipy_faces
    transient = term._getTransientGeomCoeff(var)
    diffusion = term._getDiffusionGeomCoeff(var)
    all_parts = [_new_parts(n) for _ in range(n)]
    for e in range(n):
        all_parts[e]["signs"] = [
            (lambda leaf, e=e, v=v: _np.broadcast_to(_np.asarray(
                leaf._getDiagonalSign(transient, diffusion)), (n, n))[e, v])
            for v in range(n)]
    for leaf in leaves(term):
        kind = _kind_of(leaf, False)
        if leaf.var is not None and leaf.var is not var:
            raise Untranslatable("a term acts on another variable (%s)" % leaf.var.name)
        if kind == "source":
            sources = _blocks_of(leaf.coeff, (n,), cells, "a source")
            for e in range(n):
                all_parts[e]["source"].append((leaf, sources[e]))
            continue
        coeff = leaf.nthCoeff if kind == "diffusion" else leaf.coeff
        blocks = _blocks_of(coeff, (n, n), faces if kind == "diffusion" else cells,
                            "a %s's coefficient" % type(leaf).__name__)
        for e in range(n):
            for v in range(n):
                all_parts[e][kind][v].append((leaf, blocks[e, v]))
    return [_Unknown(var, component) for component in range(n)], all_parts


class CoupledTranslation:
    """FiPy's coupled term (eq1 & eq2, or one equation on a vector variable) on kfvm's
    grid, evaluated now, in kfvm's form and numbering.

    unknowns: the variables (or components) in the system's order; blocks: {(kind, e,
    v): Value} for kind in 'rho' (cells), 'D' (faces), 'c' (cells, with forms[(e,
    v)]); sources: one Value per equation (cells); signature: what the compiled system
    depends on."""

    def __init__(self, term, grid, var=None):
        self.grid = grid
        self.unknowns, all_parts = (_coupled_parts(term, grid) if var is None
                                    else _vector_parts(term, var, grid))
        n = len(self.unknowns)
        if n > _kfvm.max_coupled_variables:  # (read here: the module loads on first use)
            raise Untranslatable("it couples %d variables (kfvm's CoupledSystem takes at "
                                 "most %d)" % (n, _kfvm.max_coupled_variables))
        cells = grid.kfvm.numberOfCells
        faces = grid.fipy_faces
        self.blocks = {}
        self.forms = {}
        self.sources = []
        self.sigmas = []
        self.has_transient = False
        for e, parts in enumerate(all_parts):
            sigma = self._sigma(parts, e)
            self.sigmas.append(sigma)
            source = scaled(sum_values([value for _, value in parts["source"]], cells), -sigma)
            explicit_total = None
            for v, unknown in enumerate(self.unknowns):
                rho = scaled(sum_values([x for _, x in parts["transient"][v]], cells), sigma)
                if not _is_zero(rho):
                    self.has_transient = True
                if not rho.is_constant:
                    rho = Value(array=grid.cells_to_kfvm(rho.array))
                D = scaled(sum_values([x for _, x in parts["diffusion"][v]], faces), -sigma)
                if not D.is_constant:
                    D = Value(array=grid.faces_to_kfvm(D.array))
                c, form, explicit = implicit_sources(
                    [entry for entry in parts["implicit"][v] if not _is_zero(entry[1])],
                    parts["signs"][v], sigma, unknown.values(), grid)
                if explicit is not None:
                    explicit_total = explicit if explicit_total is None \
                        else explicit_total + explicit
                for kind, value in (("rho", rho), ("D", D), ("c", c)):
                    if not _is_zero(value):
                        self.blocks[(kind, e, v)] = value
                if not _is_zero(c):
                    self.forms[(e, v)] = form
            if explicit_total is not None:
                base = _np.full(cells, source.constant) if source.is_constant \
                    else source.array
                source = Value(array=base + explicit_total)
            if not source.is_constant:
                source = Value(array=grid.cells_to_kfvm(source.array))
            self.sources.append(source)
        self.signature = (
            n, tuple(self.sigmas),
            tuple(sorted((key, _signature_of(value)) for key, value in self.blocks.items())),
            tuple(sorted(self.forms.items())),
            tuple(_signature_of(s) for s in self.sources))

    @staticmethod
    def _sigma(parts, e):
        """+1 or -1: the sign that makes equation e's transient coefficients >= 0."""
        signs = set()
        for entries in parts["transient"]:
            for _, value in entries:
                r = _np.asarray(value.constant if value.is_constant else value.array)
                if _np.all(r == 0):
                    continue
                if _np.all(r >= 0):
                    signs.add(1.0)
                elif _np.all(r <= 0):
                    signs.add(-1.0)
                else:
                    signs.add(0.0)
        if not signs:
            return 1.0
        if len(signs) > 1 or 0.0 in signs:
            raise Untranslatable("the TransientTerms of equation %d change sign" % e)
        return signs.pop()


class CompiledCoupled(DeviceCopies):
    """kfvm's CoupledSystem and CoupledStepper for one structure, with the device copies
    of its field coefficients and what was last moved there."""

    def __init__(self, translation, grid, solver_name, parameters, slots):
        super().__init__()
        module = grid.kfvm._module
        mesh = grid.kfvm._cpp
        n = len(translation.unknowns)
        self.fields = {}
        cpp = module.CoupledSystem(mesh, n)

        def coefficient(key, value, make):
            if value.is_constant:
                return value.constant
            field = make(mesh, "kfvm::fipy::%s_%d_%d" % key, 0.0)
            self.fields[key] = field
            return field

        for key, value in translation.blocks.items():
            kind, e, v = key
            if kind == "rho":
                cpp.transient(e, v, coefficient(key, value, module.CellField))
            elif kind == "D":
                cpp.diffusion(e, v, coefficient(key, value, module.FaceField))
            else:
                cpp.implicit_source(e, v, coefficient(key, value, module.CellField),
                                    translation.forms[(e, v)])
        for e, source in enumerate(translation.sources):
            if not _is_zero(source):
                cpp.source(e, coefficient(("s", e, 0), source, module.CellField))
        for v, (order, a, b, g) in enumerate(slots):
            if len(order):
                cpp.boundary_slots(v, order.tolist(), a.tolist(), b.tolist(), g.tolist())
        cpp.validate()
        self.cpp = cpp
        self.stepper = module.CoupledStepper(cpp, solver_name, parameters)
        self.phi = [module.CellField(mesh, "kfvm::fipy::phi%d" % v, 0.0) for v in range(n)]
        self.old = [module.CellField(mesh, "kfvm::fipy::old%d" % v, 0.0) for v in range(n)]

    def refresh(self, translation):
        for key, field in self.fields.items():
            kind, e, _ = key
            value = translation.sources[e] if kind == "s" else translation.blocks[key]
            self.upload(key, field, value.array)


def solve_coupled(compiled, translation, dt, keep=lambda report: True):
    """One FiPy solve (or sweep: the same, the system being linear in FiPy's form) of
    the coupled system: the unknowns' values and old values up, the answer back into
    FiPy's variables unless keep(report) is false (a solve to be done again). Returns
    kfvm's report."""
    grid = translation.grid
    previous = []
    for v, unknown in enumerate(translation.unknowns):
        compiled.upload(("phi", v), compiled.phi[v], grid.cells_to_kfvm(unknown.values()))
        old = unknown.old_values()
        if old is None:  # FiPy's transient term reads var itself
            previous.append(compiled.phi[v])
        else:
            compiled.upload(("old", v), compiled.old[v], grid.cells_to_kfvm(old))
            previous.append(compiled.old[v])
    if not translation.has_transient:
        report = compiled.stepper.solve_steady(compiled.phi)
    else:
        report = compiled.stepper.step_from(compiled.phi, previous, float(dt))
    if not keep(report):
        for v in range(len(translation.unknowns)):
            compiled.last.pop(("phi", v), None)  # the device copy changed
        return report
    answers = {}
    for v, unknown in enumerate(translation.unknowns):
        answer = grid.cells_from_kfvm(compiled.phi[v].copy_to_numpy())
        compiled.last[("phi", v)] = grid.cells_to_kfvm(answer).copy()
        answers.setdefault(id(unknown.var), (unknown.var, []))[1].append(answer)
    for var, values in answers.values():
        var.value = _np.stack(values).reshape(var.shape) if var.rank == 1 \
            else values[0].reshape(var.shape)
    return report
