"""A FiPy-style residual-controlled Cahn-Hilliard run (python/examples/fipy/spinodal.py:
FiPy's LU, three sweeps a step, dt up 10% on an accepted step and down to 0.8 dt on a
rejected one) with FiPy alone and through kfvm.fipy, until dt reaches 1, on a bounded
grid, a periodic one and two joined grids: the same steps accepted and rejected at the
same dt, and the same energies, to the solvers' round-off carried through the run."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from fipy_setup import FIPY_PATH  # noqa: F401  (skips without FiPy or in float)

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "examples" / "fipy" / "spinodal.py"
LINE = re.compile(r"^try +(\d+) (accepted|rejected) +t (\S+) dt (\S+) residuals (\S+) (\S+) "
                  r"(\S+) energy (\S+)$")


def _run(mesh, on_kfvm, solver="lu"):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FIPY_PATH] + sys.path),
               KFVM_FIPY_REPORT="1", FIPY_SOLVERS="scipy", FIPY_VIEWERS="dummy")
    env.pop("KFVM_FIPY_QUIET", None)
    command = [sys.executable] + (["-m", "kfvm.fipy"] if on_kfvm else []) + [
        str(SCRIPT), "--mesh", mesh, "--n", "24", "--dt", "0.5", "--tolerance", "3e-5",
        "--solver", solver]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    tries = [LINE.match(line).groups() for line in done.stdout.splitlines()
             if line.startswith("try ")]
    return tries, done.stderr


@pytest.mark.parametrize("solver", ["lu", "default"])
@pytest.mark.parametrize("mesh", ["bounded", "periodic", "joined"])
def test_the_run_follows_fipys(mesh, solver):
    """FiPy's LU named, and no solver named (FiPy's default, its LU in the scipy suite;
    kfvm's default for this size, its direct solver): dt from 0.5 down to 0.2 and up to
    1 on each mesh, with the same steps rejected."""
    alone, _ = _run(mesh, False, solver)
    kfvm, report = _run(mesh, True, solver)
    assert "runs on FiPy" not in report, report  # every sweep on kfvm
    assert re.search(r"kfvm .* lu \((klu|umfpack)\)", report), report  # the direct solver
    assert "done again" not in report
    assert len(alone) == len(kfvm), (len(alone), len(kfvm))
    rejected = sum(1 for t in alone if t[1] == "rejected")
    assert rejected >= 5 and float(alone[-1][3]) * 1.1 >= 1.0  # a run worth comparing
    for a, k in zip(alone, kfvm):
        assert a[:4] == k[:4], (a, k)  # try, accepted or not, t and dt (10 digits)
        assert float(k[7]) == pytest.approx(float(a[7]), rel=1e-9, abs=0), (a, k)
