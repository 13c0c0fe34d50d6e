"""FiPy's eq.solve() and eq.sweep() on kfvm: the translated equation compiled once per
structure into kfvm's C++ equation and stepper, its coefficient arrays, old values
and initial guess moved to the device only when they changed, the answer written back
into FiPy's variable."""

import time as _time
import warnings as _warnings
from collections import OrderedDict as _OrderedDict

import numpy as _np

from .. import _kfvm
from .coupled import CompiledCoupled, CoupledTranslation, is_coupled, solve_coupled
from .meshes import Untranslatable, mapped_grid
from .solvers import kfvm_solver_of
from .translate import Translation, leaves


class ConvergenceWarning(UserWarning):
    """A kfvm solve that stopped before its tolerance (FiPy warns too, and goes on)."""


def _boundary_faces(where, grid, what):
    """The FiPy faces a mask selects (None: all) and their kfvm boundary slots; a mask
    reaching an interior face is not translated."""
    faces = grid.fipy.numberOfFaces
    mask = _np.ones(faces, dtype=bool) if where is None else \
        _np.asarray(getattr(where, "value", where), dtype=bool)
    if mask.shape != (faces,):
        raise Untranslatable("%s's mask has shape %s" % (what, mask.shape))
    chosen = _np.flatnonzero(mask)
    slots = grid.boundary_slot_of_fipy_face[chosen]
    if _np.any(slots < 0):
        raise Untranslatable("%s on interior faces (kfvm constrains boundary faces)" % what)
    return chosen, slots


def _values_on(value, chosen, grid, what):
    """A FiPy value (a number, or one per face or per chosen face) on the chosen faces."""
    value = _np.asarray(getattr(value, "value", value), dtype=float)
    if value.ndim == 1 and value.shape[0] == grid.fipy.numberOfFaces:
        return value[chosen]
    if value.size == 1:
        return _np.full(len(chosen), float(value.reshape(-1)[0]))
    if value.shape != (len(chosen),):
        raise Untranslatable("%s of shape %s" % (what, value.shape))
    return value


def _constraints(var, grid):
    """FiPy's face constraints of var as kfvm Robin coefficients per boundary slot:
    values (a = 1, b = 0, g = value) and gradients (a = 0, b = 1, g = grad . n)."""
    if getattr(var, "_constraints", None):
        raise Untranslatable("the variable has cell constraints")
    n = grid.kfvm._cpp.num_boundary_faces
    a, b, g = _np.zeros(n), _np.ones(n), _np.zeros(n)
    kind = _np.zeros(n, dtype=_np.int8)  # 0 free, 1 value, 2 gradient
    faces = grid.fipy.numberOfFaces

    def selected(constraint):
        return _boundary_faces(constraint.where, grid, "a constraint")

    def values(v):
        return _np.asarray(getattr(v, "value", v), dtype=float)

    for constraint in getattr(var, "faceConstraints", []):
        chosen, slots = selected(constraint)
        value = _values_on(constraint.value, chosen, grid, "a value constraint")
        if _np.any(kind[slots] == 2):
            raise Untranslatable("a face with both a value and a gradient constraint")
        a[slots], b[slots], g[slots], kind[slots] = 1.0, 0.0, value, 1
    face_grad = getattr(var, "_faceGrad", None)
    for constraint in (face_grad.constraints if face_grad is not None else []):
        chosen, slots = selected(constraint)
        vector = values(constraint.value)
        dim = grid.dim
        if vector.ndim <= 1:
            vector = _np.broadcast_to(vector.reshape(-1, 1), (dim, 1)) if vector.size in (1, dim) \
                else None
        elif vector.ndim == 2 and vector.shape[0] in (1, dim):
            if vector.shape[1] == faces:
                vector = vector[:, chosen]
            elif vector.shape[1] not in (1, len(chosen)):
                vector = None
            else:
                vector = _np.broadcast_to(vector, (dim, vector.shape[1]))
        else:
            vector = None
        if vector is None:
            raise Untranslatable("a gradient constraint of shape %s"
                                 % (_np.shape(constraint.value),))
        normals = grid.kfvm_normals_in_fipy_order[:, chosen]
        q = _np.sum(vector * normals, axis=0) * _np.ones(len(chosen))
        if _np.any(kind[slots] == 1):
            raise Untranslatable("a face with both a value and a gradient constraint")
        a[slots], b[slots], g[slots], kind[slots] = 0.0, 1.0, q, 2
    order = _np.flatnonzero(kind)
    return order, a[order], b[order], g[order]


