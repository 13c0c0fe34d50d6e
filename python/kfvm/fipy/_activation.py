"""The hook: FiPy's Term.solve and Term.sweep, replaced while kfvm.fipy is active."""

import logging as _logging
import os as _os
import sys as _sys

from fipy.terms.term import Term as _Term

from .._errors import Error
from .engine import describe, engine, timed_run
from .meshes import Untranslatable

_log = _logging.getLogger("kfvm.fipy")
_fipy_solve = _Term.solve
_fipy_sweep = _Term.sweep


def _say(message):
    """One line on standard error (and to the 'kfvm.fipy' logger's handlers)."""
    if _log.handlers or _logging.getLogger().handlers:
        _log.info(message)
    elif not _os.environ.get("KFVM_FIPY_QUIET"):
        print(message, file=_sys.stderr)


def _reason_of_error(error):
    return "kfvm refused it: %s" % error


def _hand_over(term, var, solver, boundaryConditions, dt, sweep, extra):
    """Runs term on kfvm; falls back to FiPy (returns None) when it cannot."""
    if any(v is not None for v in extra):
        return None, "it asks for underRelaxation, residualFn or cached residuals"
    try:
        residual, fresh, seconds = timed_run(term, var, solver, dt, sweep,
                                             boundaryConditions)
    except Untranslatable as e:
        return None, str(e)
    except Error as e:
        return None, _reason_of_error(e)
    engine().record(term, var if var is not None else term.var, "kfvm", "", seconds, fresh)
    return residual, None


def _fall_back(term, var, reason, run):
    import time
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    target = var if var is not None else term.var
    if engine().record(term, target, "fipy", reason, seconds):
        _say("kfvm.fipy: %s runs on FiPy: %s" % (describe(term, target), reason))
    return result


def _solve(self, var=None, solver=None, boundaryConditions=(), dt=None):
    residual, reason = _hand_over(self, var, solver, boundaryConditions, dt, False, ())
    if reason is None:
        return None
    return _fall_back(self, var, reason, lambda: _fipy_solve(
        self, var=var, solver=solver, boundaryConditions=boundaryConditions, dt=dt))


def _sweep(self, var=None, solver=None, boundaryConditions=(), dt=None, underRelaxation=None,
           residualFn=None, cacheResidual=False, cacheError=False):
    extra = (underRelaxation, residualFn, True if (cacheResidual or cacheError) else None)
    residual, reason = _hand_over(self, var, solver, boundaryConditions, dt, True, extra)
    if reason is None:
        return residual
    return _fall_back(self, var, reason, lambda: _fipy_sweep(
        self, var=var, solver=solver, boundaryConditions=boundaryConditions, dt=dt,
        underRelaxation=underRelaxation, residualFn=residualFn, cacheResidual=cacheResidual,
        cacheError=cacheError))


def activate(backend=None):
    """FiPy's eq.solve() and eq.sweep() run on kfvm from now on (backend: a kfvm
    backend name, default KFVM_FIPY_BACKEND or the build's default)."""
    engine().backend = backend or _os.environ.get("KFVM_FIPY_BACKEND") or None
    _Term.solve = _solve
    _Term.sweep = _sweep


def deactivate():
    """FiPy's own solve and sweep again."""
    _Term.solve = _fipy_solve
    _Term.sweep = _fipy_sweep


def active():
    return _Term.solve is _solve


def report(file=None):
    """Which equations ran where: a list of dicts (equation, where: 'kfvm' or 'fipy',
    reason, calls, seconds, compiles; on kfvm the backend and why that one, the solver
    of the last solve, and how many solves the direct solver did again,
    engine().retries listing them), printed as a table to file when given."""
    rows = [dict(entry) for entry in engine().records.values()]
    if file is not None:
        print("%-6s %6s %9s %8s %-8s %-22s %7s  %s" % (
            "where", "calls", "seconds", "compiles", "backend", "solver", "retries",
            "equation"), file=file)
        for r in rows:
            print("%-6s %6d %9.3f %8d %-8s %-22s %7d  %s%s" % (
                r["where"], r["calls"], r["seconds"], r["compiles"], r["backend"] or "-",
                r["solver"] or "-", r["retries"], r["equation"],
                "  [%s]" % r["reason"] if r["reason"] else ""), file=file)
        whys = sorted({r["backend_why"] for r in rows if r["backend_why"]})
        for why in whys:
            print("backend: %s" % why, file=file)
        for retry in engine().retries[:10]:
            print("done again by %s (%s): %s stopped: %s" % (
                retry["direct"], "converged" if retry["converged"] else "NOT converged",
                retry["failed"], retry["reason"]), file=file)
        if len(engine().retries) > 10:
            print("... %d solves done again in all" % len(engine().retries), file=file)
    return rows


def reset():
    """Forgets the record, the timings and the compiled equations."""
    engine().records.clear()
    engine().compiled.clear()
    engine().timings.clear()
    engine().retries.clear()


def timings():
    """Seconds spent on kfvm's side, by part: 'translate' (FiPy evaluating the
    coefficients and constraints, and their translation), 'compile', 'transfer'
    (to and from the device, FiPy's variable written back) and 'solve'."""
    return dict(engine().timings)
