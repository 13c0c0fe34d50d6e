"""Equations built from terms, compiled once into kfvm's C++ Equation and stepper, and
solved on the device."""

import numpy as _np

from . import _kfvm
from ._errors import ConvergenceError, Error
from .solvers import Solver, _solver_of
from .variables import CellVariable, FaceVariable

_EXPLICIT = {"forward-euler": "forward-euler", "fe": "forward-euler", "rk2": "rk2"}
_IMPLICIT = ("backward-euler", "be", "crank-nicolson", "cn")


def _lu_fallback(mesh):
    """A default Krylov method's fallback: the direct solver where the build has it (it
    is the default at any size for a mesh of no cells)."""
    return {"fallback": "lu"} if _kfvm.direct_solver_by_default(mesh.dim, 0) else {}


def _scaled(poly, scale):
    return _kfvm.Polynomial([scale * c for c in poly.coefficients])


def _plus_constant(poly, constant):
    c = list(poly.coefficients)
    c[0] += constant
    return _kfvm.Polynomial(c)


class _Coefficient:
    """The sum of scale * coefficient over the terms of one kind: a number, one field
    (used as it is when its scale is 1), a combination refreshed on the device before
    every solve, or a Polynomial."""

    def __init__(self, kind):
        self.kind = kind
        self.constant = 0.0
        self.fields = []  # (scale, _Variable)
        self.arrays = []  # (scale, ndarray)
        self.polynomial = None

    def add(self, scale, coeff):
        if isinstance(coeff, _kfvm.Polynomial):
            if self.polynomial is not None:
                raise Error("%s: one Polynomial per equation" % self.kind)
            self.polynomial = _scaled(coeff, scale)
        elif isinstance(coeff, (CellVariable, FaceVariable)):
            self.fields.append((scale, coeff))
        elif _np.ndim(coeff) == 0:
            try:
                value = float(coeff)
            except (TypeError, ValueError):
                raise Error("%s: coefficient %r is not a number, field or Polynomial"
                            % (self.kind, coeff)) from None
            if not _np.isfinite(value):
                raise Error("%s: coefficient %r is not finite" % (self.kind, value))
            self.constant += scale * value
        else:
            self.arrays.append((scale, _np.asarray(coeff, dtype=float)))

    @property
    def empty(self):
        return not (self.fields or self.arrays or self.polynomial is not None) and self.constant == 0

    def build(self, mesh, compiled, centring="cell"):
        """What the C++ Equation takes: a number, a Polynomial, or a (C++) field."""
        if self.polynomial is not None:
            if self.fields or self.arrays:
                raise Error("%s: a Polynomial cannot be added to fields" % self.kind)
            return _plus_constant(self.polynomial, self.constant)
        if not self.fields and not self.arrays:
            return self.constant
        kinds = {type(v) for _, v in self.fields}
        if len(kinds) > 1:
            raise Error("%s: cell and face coefficients cannot be added" % self.kind)
        face = kinds == {FaceVariable}
        for _, v in self.fields:
            if v.mesh is not mesh:
                raise Error("%s: coefficient '%s' belongs to another mesh"
                            % (self.kind, v.name))
        if len(self.fields) == 1 and not self.arrays and self.constant == 0 and self.fields[0][0] == 1.0:
            return self.fields[0][1]._field  # the variable itself: its changes are seen
        size = mesh.numberOfFaces if face else mesh.numberOfCells
        make = mesh._module.FaceField if face else mesh._module.CellField
        constant = self.constant
        parts = [(s, v._field) for s, v in self.fields]
        for s, array in self.arrays:
            if array.shape != (size,):
                raise Error("%s: a coefficient array needs %d values, got shape %s"
                            % (self.kind, size, array.shape))
            static = make(mesh._cpp, "kfvm::python::" + self.kind + "::array", 0.0)
            static.assign(array)
            compiled.keep.append(static)
            parts.append((s, static))
        target = make(mesh._cpp, "kfvm::python::" + self.kind, 0.0)
        refresh = lambda: target.linear_combination(constant, parts)  # noqa: E731
        refresh()
        if self.fields:  # arrays are static; fields may change between solves
            compiled.refreshers.append(refresh)
        return target

    def build_not_polynomial(self, mesh, compiled, refusal):
        """build(), for a term that takes no Polynomial (refusal says so)."""
        value = self.build(mesh, compiled)
        if isinstance(value, _kfvm.Polynomial):
            raise Error(refusal)
        return value