def _potential_conditions(boundary_conditions, translation, grid):
    """FiPy's old-style boundaryConditions= as conditions on the fourth-order term's
    potential (on second-order terms FiPy's NthOrderBoundaryCondition of order 2 or 3
    does nothing). With y = div(c2 grad phi) the inner term and kfvm's potential
    mu = -div(kappa grad phi) = -sign(c2) y (kappa = |c2|, D = sign(c2) sigma c1):
    - order 2, FiPy's FixedValue on the outer term: y = value, so mu = -sign(c2) value;
    - order 3, FiPy's FixedFlux on the outer term: outward flux c1 dy/dn = value, so
      D dmu/dn = -sigma value. FiPy applies that flux at the first solve only (the
      FixedFlux it derives is cached in the condition and never reset): so does this.
    Other conditions are not translated. Returns the slots' (order, a, b, g) and the
    FixedFlux conditions to mark applied once the solve succeeded."""
    empty = (_np.zeros(0, dtype=_np.int64), _np.zeros(0), _np.zeros(0), _np.zeros(0))
    applied_now = []
    if boundary_conditions is None:
        return empty, applied_now
    if not isinstance(boundary_conditions, (tuple, list)):
        boundary_conditions = (boundary_conditions,)
    if not boundary_conditions:
        return empty, applied_now
    slots, a, b, g = [], [], [], []
    for bc in boundary_conditions:
        kind = type(bc).__name__
        if kind != "NthOrderBoundaryCondition" or bc.order not in (2, 3):
            raise Untranslatable("it passes boundaryConditions= with a %s%s (kfvm takes "
                                 "NthOrderBoundaryCondition of order 2 or 3)"
                                 % (kind, " of order %s" % bc.order
                                    if hasattr(bc, "order") else ""))
        if translation.fourth is None:
            raise Untranslatable("it passes boundaryConditions= to an equation without a "
                                 "fourth-order DiffusionTerm")
        chosen, slot = _boundary_faces(bc.faces, grid, "a boundary condition")
        value = _values_on(bc.value, chosen, grid, "a boundary condition's value")
        D, _, inner_sign = translation.fourth
        slots.append(slot)
        if bc.order == 2:
            a.append(_np.ones(len(slot)))
            b.append(_np.zeros(len(slot)))
            g.append(-inner_sign * value)
            continue
        if D == 0:
            raise Untranslatable("a flux condition on a fourth-order term of zero mobility")
        derived = bc._getDerivative(2)  # FiPy's own FixedFlux, cached in bc
        applied = getattr(derived, "boundaryConditionApplied", False)
        applied_now.append(derived)
        a.append(_np.zeros(len(slot)))
        b.append(_np.ones(len(slot)))
        g.append(_np.zeros(len(slot)) if applied else -translation.sigma * value / D)
    slot = _np.concatenate(slots)
    if len(_np.unique(slot)) != len(slot):
        raise Untranslatable("two boundary conditions on one face")
    return (slot.astype(_np.int64), _np.concatenate(a), _np.concatenate(b),
            _np.concatenate(g)), applied_now


