"""FiPy's solvers on kfvm: solver classes that take the matrix FiPy assembled (solver
level), and the kfvm solver that stands for any FiPy solver object (equation level)."""

import os as _os

import numpy as _np
from fipy.solvers.scipy.scipySolver import ScipySolver as _ScipySolver

from .. import _extension
from .._errors import Error
from ..mesh import _backend_module
from ..placement import backend_for
from .meshes import Untranslatable

#: FiPy's LU refines its answer at most this many times (its own limit).
LU_SOLVES = 10
#: Where a Krylov method stands in for FiPy's default solver (an LU), it solves to this
#: relative residual, far below any tolerance a script sweeps to, with this many
#: iterations; a solve that misses it is done again by the direct solver.
STAND_IN_TOLERANCE = 1e-10
STAND_IN_ITERATIONS = 2000


def _stand_in_preconditioner(method, kinds):
    if method != "gmres" or {"indefinite", "3d"} <= kinds:
        return "jacobi"
    return "ilu0"


def _lu_parameters(tolerance, absolute, iterations, criterion):
    """kfvm's "lu" for FiPy's LU: its tolerance by its criterion, and its refinements."""
    return {"tolerance": repr(float(tolerance)),
            "absolute_tolerance": repr(float(absolute)),
            "max_iterations": str(max(1, min(int(iterations), LU_SOLVES))),
            "preconditioner": "none",
            "criterion": criterion}


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


def _criterion_of(criterion, tolerance, what):
    """(relative tolerance, absolute tolerance, kfvm criterion) for FiPy's criterion
    name at the equation level, where kfvm assembles the matrix."""
    if criterion in ("default", "RHS", "legacy"):
        return tolerance, 0.0, "rhs"
    if criterion == "initial":
        return tolerance, 0.0, "initial"
    if criterion == "unscaled":
        return 0.0, tolerance, "rhs"
    raise Untranslatable("its %s's criterion '%s' (kfvm's equation level takes 'default', "
                         "'RHS', 'legacy', 'initial' and 'unscaled')" % (what, criterion))


def asks_direct(solver, dim, cells):
    """Whether kfvm solves with the direct solver for this FiPy solver object: FiPy's LU
    always; None (FiPy's default, its LU) where the direct solver is kfvm's default
    (_kfvm.direct_solver_by_default: this build has it, and the mesh is small enough
    for its fill)."""
    if solver is None:  # (asked before placement: it must not load a module)
        return _extension.direct_solver_by_default(dim, cells)
    return _method_of(solver) == "lu"


def default_solver(kinds, cells):
    """(name, parameters) of kfvm's stand-in for FiPy's default solver (its LU, with
    FiPy's default tolerance): the direct solver (asks_direct), or, on larger meshes, CG
    (GMRES for convection, coupled systems, the fourth-order term or a negative
    diffusion coefficient: 'indefinite' in kinds) to STAND_IN_TOLERANCE, which
    Engine.run checks and hands to the direct solver when missed."""
    if not asks_direct(None, 3 if "3d" in kinds else 2, cells):
        method = "gmres" if kinds & {"convection", "indefinite", "coupled"} else "cg"
        return method, _parameters(method, STAND_IN_TOLERANCE, 0.0, STAND_IN_ITERATIONS,
                                   _stand_in_preconditioner(method, kinds))
    return "lu", _lu_parameters(1e-5, 0.0, LU_SOLVES, "rhs")


def kfvm_solver_of(solver, kinds, cells):
    """(kfvm solver name, parameters, what was asked) standing for a FiPy solver object
    at the equation level: the same method, tolerance (by FiPy's criterion: the default,
    relative to the right-hand side; 'initial', relative to the initial residual; or
    'unscaled'), iterations and preconditioner. FiPy's LU is kfvm's direct solver with
    FiPy's tolerance and at most LU_SOLVES solves; None (FiPy's default, an LU) is
    default_solver(). What was asked: 'lu', 'default' or the Krylov method's name."""
    if solver is None:
        name, parameters = default_solver(kinds, cells)
        return name, parameters, "default"
    method = _method_of(solver)
    if method is None:
        raise Untranslatable("its solver is a %s" % type(solver).__name__)
    relative, absolute, criterion = _criterion_of(getattr(solver, "criterion", "default"),
                                                  float(solver.tolerance), "solver")
    iterations = int(solver.iterations)
    if method == "lu":
        return "lu", _lu_parameters(relative, absolute, iterations, criterion), "lu"
    precon = _preconditioner_of(getattr(solver, "preconditioner", None))
    return method, _parameters(method, relative, absolute, iterations, precon,
                               criterion), method


def retries_with_direct(asked, report):
    """Whether a solve that did not converge is done again by the direct solver: a
    Krylov method standing in for FiPy's default solver (an LU), or a breakdown of any
    Krylov method (a division by zero inside it, which FiPy's own method need not meet
    at the same step)."""
    if report.converged or report.solver.startswith("lu"):
        return False
    return asked == "default" or "breakdown" in report.reason


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
        self._direct = None  # "lu", for a breakdown (retries_with_direct)
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
            raise Error("kfvm.fipy: criterion '%s' is not offered (give 'default', "
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
            raise Error("kfvm.fipy: %s" % e) from None
        if target is None:
            relative, absolute = float(self.tolerance), float(self.absolute_tolerance)
        else:
            relative, absolute = 0.0, max(target, self.absolute_tolerance, 1e-300)
        if method == "lu":
            parameters = _lu_parameters(relative, absolute, iterations, "rhs")
        else:
            parameters = _parameters(method, relative, absolute, iterations, precon)
        key = (method, tuple(sorted(parameters.items())))
        if self._system is None or self._system_key != key:
            backend = backend_for(L.shape[0], direct=method == "lu", named=self.backend)
            self._system = _backend_module(backend).CsrSystem(method, parameters)
            self._system_key = key
        b = _np.asarray(b, dtype=float)
        data = L.data
        if method == "cg" and _np.all(L.diagonal() <= 0):
            # FiPy's steady diffusion matrix is negative definite: CG solves -L x = -b.
            data, b = -data, -b
        self._system.set_matrix(L.shape[0], L.indptr, L.indices, data)
        x0 = _np.array(x, dtype=float, copy=True)
        x = x0.copy()
        report = self._system.solve(b, x)
        if retries_with_direct(self._method, report):
            if self._direct is None:
                self._direct = _backend_module(backend_for(
                    L.shape[0], direct=True, named=self.backend)).CsrSystem(
                    "lu", _lu_parameters(relative, absolute, LU_SOLVES, "rhs"))
            self._direct.set_matrix(L.shape[0], L.indptr, L.indices, data)
            failed = report
            x = x0.copy()
            report = self._direct.solve(b, x)
            from .engine import engine  # the record report() shows
            engine().note_retry("%s (the solver level)" % type(self).__name__, failed,
                                report)
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
    "FiPy's LU on kfvm: the direct solver 'lu' (a sparse LU on the host), with FiPy's "
    "tolerance and at most 10 solves of iterative refinement, as FiPy's.")
DefaultSolver = LinearLUSolver
DefaultAsymmetricSolver = LinearLUSolver
GeneralSolver = LinearLUSolver
