"""FiPy's solvers on kfvm: solver classes that take the matrix FiPy assembled (solver
level), and the kfvm solver that stands for any FiPy solver object (equation level)."""

import os as _os

import numpy as _np
from fipy.solvers.scipy.scipySolver import ScipySolver as _ScipySolver

from .. import _kfvm
from ..mesh import _backend_module
from .meshes import Untranslatable

#: kfvm has no direct solver: FiPy's LU (which refines to round-off) is GMRES with
#: ILU(0) to this relative residual.
LU_TOLERANCE = 1e-10
#: The iterations allowed for FiPy's LU, whose own count is of refinement steps.
LU_ITERATIONS = 2000
#: A tighter tolerance asked of FiPy's LU goes down to this one: below it round-off
#: stalls a Krylov method (FiPy's tanh1D asks 1e-15, which GMRES reaches at ~2e-15).
LU_FLOOR = 1e-13


def _lu_preconditioner(method, kinds):
    if method != "gmres" or {"indefinite", "3d"} <= kinds:
        return "jacobi"
    return "ilu0"


def _lu_tolerance(tolerance):
    return min(max(float(tolerance), LU_FLOOR), LU_TOLERANCE)


#: kfvm's method for each of FiPy's solver classes, by class name (the same names in
#: every FiPy suite). Exact names: "LinearCGSolver" contains "CGS".
_METHODS = {"LinearCGSolver": "cg", "LinearPCGSolver": "cg", "LinearGMRESSolver": "gmres",
            "LinearBicgstabSolver": "bicgstab", "LinearCGSSolver": "bicgstab",
            "LinearLUSolver": "lu"}


def _method_of(solver):
    """kfvm's method for a FiPy solver object (None for one kfvm has no stand-in for)."""
    for cls in type(solver).__mro__:
        if cls.__name__ in _METHODS:
            return _METHODS[cls.__name__]
    return None


def _preconditioner_of(precon):
    if precon is None:
        return "none"
    name = type(precon).__name__
    if "Jacobi" in name:
        return "jacobi"
    if "ILU" in name:
        return "ilu0"
    raise Untranslatable("its preconditioner %s (kfvm has Jacobi and ILU(0))" % name)


def _parameters(method, tolerance, absolute, iterations, preconditioner, criterion="rhs"):
    parameters = {"tolerance": repr(float(tolerance)),
                  "absolute_tolerance": repr(float(absolute)),
                  "max_iterations": str(int(iterations)),
                  "preconditioner": preconditioner,
                  "criterion": criterion}
    if method == "gmres":
        parameters["restart"] = "50"
    return parameters


def kfvm_solver_of(solver, kinds):
    """(kfvm solver name, parameters, criterion) standing for a FiPy solver object at the
    equation level: the same method, tolerance (FiPy's default criterion, relative to
    the right-hand side; 'initial', relative to the initial residual; or 'unscaled'),
    iterations and preconditioner. FiPy's LU is GMRES to LU_TOLERANCE or tighter, by
    the right-hand side or the initial residual as its criterion says. None (FiPy's
    default, an LU) is CG, or GMRES with ILU(0) for convection, coupled systems, the
    fourth-order term or a negative diffusion coefficient ('indefinite' in kinds), to
    LU_TOLERANCE; in 3D
    ('3d') the last two take Jacobi (faster there: 0.19 against 0.29 s a step on FiPy's
    Cahn-Hilliard at 32^3 on one core, and ILU(0)'s triangular solves are slowest on
    GPUs), in 1D and 2D ILU(0) (Jacobi-GMRES does not reach 1e-10 in 2000 iterations
    on FiPy's tanh1D and input4thOrder1D)."""
    if solver is None:
        method = "gmres" if kinds & {"convection", "indefinite", "coupled"} else "cg"
        return method, _parameters(method, LU_TOLERANCE, 0.0, LU_ITERATIONS,
                                   _lu_preconditioner(method, kinds)), "default"
    method = _method_of(solver)
    if method is None:
        raise Untranslatable("its solver is a %s" % type(solver).__name__)
    criterion = getattr(solver, "criterion", "default")
    tolerance = float(solver.tolerance)
    iterations = int(solver.iterations)
    if method == "lu":
        if criterion not in ("default", "RHS", "initial"):
            raise Untranslatable("its solver is FiPy's LU with criterion '%s' (kfvm, which "
                                 "has no direct solver, stands in for an LU with the "
                                 "right-hand side or initial criterion)" % criterion)
        return "gmres", _parameters(
            "gmres", _lu_tolerance(tolerance), 0.0, LU_ITERATIONS,
            _lu_preconditioner("gmres", kinds),
            "initial" if criterion == "initial" else "rhs"), criterion
    kfvm_criterion = "rhs"
    if criterion in ("default", "RHS", "legacy"):
        relative, absolute = tolerance, 0.0
    elif criterion == "initial":
        relative, absolute, kfvm_criterion = tolerance, 0.0, "initial"
    elif criterion == "unscaled":
        relative, absolute = 0.0, tolerance
    else:
        raise Untranslatable("its solver's criterion '%s' (kfvm's equation level takes "
                             "'default', 'RHS', 'legacy', 'initial' and 'unscaled')"
                             % criterion)
    precon = _preconditioner_of(getattr(solver, "preconditioner", None))
    return method, _parameters(method, relative, absolute, iterations, precon,
                               kfvm_criterion), criterion