def _field_of(coefficient, mesh, compiled, face):
    """A coefficient as a C++ cell field (face: a face field): a number as that value
    everywhere."""
    value = coefficient.build(mesh, compiled)
    if isinstance(value, _kfvm.Polynomial):
        raise Error("%s: a Polynomial is not supported" % coefficient.kind)
    if isinstance(value, float):
        make = mesh._module.FaceField if face else mesh._module.CellField
        value = make(mesh._cpp, "kfvm::python::" + coefficient.kind, value)
        compiled.keep.append(value)
    elif any(isinstance(v, FaceVariable) for _, v in coefficient.fields) != face:
        raise Error("the fourth-order DiffusionTerm takes D and kappa both per cell "
                    "or both per face")
    return value


def _set_diffusion_tensor(cpp, mesh, tensor):
    """A rank-2 diffusion coefficient in FiPy's layout: (dim, dim) for one tensor, (dim,
    dim, cells) or (dim, dim, faces) for one per cell or per face."""
    dim = mesh.dim
    if tensor.shape == (dim, dim):
        cpp.diffusion_tensor(tensor.tolist())
        return
    cells, faces = mesh.numberOfCells, mesh.numberOfFaces
    if tensor.ndim != 3 or tensor.shape[:2] != (dim, dim) or tensor.shape[2] not in (cells, faces):
        raise Error("a diffusion tensor on a %dD mesh has shape (%d, %d), (%d, %d, %d "
                    "cells) or (%d, %d, %d faces), got %s"
                    % (dim, dim, dim, dim, dim, cells, dim, dim, faces, tensor.shape))
    if cells == faces:
        raise Error("this mesh has as many cells as faces (%d): a (%d, %d, %d) diffusion "
                    "tensor could be either" % (cells, dim, dim, cells))
    cpp.diffusion_tensor_field(tensor, "cell" if tensor.shape[2] == cells else "face")


class _Compiled:
    def __init__(self):
        self.refreshers = []
        self.keep = []
        self.cpp = None
        self.stepper = None
        self.explicit = None

    def refresh(self):
        for refresh in self.refreshers:
            refresh()


def _integrate_polynomial(poly, divisor):
    c = poly.coefficients
    if len(c) >= 8:
        raise Error("a D(phi) of degree %d beside the fourth-order term: its "
                    "integral needs more than 8 coefficients" % (len(c) - 1))
    return [0.0] + [ck / (k + 1) / divisor for k, ck in enumerate(c)]


