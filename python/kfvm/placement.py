"""Which backend runs a problem when none is named: the lightest host backend (Serial)
below a crossover in cells, the build's default backend (the GPU on a CUDA build, OpenMP
on an OpenMP one) above it. Small problems lose on a GPU (launch latency, transfers) and
on threads (forks and joins); large ones win there.

The crossover is measured once per build and machine, the first time a choice is
needed, and recorded (``$KFVM_PLACEMENT_FILE``, else ``~/.cache/kfvm/placement.json``,
keyed by the module's file and the machine): implicit diffusion steps solved by CG on a
2D grid of growing size, on both backends, until the default one is the faster. A
direct solve factors on the host whatever the mesh's backend, so it always takes the
host backend. On a device build with a host module (kfvm/_extension.py) the host
backend's problems load that module alone, and the measurement runs in a process of
its own. ``KFVM_PLACEMENT_CROSSOVER`` gives the crossover instead (cells, or
'never'); ``KFVM_BACKEND`` names the backend outright (and ``KFVM_FIPY_BACKEND``
for kfvm.fipy); ``choice()`` says what was chosen and why.
"""

import json as _json
import os as _os
import platform as _platform
import subprocess as _subprocess
import sys as _sys
import tempfile as _tempfile
import time as _time

from . import _extension
from ._errors import Error

#: Host backends, lightest first.
_HOST = ("Serial", "OpenMP", "Threads")
#: Grid sizes the measurement tries (n x n cells), and the steps it times at each.
_SIZES = (32, 64, 128, 256, 512, 1024)
_STEPS = 3
#: The measurement stops once the host needs this long for one step.
_HOST_SECONDS = 0.5


def candidates():
    """(host backend, default backend) of this build; the same name twice when the
    build has only one, or its default is its lightest host backend."""
    backends, default = _extension.build()
    hosts = [b for b in _HOST if b in backends]
    return (hosts[0] if hosts else default), default


def _file():
    path = _os.environ.get("KFVM_PLACEMENT_FILE")
    if path:
        return path
    return _os.path.join(_os.path.expanduser("~"), ".cache", "kfvm", "placement.json")


def _key():
    module = _extension.FULL  # the build's module, whichever this process loaded
    stat = _os.stat(module)
    return "%s|%d|%d|%s|%s" % (module, stat.st_size, int(stat.st_mtime), _platform.node(),
                              ",".join(_extension.build()[0]))


def _read():
    try:
        with open(_file()) as f:
            return _json.load(f)
    except (OSError, ValueError):
        return {}


def _write(records):
    path = _file()
    folder = _os.path.dirname(path) or "."
    _os.makedirs(folder, exist_ok=True)
    handle, temporary = _tempfile.mkstemp(dir=folder, prefix=".placement-")
    with _os.fdopen(handle, "w") as f:
        _json.dump(records, f, indent=1)
    _os.replace(temporary, path)  # whole or not at all, even with writers side by side


def _seconds_per_step(backend, n):
    from .mesh import Grid2D
    from .solvers import Solver
    from .terms import DiffusionTerm, TransientTerm
    from .variables import CellVariable
    mesh = Grid2D(nx=n, ny=n, dx=1.0 / n, dy=1.0 / n, backend=backend)
    phi = CellVariable(mesh, value=0.0, name="phi", hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    eq = TransientTerm() == DiffusionTerm(coeff=1.0)
    solver = Solver("cg", preconditioner="jacobi", tolerance=1e-8)
    dt = 0.1 / n
    phi.updateOld()
    eq.solve(var=phi, dt=dt, solver=solver)  # warm-up: allocations, first launches
    start = _time.perf_counter()
    for _ in range(_STEPS):
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver)
    return (_time.perf_counter() - start) / _STEPS