def _backend():
    return _os.environ.get("KFVM_FIPY_BACKEND") or None


class _KfvmSolver(_ScipySolver):
    """A FiPy solver whose solve runs on kfvm (the matrix FiPy assembled, moved to
    kfvm's device: its structure once, its values at every solve). Takes FiPy's
    tolerance, criterion ('default', 'RHS', 'legacy', 'unscaled', 'matrix',
    'initial'), iterations and precon (None, Jacobi or ILU)."""

    _method = None

    def __init__(self, tolerance="default", absolute_tolerance=0.0, criterion="default",
                 iterations="default", precon="default", backend=None):
        super().__init__(tolerance=tolerance, absolute_tolerance=absolute_tolerance,
                         criterion=criterion, iterations=iterations, precon=precon)
        self.backend = backend if backend is not None else _backend()
        self._system = None
        self._system_key = None
        self.last_report = None

    def _target(self, L, x, b):
        """The residual norm ||b - L x|| to reach by FiPy's criterion; None for the
        criteria relative to ||b||, which kfvm's solvers test themselves."""
        criterion = self.criterion
        if criterion in ("default", "RHS", "legacy"):
            return None
        if criterion == "unscaled":
            scale = 1.0
        elif criterion == "matrix":
            scale = abs(L).sum(axis=1).max()
        elif criterion == "initial":
            scale = _np.linalg.norm(L @ x - b)
        else:
            raise _kfvm.Error("kfvm.fipy: criterion '%s' is not offered (give 'default', "
                              "'RHS', 'legacy', 'unscaled', 'matrix' or 'initial')"
                              % criterion)
        return float(self.tolerance) * float(scale)

    def _solve_(self, L, x, b):
        L = L.tocsr()
        L.sum_duplicates()
        L.sort_indices()
        target = self._target(L, x, b)
        method = self._method
        iterations = self.iterations
        try:
            precon = _preconditioner_of(self.preconditioner)
        except Untranslatable as e:
            raise _kfvm.Error("kfvm.fipy: %s" % e) from None
        if method == "lu":
            method, iterations, precon = "gmres", LU_ITERATIONS, "ilu0"
        if target is None:
            tolerance = _lu_tolerance(self.tolerance) if self._method == "lu" \
                else float(self.tolerance)
            parameters = _parameters(method, tolerance, self.absolute_tolerance,
                                     iterations, precon)
        else:
            parameters = _parameters(method, 0.0, max(target, self.absolute_tolerance,
                                                      1e-300), iterations, precon)
        key = (method, tuple(sorted(parameters.items())))
        if self._system is None or self._system_key != key:
            self._system = _backend_module(self.backend).CsrSystem(method, parameters)
            self._system_key = key
        b = _np.asarray(b, dtype=float)
        data = L.data
        if method == "cg" and _np.all(L.diagonal() <= 0):
            # FiPy's steady diffusion matrix is negative definite: CG solves -L x = -b.
            data, b = -data, -b
        self._system.set_matrix(L.shape[0], L.indptr, L.indices, data)
        x = _np.array(x, dtype=float, copy=True)
        report = self._system.solve(b, x)
        self.last_report = report
        self._setConvergence(suite="scipy", code=0 if report.converged else 1,
                             actual_code=0 if report.converged else report.iterations,
                             iterations=report.iterations,
                             tolerance_scale=1.0,
                             residual=report.final_residual)
        self.convergence.warn()
        return x

    def _canSolveAsymmetric(self):
        return self._method != "cg"


def _solver_class(name, method, doc):
    return type(name, (_KfvmSolver,), {"_method": method, "__doc__": doc,
                                       "__module__": __name__})


LinearCGSolver = _solver_class("LinearCGSolver", "cg", "Conjugate gradients on kfvm.")
LinearPCGSolver = LinearCGSolver
LinearGMRESSolver = _solver_class("LinearGMRESSolver", "gmres",
                                  "GMRES (restart 50) on kfvm.")
LinearBicgstabSolver = _solver_class("LinearBicgstabSolver", "bicgstab",
                                     "BiCGStab on kfvm.")
LinearLUSolver = _solver_class(
    "LinearLUSolver", "lu",
    "FiPy's LU's place: kfvm has no direct solver (multigrid comes with kfvm's "
    "multigrid), so this is GMRES with ILU(0) to a relative residual of 1e-10, FiPy's "
    "legacy LU tolerance (or the tolerance given, when smaller).")
DefaultSolver = LinearLUSolver
DefaultAsymmetricSolver = LinearLUSolver
GeneralSolver = LinearLUSolver