class _Compiled:
    """kfvm's equation and stepper for one structure, with the device copies of its
    coefficients and what was last moved there."""

    def __init__(self, translation, grid, solver_name, parameters, slots, potential_slots):
        module = grid.kfvm._module
        mesh = grid.kfvm._cpp
        self.grid = grid
        self.fields = {}
        self.last = {}
        cpp = module.Equation(mesh)
        t = translation

        def coefficient(name, value, make):
            if value.is_constant:
                return value.constant
            field = make(mesh, "kfvm::fipy::" + name, 0.0)
            self.fields[name] = field
            return field

        if t.has_transient:
            cpp.transient(coefficient("rho", t.rho, module.CellField))
        if not (t.D.is_constant and t.D.constant == 0):
            cpp.diffusion(coefficient("D", t.D, module.FaceField), t.D_sign)
        if t.has_explicit_diffusion:
            cpp.explicit_diffusion(coefficient("De", t.explicit_D, module.FaceField),
                                   t.explicit_boundary)
        if t.fourth is not None:
            D, kappa, _ = t.fourth
            cpp.higher_order_diffusion(D, kappa, _kfvm.Polynomial([0.0]))
        if not (t.implicit.is_constant and t.implicit.constant == 0):
            cpp.implicit_source(coefficient("c", t.implicit, module.CellField),
                                t.implicit_form)
        if not (t.source.is_constant and t.source.constant == 0):
            cpp.source(coefficient("s", t.source, module.CellField))
        if t.velocity is not None:
            if t.velocity.is_constant:
                cpp.convection(*t.velocity.constant, t.scheme)
            else:
                cpp.convection(coefficient("u", t.velocity, module.FaceField), t.scheme)
        if t.explicit_velocity is not None:
            if t.explicit_velocity.is_constant:
                cpp.explicit_convection(*t.explicit_velocity.constant, t.explicit_scheme,
                                        t.gradient_boundary)
            else:
                cpp.explicit_convection(
                    coefficient("ue", t.explicit_velocity, module.FaceField),
                    t.explicit_scheme, t.gradient_boundary)
        order, a, b, g = slots
        if len(order):
            cpp.boundary_slots(order.tolist(), a.tolist(), b.tolist(), g.tolist())
        if t.velocity is not None or t.explicit_velocity is not None:
            cpp.convection_through_slots(order.tolist())  # FiPy's: constrained faces only
        order, a, b, g = potential_slots
        if len(order):
            cpp.higher_order_boundary_slots(order.tolist(), a.tolist(), b.tolist(),
                                            g.tolist())
        cpp.validate()
        self.cpp = cpp
        self.stepper = module.ImplicitStepper(cpp, solver_name, parameters)
        self.phi = module.CellField(mesh, "kfvm::fipy::phi", 0.0)
        self.old = module.CellField(mesh, "kfvm::fipy::old", 0.0)
        self.bytes_moved = 0

    def upload(self, name, array):
        """Moves a coefficient (or phi, old) to the device when it differs from the last."""
        last = self.last.get(name)
        if last is not None and last.shape == array.shape and _np.array_equal(last, array):
            return False
        if name == "phi":
            target = self.phi
        elif name == "old":
            target = self.old
        else:
            target = self.fields[name]
        target.assign(array)
        self.last[name] = _np.array(array, copy=True)
        self.bytes_moved += array.nbytes
        return True

    def refresh(self, translation):
        t = translation
        for name, value in (("rho", t.rho), ("D", t.D), ("c", t.implicit),
                            ("s", t.source), ("u", t.velocity), ("De", t.explicit_D),
                            ("ue", t.explicit_velocity)):
            if name in self.fields:
                self.upload(name, value.array)


def describe(term, var):
    """An equation by its variable and its terms' kinds, signs folded (what the record
    is kept by: the same equation rebuilt every step is one entry)."""
    name = getattr(var, "name", "") or "var"
    try:
        parts = [type(leaf).__name__ for leaf in leaves(term)]
    except Exception:  # a FiPy term of a kind leaves() does not descend
        parts = [type(term).__name__]
    return "%s: %s" % (name, " + ".join(parts))


