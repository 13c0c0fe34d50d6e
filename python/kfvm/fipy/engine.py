"""FiPy's eq.solve() and eq.sweep() on kfvm: the translated equation compiled once per
structure into kfvm's C++ equation and stepper, its coefficient arrays, old values
and initial guess moved to the device only when they changed, the answer written back
into FiPy's variable."""

import time as _time
import warnings as _warnings
from collections import OrderedDict as _OrderedDict

import numpy as _np

from .. import _kfvm
from .conditions import constraints as _constraints
from .conditions import nth_order_conditions, with_conditions
from .coupled import CompiledCoupled, CoupledTranslation, is_coupled, solve_coupled
from .device_copies import DeviceCopies
from .meshes import Untranslatable, mapped_grid
from ..placement import backend_for
from .solvers import (LU_SOLVES, _lu_parameters, asks_direct, kfvm_solver_of,
                      retries_with_direct)
from .translate import Translation, is_plain_cell_variable, leaves


def _direct_tolerances(parameters):
    """(relative, absolute) tolerance of a Krylov solve's parameters, for the direct
    solve that does it again."""
    return float(parameters["tolerance"]), float(parameters["absolute_tolerance"])


def _placement_why():
    from ..placement import choice
    return choice().get("why", "")


class ConvergenceWarning(UserWarning):
    """A kfvm solve that stopped before its tolerance (FiPy warns too, and goes on)."""


