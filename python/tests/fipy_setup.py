"""What the kfvm.fipy tests (test_fipy.py, test_fipy_coupled.py) share: FiPy from
KFVM_FIPY_PATH (ctest sets it to FiPy's source folder when the build found one; when it
is set, FiPy must import; without it, or in a float build, the tests are skipped), the
solver tolerance, the hook reset around each test, and helpers."""

import os
import sys

import numpy as np
import pytest

FIPY_PATH = os.environ.get("KFVM_FIPY_PATH")
if not FIPY_PATH:
    pytest.skip("KFVM_FIPY_PATH (FiPy's source folder) is not set", allow_module_level=True)
sys.path.insert(0, FIPY_PATH)
os.environ.setdefault("FIPY_SOLVERS", "scipy")
os.environ.setdefault("FIPY_VIEWERS", "dummy")
os.environ["KFVM_FIPY_QUIET"] = "1"

import fipy  # noqa: E402,F401  (must import when KFVM_FIPY_PATH is given)
from fipy import Grid2D  # noqa: E402

import kfvm  # noqa: E402

if kfvm._kfvm.real_type != "float64":
    pytest.skip("FiPy computes in double; this build's kfvm in %s" % kfvm._kfvm.real_type,
                allow_module_level=True)

import kfvm.fipy as kf  # noqa: E402

TIGHT = 1e-13  # solver tolerance of both sides: answers agree to round-off


@pytest.fixture(autouse=True)
def _hook():
    """kfvm.fipy reset and active around each test (imported by each test module)."""
    kf.reset()
    kf.activate()
    yield
    kf.activate()


def relative(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))


def grid2d():
    """A 2D grid, uneven along y."""
    return Grid2D(nx=12, ny=8, dx=0.1, dy=[0.05] * 4 + [0.15] * 4)