class Engine:
    """Compiled equations by structure (a bounded cache) and the record of what ran where."""

    capacity = 32

    def __init__(self):
        self.compiled = _OrderedDict()
        self.records = _OrderedDict()
        self.backend = None
        self.timings = {}

    def _lap(self, part, start):
        now = _time.perf_counter()
        self.timings[part] = self.timings.get(part, 0.0) + now - start
        return now

    def record(self, term, var, where, reason, seconds, compiled=False):
        key = describe(term, var)
        entry = self.records.get(key)
        if entry is None:
            entry = {"equation": key,
                     "where": where, "reason": reason, "calls": 0, "seconds": 0.0,
                     "compiles": 0}
            self.records[key] = entry
            first = True
        else:
            first = entry["where"] != where or entry["reason"] != reason
            entry["where"], entry["reason"] = where, reason
        entry["calls"] += 1
        entry["seconds"] += seconds
        entry["compiles"] += int(compiled)
        return first

    def _compiled_for(self, translation, var, solver_spec, slots, potential_slots):
        name, parameters, _ = solver_spec
        key = (id(var), id(translation.grid), translation.signature, name,
               tuple(sorted(parameters.items())),
               tuple(array.tobytes() for array in slots + potential_slots))
        entry = self.compiled.get(key)
        if entry is not None and entry[0] is var:
            self.compiled.move_to_end(key)
            return entry[1], False
        compiled = _Compiled(translation, translation.grid, name, parameters, slots,
                             potential_slots)
        self.compiled[key] = (var, compiled)
        while len(self.compiled) > self.capacity:
            self.compiled.popitem(last=False)
        return compiled, True

    def run(self, term, var, solver, dt, sweep, boundary_conditions=()):
        """Solves (or sweeps) term for var on kfvm. Returns (residual, compiled?) or
        raises Untranslatable (then FiPy solves it)."""
        if is_coupled(term):
            if var is not None:
                raise Untranslatable("a coupled equation is given a variable")
            return self._run_coupled(term, None, solver, dt, boundary_conditions)
        if var is None:
            var = term.var
        if var is None:
            raise Untranslatable("no variable was given")
        if type(var).__name__ == "CellVariable" and var.rank == 1:
            return self._run_coupled(term, var, solver, dt, boundary_conditions)
        if type(var).__name__ != "CellVariable" or var.rank != 0:
            raise Untranslatable("the variable is a %s of rank %s"
                                 % (type(var).__name__, getattr(var, "rank", "?")))
        start = _time.perf_counter()
        grid = mapped_grid(var.mesh, self.backend)
        translation = Translation(term, var, grid)
        if translation.has_transient and dt is None:
            raise Untranslatable("a TransientTerm without dt")
        if translation.explicit_velocity is not None and not translation.has_transient:
            raise Untranslatable("explicit convection without a TransientTerm (FiPy "
                                 "refuses it too)")
        kinds = set()
        if translation.velocity is not None or translation.explicit_velocity is not None:
            kinds.add("convection")
        if translation.fourth is not None or translation.D_sign == "either":
            kinds.add("indefinite")  # not symmetric positive definite: no CG
        if grid.dim == 3:
            kinds.add("3d")
        solver_spec = kfvm_solver_of(solver, kinds)
        slots = _constraints(var, grid)
        potential_slots, fluxes_applied = _potential_conditions(boundary_conditions,
                                                                translation, grid)
        start = self._lap("translate", start)
        compiled, fresh = self._compiled_for(translation, var, solver_spec, slots,
                                             potential_slots)
        start = self._lap("compile", start)
        compiled.refresh(translation)
        phi = _np.asarray(var.value, dtype=float).reshape(-1)
        compiled.upload("phi", grid.cells_to_kfvm(phi))
        has_old = getattr(var, "_old", None) is not None
        if has_old:
            compiled.upload("old", grid.cells_to_kfvm(
                _np.asarray(var.old.value, dtype=float).reshape(-1)))
        old = compiled.old if has_old else compiled.phi
        start = self._lap("transfer", start)
        if not translation.has_transient:
            if sweep:
                report = compiled.stepper.sweep(compiled.phi, compiled.phi, 0.0,
                                                "backward-euler")
            else:
                report = compiled.stepper.solve_steady(compiled.phi)
        elif sweep:
            report = compiled.stepper.sweep(compiled.phi, old, float(dt), "backward-euler")
        elif has_old:
            report = compiled.stepper.step_from(compiled.phi, compiled.old, float(dt),
                                                "backward-euler")
        else:
            report = compiled.stepper.step(compiled.phi, float(dt), "backward-euler")
        start = self._lap("solve", start)
        if not report.converged:
            _warnings.warn("kfvm.fipy: %s did not converge for '%s': %s"
                           % (report.solver, var.name, report.reason), ConvergenceWarning,
                           stacklevel=4)
        for condition in fluxes_applied:
            condition.boundaryConditionApplied = True  # as FiPy's first build sets it
        answer = grid.cells_from_kfvm(compiled.phi.copy_to_numpy())
        compiled.last["phi"] = grid.cells_to_kfvm(answer).copy()
        var.value = answer.reshape(var.shape)
        self._lap("transfer", start)
        return report.initial_residual, fresh


    def _run_coupled(self, term, var, solver, dt, boundary_conditions):
        """FiPy's eq1 & eq2 (var None) or an equation on a vector variable (var of rank
        1) on kfvm's CoupledSystem."""
        if boundary_conditions:
            raise Untranslatable("it passes boundaryConditions= to a coupled equation")
        start = _time.perf_counter()
        mesh = term._vars[0].mesh if var is None else var.mesh
        grid = mapped_grid(mesh, self.backend)
        translation = CoupledTranslation(term, grid, var)
        if translation.has_transient and dt is None:
            raise Untranslatable("a TransientTerm without dt")
        # A coupled block system is neither symmetric nor definite in general.
        kinds = {"coupled", "indefinite"} | ({"3d"} if grid.dim == 3 else set())
        name, parameters, _ = kfvm_solver_of(solver, kinds)
        slots = [_constraints(u.constrained(), grid) for u in translation.unknowns]
        start = self._lap("translate", start)
        unknowns = [(u.var, u.component) for u in translation.unknowns]
        key = (tuple((id(v), c) for v, c in unknowns), id(grid), translation.signature,
               name, tuple(sorted(parameters.items())),
               tuple(array.tobytes() for slot in slots for array in slot))
        entry = self.compiled.get(key)
        fresh = entry is None or any(a[0] is not b[0] for a, b in zip(entry[0], unknowns))
        if fresh:
            compiled = CompiledCoupled(translation, grid, name, parameters, slots)
            self.compiled[key] = (unknowns, compiled)  # holds the variables: ids stay theirs
            while len(self.compiled) > self.capacity:
                self.compiled.popitem(last=False)
        else:
            compiled = entry[1]
            self.compiled.move_to_end(key)
        start = self._lap("compile", start)
        compiled.refresh(translation)
        report = solve_coupled(compiled, translation, dt)
        self._lap("solve", start)
        if not report.converged:
            _warnings.warn("kfvm.fipy: %s did not converge for the coupled system of %s: %s"
                           % (report.solver,
                              ", ".join(u.name for u in translation.unknowns),
                              report.reason), ConvergenceWarning, stacklevel=4)
        return report.initial_residual, fresh


_engine = Engine()


def engine():
    return _engine


def timed_run(term, var, solver, dt, sweep, boundary_conditions=()):
    start = _time.perf_counter()
    residual, fresh = _engine.run(term, var, solver, dt, sweep, boundary_conditions)
    return residual, fresh, _time.perf_counter() - start