def measure(host, default):
    """The crossover between host and default, measured now: (cells, table), cells the
    smallest grid the default backend stepped faster (None: none tried). In a process
    of its own unless this one holds the build's module."""
    if _extension.loaded() != _extension.FULL and \
            _seconds_per_step is _MEASURED_STEP:  # (tests stand in another)
        return _measure_apart(host, default)
    table = []
    crossover = None
    for n in _SIZES:
        on_host = _seconds_per_step(host, n)
        on_default = _seconds_per_step(default, n)
        table.append([n * n, on_host, on_default])
        if on_default < on_host:
            crossover = n * n
            break
        if on_host > _HOST_SECONDS:
            break
    return crossover, table


_MEASURED_STEP = _seconds_per_step


def _measure_apart(host, default):
    """measure() in a child process, which loads the build's module (this one holds the
    host module, or will)."""
    package_parent = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    env = dict(_os.environ)
    env["PYTHONPATH"] = _os.pathsep.join([package_parent] + [p for p in _sys.path if p])
    env.pop("KFVM_BACKEND", None)
    done = _subprocess.run([_sys.executable, "-m", __name__, "--measure", host, default],
                           env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise Error("kfvm.placement could not measure the crossover between %s and %s "
                    "(set KFVM_PLACEMENT_CROSSOVER to skip it): %s"
                    % (host, default, (done.stdout + done.stderr)[-2000:]))
    cells, table = _json.loads(done.stdout.strip().splitlines()[-1])
    return cells, table


def crossover():
    """The crossover in cells for this build and machine: KFVM_PLACEMENT_CROSSOVER's
    (cells, or 'never'), else the recorded one (measured and recorded now when there is
    none); None when the default backend never won, or when the build has one backend."""
    host, default = candidates()
    if host == default:
        return None
    given = _os.environ.get("KFVM_PLACEMENT_CROSSOVER")
    if given:
        if given == "never":
            return None
        try:
            cells = int(given)
        except ValueError:
            raise Error("KFVM_PLACEMENT_CROSSOVER must be a number of cells or "
                        "'never', got %r" % given) from None
        if cells < 0:
            raise Error("KFVM_PLACEMENT_CROSSOVER must not be negative, got %d"
                        % cells)
        return cells
    records = _read()
    key = _key()
    entry = records.get(key)
    if entry is None:
        cells, table = measure(host, default)
        entry = {"host": host, "default": default, "crossover_cells": cells,
                 "seconds_per_step": table, "measured": _time.strftime("%Y-%m-%d %H:%M")}
        records = _read()  # another process may have written meanwhile
        records[key] = entry
        _write(records)
    return entry["crossover_cells"]


_last = {}


def backend_for(cells, direct=False, named=None):
    """The backend a problem of this many cells runs on: named (or KFVM_BACKEND) when
    given; the host backend for a direct solve or below the crossover; the default
    above it."""
    named = named or _os.environ.get("KFVM_BACKEND") or None
    host, default = candidates()
    if named:
        chosen, why = named, "named"
    elif host == default:
        chosen, why = default, "the build's only choice"
    elif direct:
        chosen, why = host, "a direct solve factors on the host"
    else:
        limit = crossover()
        if limit is None:
            chosen, why = host, "%s was never faster than %s here" % (default, host)
        elif cells < limit:
            chosen, why = host, "%d cells, below the crossover of %d" % (cells, limit)
        else:
            chosen, why = default, "%d cells, at or above the crossover of %d" % (cells,
                                                                                  limit)
    if not named and chosen != host and _extension.held_by_host(chosen):
        chosen, why = host, "%s; but this process loaded the host module for an " \
            "earlier mesh" % why
    _last.update({"backend": chosen, "why": why, "cells": cells})
    return chosen


def choice():
    """The last choice backend_for() made: backend, why and cells."""
    return dict(_last)


if __name__ == "__main__":  # python -m kfvm.placement --measure HOST DEFAULT
    if len(_sys.argv) != 4 or _sys.argv[1] != "--measure":
        raise SystemExit("usage: python -m kfvm.placement --measure HOST DEFAULT")
    _extension.load()  # the build's module: both backends
    print(_json.dumps(measure(_sys.argv[2], _sys.argv[3])))