class Equation:
    """An equation of terms (left side minus right side = 0), solved for one
    CellVariable. Built by ``==`` from terms; compiled on the first solve into kfvm's
    C++ Equation and stepper, which later solves reuse (no allocation, no copy between
    host and device) until the variable's constraints or the solver change."""

    __hash__ = object.__hash__

    def __init__(self, parts):
        self.parts = parts
        self._compiled = None
        self._key = None
        #: The report of the last solve or sweep.
        self.last_report = None

    def __and__(self, other):
        return CoupledEquation([self]) & other

    # -- which variable ------------------------------------------------------------------
    def _variable(self, var):
        named = {id(t.var): t.var for _, t in self.parts if t.var is not None}
        if var is None:
            if len(named) != 1:
                raise Error("solve: give var= (the terms name %d variables)" % len(named))
            var = next(iter(named.values()))
        if not isinstance(var, CellVariable):
            raise Error("solve: var must be a kfvm.CellVariable, got %r" % (var,))
        for _, t in self.parts:
            if t.var is not None and t.var is not var:
                raise Error("a term acts on '%s', not on '%s': couple the equations "
                            "with & to solve for several variables" % (t.var.name, var.name))
        return var

    def _oriented_parts(self):
        """The parts, multiplied by -1 where a steady equation is written with its
        diffusion on the left (FiPy's DiffusionTerm() + ConvectionTerm() == 0): a steady
        equation is the same either way, and kfvm's form has D >= 0."""
        if any(t.kind == "transient" for _, t in self.parts):
            return self.parts
        second = [s for s, t in self.parts if t.kind == "diffusion"]
        fourth = [s for s, t in self.parts if t.kind == "diffusion4"]
        if (second and all(s > 0 for s in second)) or (fourth and all(s < 0 for s in fourth)):
            return [(-s, t) for s, t in self.parts]
        return self.parts

    def _default_solver(self, mesh):
        # The fourth-order term: the direct solver where it is kfvm's default
        # (_kfvm.direct_solver_by_default), else GMRES with Jacobi and a long restart
        # (ILU(0) stalls on its matrix, measured on Cahn-Hilliard 2D), falling back to the
        # direct solver where it does not converge. Convection: GMRES with ILU(0).
        kinds = {t.kind for _, t in self.parts}
        if "diffusion4" in kinds:
            if _kfvm.direct_solver_by_default(mesh.dim, mesh.numberOfCells):
                return Solver("lu")
            return Solver("gmres", preconditioner="jacobi", restart=50, max_iterations=20000,
                          **_lu_fallback(mesh))
        if "convection" in kinds:
            return Solver("gmres", preconditioner="ilu0")
        return Solver("cg")

    # -- compile -------------------------------------------------------------------------
    def _compile(self, var, solver):
        mesh = var.mesh
        module = mesh._module
        compiled = _Compiled()
        coefficients = {k: _Coefficient(k) for k in
                        ("transient", "diffusion", "implicit", "source")}
        fourth = None
        convection = None
        correction = None
        tensor = None  # a rank-2 diffusion coefficient
        for scale, term in self._oriented_parts():
            if term.kind == "transient":
                coefficients["transient"].add(scale, term.coeff)
            elif term.kind == "diffusion" and _np.ndim(term.coeff) in (2, 3) and not isinstance(
                    term.coeff, (CellVariable, FaceVariable)):
                gamma = -scale * _np.asarray(term.coeff, dtype=float)
                if tensor is not None and tensor.ndim != gamma.ndim:  # one is per cell or face
                    tensor, gamma = _np.atleast_3d(tensor), _np.atleast_3d(gamma)
                tensor = gamma if tensor is None else tensor + gamma
            elif term.kind == "diffusion":
                coefficients["diffusion"].add(-scale, term.coeff)
                correction = getattr(term, "correction", None) or correction
            elif term.kind == "implicit":
                coefficients["implicit"].add(-scale, term.coeff)
            elif term.kind == "source":
                coefficients["source"].add(-scale, term.coeff)
            elif term.kind == "diffusion4":
                if fourth is not None:
                    raise Error("one fourth-order DiffusionTerm per equation")
                D, kappa = term.coeff
                if _np.ndim(D) == 0 and _np.ndim(kappa) == 0 and not isinstance(
                        D, (CellVariable, FaceVariable, _kfvm.Polynomial)) and not isinstance(
                        kappa, (CellVariable, FaceVariable, _kfvm.Polynomial)):
                    try:
                        D, kappa = scale * float(D), float(kappa)
                    except (TypeError, ValueError):
                        raise Error("the fourth-order DiffusionTerm takes numbers or cell "
                                    "fields (D, kappa)") from None
                    if not (D > 0 and kappa > 0 and _np.isfinite(D * kappa)):
                        raise Error("the fourth-order term must be - DiffusionTerm((D, "
                                    "kappa)) on the right with D, kappa > 0 (well "
                                    "posed); got D = %g, kappa = %g" % (-D, kappa))
                    fourth = (D, kappa)
                else:  # cell fields (or arrays): checked >= 0 per cell by kfvm
                    if scale < 0:
                        raise Error("the fourth-order term must be - DiffusionTerm((D, "
                                    "kappa)) on the right (well posed)")
                    fields = []
                    for name, factor, value in (("fourth-order D", scale, D),
                                                ("fourth-order kappa", 1.0, kappa)):
                        part = _Coefficient(name)
                        part.add(factor, value)
                        fields.append(part)
                    fourth = tuple(fields)
            elif term.kind == "convection":
                if convection is not None:
                    raise Error("one ConvectionTerm per equation")
                convection = (scale, term)
            else:
                raise Error("unknown term %r" % (term,))

        cpp = module.Equation(mesh._cpp)
        rho = coefficients["transient"]
        if not rho.empty:
            cpp.transient(rho.build_not_polynomial(
                mesh, compiled, "TransientTerm: a Polynomial coefficient is not supported"))
        D = coefficients["diffusion"]
        if fourth is not None and isinstance(fourth[0], _Coefficient):
            if not D.empty:
                raise Error("beside a fourth-order term with field coefficients, no "
                            "second-order DiffusionTerm (kfvm folds one into the term "
                            "as D g'(phi), with D a number)")
            face = any(isinstance(v, FaceVariable) for part in fourth for _, v in part.fields)
            D4, kappa4 = (_field_of(part, mesh, compiled, face) for part in fourth)
            cpp.higher_order_diffusion(D4, kappa4, _kfvm.Polynomial([0.0]))
        elif fourth is not None:
            law = [0.0]
            if D.fields or D.arrays:
                raise Error("beside the fourth-order term a second-order DiffusionTerm "
                            "takes a number or a Polynomial, not a field")
            if D.polynomial is not None or D.constant != 0:
                poly = _plus_constant(D.polynomial or _kfvm.Polynomial([0.0]), D.constant)
                law = _integrate_polynomial(poly, fourth[0])
            cpp.higher_order_diffusion(fourth[0], fourth[1], _kfvm.Polynomial(law))
        elif not D.empty:
            cpp.diffusion(D.build(mesh, compiled))
        if tensor is not None:
            if not D.empty or fourth is not None:
                raise Error("a tensor DiffusionTerm takes the equation's whole "
                            "second-order diffusion (no other DiffusionTerm beside it)")
            _set_diffusion_tensor(cpp, mesh, tensor)
        if correction is not None and not mesh._cpp.has_grid_layout:
            cpp.diffusion_correction(correction)
        c = coefficients["implicit"]
        if not c.empty:
            cpp.implicit_source(c.build_not_polynomial(
                mesh, compiled, "ImplicitSourceTerm: give a Polynomial as a source instead"))
        s = coefficients["source"]
        if not s.empty:
            cpp.source(s.build(mesh, compiled))
        if convection is not None:
            self._add_convection(cpp, mesh, compiled, *convection)
        slots, a, b, g = var._robin_slots()
        if slots:
            cpp.boundary_slots(slots, a, b, g)
        compiled.cpp = cpp
        compiled.solver = solver
        return compiled

    def _add_convection(self, cpp, mesh, compiled, scale, term):
        u = term.coeff
        if isinstance(u, FaceVariable):
            if u.mesh is not mesh:
                raise Error("ConvectionTerm: the velocity belongs to another mesh")
            field = u._field
            if scale != 1.0:
                field = mesh._module.FaceField(mesh._cpp, "kfvm::python::velocity", 0.0)
                refresh = lambda: field.linear_combination(0.0, [(scale, u._field)])  # noqa: E731
                refresh()
                compiled.refreshers.append(refresh)
            cpp.convection(field, term.scheme)
            return
        array = _np.asarray(u, dtype=float)
        if array.ndim == 1 and array.size <= 3:
            vector = _np.zeros(3)
            if array.size > mesh.dim and _np.any(array[mesh.dim:] != 0):
                raise Error("ConvectionTerm: velocity %s has more components than the "
                            "mesh's %d dimensions" % (array, mesh.dim))
            vector[:min(array.size, 3)] = array[:3]
            cpp.convection(*(scale * vector), term.scheme)
            return
        if array.shape == (mesh.dim, mesh.numberOfFaces):
            normal = scale * _np.sum(array * mesh.faceNormals, axis=0)
            field = mesh._module.FaceField(mesh._cpp, "kfvm::python::velocity", 0.0)
            field.assign(normal)
            compiled.keep.append(field)
            cpp.convection(field, term.scheme)
            return
        raise Error("ConvectionTerm: velocity must be a vector of up to %d numbers, a "
                    "FaceVariable of normal velocities or an array of shape (%d, %d); "
                    "got shape %s" % (mesh.dim, mesh.dim, mesh.numberOfFaces, array.shape))

    def _prepare(self, var, solver, explicit, sweeps):
        var = self._variable(var)
        solver = _solver_of(solver, self._default_solver(var.mesh))
        key = (id(var), var._constraint_version, solver._key(), explicit, sweeps)
        if self._key != key:
            self._compiled = None
            compiled = self._compile(var, solver)
            if explicit:
                compiled.explicit = var.mesh._module.ExplicitStepper(compiled.cpp)
            else:
                compiled.stepper = var.mesh._module.ImplicitStepper(
                    compiled.cpp, solver.name, solver.parameters)
                compiled.stepper.matrix_free = solver.matrix_free
                if sweeps is not None:
                    compiled.stepper.set_sweeps(*sweeps)
            self._compiled, self._key = compiled, key
        self._compiled.refresh()
        return var, self._compiled

    # -- solving ------------------------------------------------------------------------
    def solve(self, var=None, dt=None, solver=None, scheme="backward-euler",
              sweeps=None, sweep_tolerance=None, relaxation=1.0, force=False, check=True):
        """Solves for var: a time step of dt (from var.old when var has old values), or
        the steady equation when dt is None. Nonlinear equations (TVD convection, D(phi),
        S(phi), the fourth-order term's g) are swept to sweep_tolerance (at most sweeps
        sweeps; defaults 50 and 1e-8), under-relaxed by relaxation.

        scheme: "backward-euler" / "be", "crank-nicolson" / "cn", or the explicit
        "forward-euler" / "fe" and "rk2" (dt checked against the stable step unless
        force). Returns the kfvm.StepReport; one that did not converge raises
        kfvm.ConvergenceError (with .report) unless check=False.
        """
        scheme = str(scheme)
        explicit = _EXPLICIT.get(scheme)
        if explicit is None and scheme not in _IMPLICIT:
            raise Error("unknown time scheme '%s' (known: %s)"
                        % (scheme, ", ".join(_IMPLICIT + tuple(_EXPLICIT))))
        sweep_settings = None
        if sweeps is not None or sweep_tolerance is not None or relaxation != 1.0:
            sweep_settings = (int(50 if sweeps is None else sweeps),
                              float(1e-8 if sweep_tolerance is None else sweep_tolerance),
                              float(relaxation))
        var, compiled = self._prepare(var, solver, explicit, sweep_settings)
        if explicit:
            if dt is None:
                raise Error("an explicit scheme needs dt")
            if var._old is not None:
                var._field.copy_from(var._old)
            compiled.explicit.step(var._field, float(dt), explicit, bool(force))
            report = _kfvm.StepReport()
            report.solver, report.converged, report.reason = explicit, True, "explicit step"
        elif dt is None:
            report = compiled.stepper.solve_steady(var._field)
        elif var._old is not None:
            report = compiled.stepper.step_from(var._field, var._old, float(dt), scheme)
        else:
            report = compiled.stepper.step(var._field, float(dt), scheme)
        self.last_report = report
        if check and not report.converged:
            raise ConvergenceError(report)
        return report

    def sweep(self, var=None, dt=None, solver=None, scheme="backward-euler", check=True):
        """One sweep, as FiPy's: the equation evaluated at var's current values, one linear
        solve. Returns the relative residual ||b - A phi|| / ||b|| before the solve (the
        whole report is last_report). dt None: a steady sweep."""
        if _EXPLICIT.get(str(scheme)):
            raise Error("sweep() is implicit; use solve() for explicit schemes")
        var, compiled = self._prepare(var, solver, None, None)
        old = var._old if var._old is not None else var._field
        report = compiled.stepper.sweep(var._field, old, 0.0 if dt is None else float(dt),
                                        str(scheme))
        self.last_report = report
        if check and not report.converged:
            raise ConvergenceError(report)
        return report.sweep_residuals[0]

    def compile(self, var=None, solver=None, scheme="backward-euler"):
        """Builds kfvm's C++ equation and stepper for var now (the first solve does it
        otherwise): the setup a time loop should not count."""
        self._prepare(var, solver, _EXPLICIT.get(str(scheme)), None)
        return self

    def stableTimeStep(self, var=None):
        """The largest stable explicit dt for the current coefficients."""
        var, compiled = self._prepare(var, None, "forward-euler", None)
        return compiled.explicit.stable_time_step()

    def __repr__(self):
        return "Equation(%s == 0)" % " + ".join("%g*%r" % (s, t) for s, t in self.parts)