class _Compiled(DeviceCopies):
    """kfvm's equation and stepper for one structure, with the device copies of its
    coefficients and what was last moved there."""

    def __init__(self, translation, grid, solver_name, parameters, slots, potential_slots):
        super().__init__()
        module = grid.kfvm._module
        mesh = grid.kfvm._cpp
        self.grid = grid
        self.fields = {}
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
            if D.is_constant and kappa.is_constant:
                cpp.higher_order_diffusion(D.constant, kappa.constant,
                                           _kfvm.Polynomial([0.0]))
            else:  # FiPy's face values of both, refreshed at every call
                cpp.higher_order_diffusion(
                    coefficient("D4", D, module.FaceField),
                    coefficient("kappa4", kappa, module.FaceField), _kfvm.Polynomial([0.0]))
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

    def upload(self, name, array):
        """Moves a coefficient (or phi, old) to the device when it differs from the last."""
        target = {"phi": self.phi, "old": self.old}.get(name) or self.fields[name]
        return super().upload(name, target, array)

    def refresh(self, translation):
        t = translation
        fourth = t.fourth or (None, None, None)
        for name, value in (("rho", t.rho), ("D", t.D), ("c", t.implicit),
                            ("s", t.source), ("u", t.velocity), ("De", t.explicit_D),
                            ("ue", t.explicit_velocity), ("D4", fourth[0]),
                            ("kappa4", fourth[1])):
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
        self.last = {}  # the backend and solver of the last run, for its record
        self.retries = []

    def _lap(self, part, start):
        now = _time.perf_counter()
        self.timings[part] = self.timings.get(part, 0.0) + now - start
        return now

    def record(self, term, var, where, reason, seconds, compiled=False):
        """Counts a call of the equation: where it ran (and on kfvm, the backend, why
        that one, and the solver of its last solve)."""
        key = describe(term, var)
        entry = self.records.get(key)
        if entry is None:
            entry = {"equation": key,
                     "where": where, "reason": reason, "calls": 0, "seconds": 0.0,
                     "compiles": 0, "backend": "", "backend_why": "", "solver": "",
                     "retries": 0}
            self.records[key] = entry
            first = True
        else:
            first = entry["where"] != where or entry["reason"] != reason
            entry["where"], entry["reason"] = where, reason
        entry["calls"] += 1
        entry["seconds"] += seconds
        entry["compiles"] += int(compiled)
        if where == "kfvm":
            entry["backend"] = self.last.get("backend", "")
            entry["backend_why"] = self.last.get("why", "")
            entry["solver"] = self.last.get("solver", "")
            entry["retries"] += self.last.get("retries", 0)
        return first

    def note_retry(self, what, failed, report):
        """A solve done again by the direct solver (retries_with_direct): what, why, and
        whether the direct solve converged."""
        self.retries.append({"equation": what, "failed": failed.solver,
                             "reason": failed.reason, "direct": report.solver,
                             "converged": report.converged})
        self.last["retries"] = self.last.get("retries", 0) + 1

    def _cached(self, key, owners, make):
        """The compiled equation of key (made by make() when missing), and whether it was
        made now. The entry holds its owners (the variables): ids in the key stay theirs."""
        entry = self.compiled.get(key)
        if entry is not None and all(a is b for a, b in zip(entry[0], owners)):
            self.compiled.move_to_end(key)
            return entry[1], False
        compiled = make()
        self.compiled[key] = (tuple(owners), compiled)
        while len(self.compiled) > self.capacity:
            self.compiled.popitem(last=False)
        return compiled, True

    def _compiled_for(self, translation, var, solver_spec, slots, potential_slots):
        name, parameters, _ = solver_spec
        key = (id(var), id(translation.grid), translation.signature, name,
               tuple(sorted(parameters.items())),
               tuple(array.tobytes() for array in slots + potential_slots))
        return self._cached(key, (var,), lambda: _Compiled(
            translation, translation.grid, name, parameters, slots, potential_slots))

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
        if is_plain_cell_variable(var) and var.rank == 1:
            return self._run_coupled(term, var, solver, dt, boundary_conditions)
        if not is_plain_cell_variable(var) or var.rank != 0:
            raise Untranslatable("the variable is a %s of rank %s"
                                 % (type(var).__name__, getattr(var, "rank", "?")))
        start = _time.perf_counter()
        self.last = {}
        cells = int(var.mesh.numberOfCells)
        backend = backend_for(cells, asks_direct(solver, var.mesh.dim, cells), self.backend)
        grid = mapped_grid(var.mesh, backend)
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
        solver_spec = kfvm_solver_of(solver, kinds, cells)
        phi_slots, potential_slots, fluxes_applied = nth_order_conditions(
            boundary_conditions, translation, grid)
        slots = with_conditions(_constraints(var, grid), phi_slots)
        start = self._lap("translate", start)
        compiled, fresh = self._compiled_for(translation, var, solver_spec, slots,
                                             potential_slots)
        start = self._lap("compile", start)
        report, start = self._advance(compiled, translation, var, grid, dt, sweep, start)
        if retries_with_direct(solver_spec[2], report):
            failed = report
            compiled.last.pop("phi", None)  # the failed solve changed its device copy
            direct = ("lu", _lu_parameters(*_direct_tolerances(solver_spec[1]), LU_SOLVES,
                                            solver_spec[1].get("criterion", "rhs")), "lu")
            compiled, made = self._compiled_for(translation, var, direct, slots,
                                                potential_slots)
            fresh = fresh or made
            report, start = self._advance(compiled, translation, var, grid, dt, sweep,
                                          start)
            self.note_retry(describe(term, var), failed, report)
        self.last.update({"backend": backend, "why": _placement_why(),
                          "solver": report.solver})
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

    def _advance(self, compiled, translation, var, grid, dt, sweep, start):
        """Moves the coefficients, phi and its old values to compiled's device copies
        when they changed, and solves (or sweeps) once. Returns (report, lap start)."""
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
        return report, start

    def _run_coupled(self, term, var, solver, dt, boundary_conditions):
        """FiPy's eq1 & eq2 (var None) or an equation on a vector variable (var of rank
        1) on kfvm's CoupledSystem."""
        if boundary_conditions:
            raise Untranslatable("it passes boundaryConditions= to a coupled equation")
        start = _time.perf_counter()
        self.last = {}
        mesh = term._vars[0].mesh if var is None else var.mesh
        cells = int(mesh.numberOfCells)
        backend = backend_for(cells, asks_direct(solver, mesh.dim, cells), self.backend)
        grid = mapped_grid(mesh, backend)
        translation = CoupledTranslation(term, grid, var)
        if translation.has_transient and dt is None:
            raise Untranslatable("a TransientTerm without dt")
        # A coupled block system is neither symmetric nor definite in general.
        kinds = {"coupled", "indefinite"} | ({"3d"} if grid.dim == 3 else set())
        name, parameters, asked = kfvm_solver_of(solver, kinds, cells)
        slots = [_constraints(u.constrained(), grid) for u in translation.unknowns]
        start = self._lap("translate", start)
        owners = [u.var for u in translation.unknowns]

        def compiled_with(name, parameters):
            key = (tuple((id(u.var), u.component) for u in translation.unknowns), id(grid),
                   translation.signature, name, tuple(sorted(parameters.items())),
                   tuple(array.tobytes() for slot in slots for array in slot))
            return self._cached(key, owners, lambda: CompiledCoupled(
                translation, grid, name, parameters, slots))

        compiled, fresh = compiled_with(name, parameters)
        start = self._lap("compile", start)
        compiled.refresh(translation)
        report = solve_coupled(compiled, translation, dt,
                               keep=lambda r: not retries_with_direct(asked, r))
        if retries_with_direct(asked, report):
            failed = report
            compiled, made = compiled_with("lu", _lu_parameters(
                *_direct_tolerances(parameters), LU_SOLVES, parameters.get("criterion",
                                                                           "rhs")))
            fresh = fresh or made
            compiled.refresh(translation)
            report = solve_coupled(compiled, translation, dt)
            self.note_retry(", ".join(u.name for u in translation.unknowns) + " (coupled)",
                            failed, report)
        self.last.update({"backend": backend, "why": _placement_why(),
                          "solver": report.solver})
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

