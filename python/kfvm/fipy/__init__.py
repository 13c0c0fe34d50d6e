"""FiPy's scripts on kfvm.

``import kfvm.fipy`` (or ``python3 -m kfvm.fipy script.py``) makes FiPy's ``eq.solve()``
and ``eq.sweep()`` hand the whole equation to kfvm: its terms, their coefficients
(evaluated by FiPy to arrays at every call), the variable's constraints and the grid.
kfvm assembles and solves on its device and writes the answer into FiPy's variable. What
kfvm does not translate runs on FiPy's own path, with one log line saying what and why;
:func:`report` lists which equations ran where.

Solver level: ``solver=kfvm.fipy.LinearCGSolver()`` (and LinearGMRESSolver,
LinearBicgstabSolver, LinearLUSolver) solves the matrix FiPy assembled with kfvm's
solvers, in any FiPy script, active or not.

KFVM_FIPY_BACKEND names the kfvm backend (default: the build's default backend).
"""

try:
    import fipy as _fipy  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("kfvm.fipy needs FiPy importable (PYTHONPATH=.../fipy): %s" % e) from e

from ._activation import activate, active, deactivate, report, reset, timings  # noqa: F401
from .engine import ConvergenceWarning  # noqa: F401
from .solvers import (DefaultAsymmetricSolver, DefaultSolver, GeneralSolver,  # noqa: F401
                      LinearBicgstabSolver, LinearCGSolver, LinearGMRESSolver,
                      LinearLUSolver, LinearPCGSolver)

activate()