def _check_coupled_centring(term):
    """A coupled system's DiffusionTerm takes a number or face values (FaceVariable);
    its other terms a number or cell values (CellVariable or an array)."""
    coeff = term.coeff
    if term.kind == "diffusion":
        if isinstance(coeff, CellVariable) or (
                not isinstance(coeff, FaceVariable) and _np.ndim(coeff) != 0):
            raise Error("a coupled system's DiffusionTerm takes a number or a "
                        "FaceVariable (e.g. var.arithmeticFaceValue); %r is not"
                        % (term,))
    elif isinstance(coeff, FaceVariable):
        raise Error("a coupled system's %s takes a number or cell values; %r is a "
                    "FaceVariable" % (term.kind, term))


class CoupledEquation:
    """Several equations solved together as one block system (FiPy's eq1 & eq2). Every
    term names its variable (var=); coefficients are numbers or fields (CellVariables,
    FaceVariables for DiffusionTerm, arrays: any sign but a TransientTerm's >= 0), sources
    numbers, fields or Polynomials of their variable; up to 4 variables."""

    def __init__(self, equations):
        self.equations = list(equations)
        self._compiled = None
        self._key = None
        self.last_report = None

    def __and__(self, other):
        if isinstance(other, CoupledEquation):
            return CoupledEquation(self.equations + other.equations)
        if isinstance(other, Equation):
            return CoupledEquation(self.equations + [other])
        raise Error("& couples kfvm equations, got %r" % (other,))

    def _variables(self):
        variables = []
        for eq in self.equations:
            for _, t in eq.parts:
                if t.var is None and t.kind == "source" and \
                        not isinstance(t.coeff, _kfvm.Polynomial):
                    continue  # a number or field source belongs to its equation
                if t.var is None:
                    raise Error("in a coupled system every term names its variable "
                                "(var=); %r does not" % (t,))
                if not any(v is t.var for v in variables):
                    variables.append(t.var)
        if len(variables) != len(self.equations):
            raise Error("a coupled system needs one equation per variable: %d equations, "
                        "%d variables (%s)" % (len(self.equations), len(variables),
                                                     ", ".join(v.name for v in variables)))
        mesh = variables[0].mesh
        for v in variables:
            if v.mesh is not mesh:
                raise Error("the variables of a coupled system share one mesh")
        return variables

    def _compile(self, variables, solver):
        mesh = variables[0].mesh
        cpp = mesh._module.CoupledSystem(mesh._cpp, len(variables))
        index = lambda var: next(i for i, v in enumerate(variables) if v is var)  # noqa: E731
        compiled = _Compiled()
        methods = {"transient": "transient", "diffusion": "diffusion",
                   "implicit": "implicit_source"}
        for e, eq in enumerate(self.equations):
            polys = {}
            blocks = {}
            source = _Coefficient("source of equation %d" % e)
            for scale, t in eq.parts:
                v = None if t.var is None else index(t.var)
                if t.kind == "source":
                    if isinstance(t.coeff, _kfvm.Polynomial):
                        if v in polys:
                            raise Error("one Polynomial source per variable and equation")
                        polys[v] = _scaled(t.coeff, -scale)
                    else:
                        _check_coupled_centring(t)
                        source.add(-scale, t.coeff)
                    continue
                if t.kind not in methods:
                    raise Error("a coupled system takes TransientTerm, DiffusionTerm, "
                                "ImplicitSourceTerm and sources; not %r" % (t,))
                if isinstance(t.coeff, _kfvm.Polynomial):
                    raise Error("a coupled system's coefficients are numbers or "
                                "fields; %r is not" % (t,))
                _check_coupled_centring(t)
                key = (t.kind, v)
                if key not in blocks:
                    blocks[key] = _Coefficient("%s of equation %d, variable %d" % (t.kind, e, v))
                blocks[key].add(scale if t.kind == "transient" else -scale, t.coeff)
            for (kind, v), coefficient in blocks.items():
                if not coefficient.empty:
                    getattr(cpp, methods[kind])(e, v, coefficient.build(mesh, compiled))
            for v, poly in polys.items():
                cpp.source(e, v, poly)
            if not source.empty:
                cpp.source(e, source.build(mesh, compiled))
        for v, var in enumerate(variables):
            slots, a, b, g = var._robin_slots()
            if slots:
                cpp.boundary_slots(v, slots, a, b, g)
        cpp.validate()
        compiled.cpp = cpp
        compiled.stepper = mesh._module.CoupledStepper(cpp, solver.name, solver.parameters)
        return compiled

    def solve(self, dt=None, solver=None, sweeps=None, sweep_tolerance=None, check=True,
              scheme="backward-euler"):
        """A step of dt for every variable (or the steady system when dt is None), with
        Newton sweeps for Polynomial sources. scheme: "backward-euler" / "be" or
        "crank-nicolson" / "cn" (equations without a TransientTerm are constraints and
        hold at the new values). Returns the StepReport; raises kfvm.ConvergenceError when
        it did not converge (unless check=False)."""
        scheme = str(scheme)
        if scheme not in _IMPLICIT:
            raise Error("unknown time scheme '%s' for a coupled system (known: %s)"
                        % (scheme, ", ".join(_IMPLICIT)))
        variables = self._variables()
        mesh = variables[0].mesh
        # Coupled systems: the direct solver where it is kfvm's default, else GMRES with
        # ILU(0), falling back to the direct solver where it does not converge.
        solver = _solver_of(solver, Solver("lu") if _kfvm.direct_solver_by_default(
            mesh.dim, mesh.numberOfCells) else Solver("gmres", preconditioner="ilu0",
                                                      **_lu_fallback(mesh)))
        key = (tuple(id(v) for v in variables), tuple(v._constraint_version for v in variables),
               solver._key(), sweeps, sweep_tolerance)
        if self._key != key:
            self._compiled = None
            self._compiled = self._compile(variables, solver)
            if sweeps is not None or sweep_tolerance is not None:
                self._compiled.stepper.set_sweeps(int(50 if sweeps is None else sweeps),
                                                  float(1e-10 if sweep_tolerance is None
                                                        else sweep_tolerance))
            self._key = key
        self._compiled.refresh()
        fields = [v._field for v in variables]
        if dt is None:
            report = self._compiled.stepper.solve_steady(fields)
        else:
            report = self._compiled.stepper.step(fields, float(dt), scheme)
        self.last_report = report
        if check and not report.converged:
            raise ConvergenceError(report)
        return report
