"""A device build's two extension modules (kfvm/_extension.py): nothing is loaded at
import; a mesh placed on a backend the host module has loads the host module; anything
else loads the build's module; a process holds one of them. Each case runs in a process
of its own on a copy of the package whose kfvm/_host/ holds this build's own module
under info.json's backends, so that the choice is checked on any build (a Cuda build
with a real host module is checked on the GPU machine: perf/RESULTS.md)."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import kfvm
from kfvm import _extension, _kfvm, placement


def _tool():
    """python/tools/host_module_info.py, which writes a real build's info.json."""
    path = os.path.join(os.environ["KFVM_SOURCE_DIR"], "python", "tools",
                        "host_module_info.py")
    spec = importlib.util.spec_from_file_location("host_module_info", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def _package(tmp_path, host_backends, build_backends=None, default=None, broken=False):
    """A copy of the package in tmp_path/site: the build's module, and as kfvm/_host the
    same module (or, broken, a file that is no module) with these backends in info.json
    and what the tool records of the policy."""
    source = os.path.dirname(kfvm.__file__)
    package = tmp_path / "site" / "kfvm"
    shutil.copytree(source, package, ignore=shutil.ignore_patterns(
        "_kfvm*.so", "_kfvm*.pyd", "_host", "__pycache__"))
    module = os.path.basename(_extension.FULL)
    os.symlink(_extension.FULL, package / module)
    (package / "_host").mkdir()
    if broken:
        (package / "_host" / module).write_text("not a shared library")
    else:
        os.symlink(_extension.FULL, package / "_host" / module)
    info = {"backends": host_backends,
            "build_backends": build_backends or list(_kfvm.backends),
            "build_default_backend": default or _kfvm.default_backend,
            "direct_default_cells": _tool().direct_default_cells(_kfvm),
            "convection_scheme_names": list(_kfvm.convection_scheme_names())}
    (package / "_host" / "info.json").write_text(json.dumps(info))
    return tmp_path / "site"


def _run(site, code, **environment):
    """Runs code in a fresh interpreter on the copy; its last line of output, as JSON."""
    env = dict(os.environ)
    paths = [str(site)] + ([os.environ["KFVM_FIPY_PATH"]] if "KFVM_FIPY_PATH" in env else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    for name in ("KFVM_BACKEND", "KFVM_PLACEMENT_CROSSOVER", "KFVM_FIPY_BACKEND"):
        env.pop(name, None)
    env.update(environment)
    prelude = "import json, kfvm\nfrom kfvm import _extension\n"
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, cwd=str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _where(path):
    return None if path is None else ("host" if "_host" in path.split(os.sep) else "build")


# The lightest host backend of this build: what placement puts a small problem on.
HOST = placement.candidates()[0]

SOLVE = """
mesh = kfvm.Grid2D(nx=%d, ny=%d)
phi = kfvm.CellVariable(mesh, value=0.0, hasOld=True)
phi.constrain(1.0, mesh.facesLeft)
(kfvm.TransientTerm() == kfvm.DiffusionTerm(1.0)).solve(var=phi, dt=1e9)
ok = bool(abs(phi.value - 1.0).max() < 1e-4)  # steady state: 1 everywhere
"""


def test_the_errors_are_the_package_s_own():
    assert _kfvm.Error is kfvm.Error and issubclass(kfvm.ConvergenceError, kfvm.Error)
    with pytest.raises(kfvm.Error, match="nx must be at least 1"):
        kfvm.Grid1D(nx=0)


def test_nothing_is_loaded_at_import(tmp_path):
    site = _package(tmp_path, [HOST])
    code = "import kfvm.placement\n"
    if "KFVM_FIPY_PATH" in os.environ:
        code += "import kfvm.fipy\n"
    code += "print(json.dumps(_extension.loaded()))"
    assert _run(site, code) is None


def test_a_small_problem_loads_the_host_module_alone(tmp_path):
    site = _package(tmp_path, [HOST], build_backends=[HOST, "Device"], default="Device")
    out = _run(site, SOLVE % (5, 5) + """
print(json.dumps([_extension.loaded(), mesh.backend, ok,
                  kfvm.placement.choice()["why"]]))""", KFVM_PLACEMENT_CROSSOVER="100")
    assert _where(out[0]) == "host" and out[1] == HOST and out[2]
    assert "below the crossover of 100" in out[3]


def test_what_placement_asks_first_loads_nothing(tmp_path):
    site = _package(tmp_path, [HOST], build_backends=[HOST, "Device"], default="Device")
    out = _run(site, """
from kfvm.fipy.solvers import asks_direct
term = kfvm.ConvectionTerm(coeff=(1.0,), scheme="upwind")
print(json.dumps([_extension.loaded(), asks_direct(None, 2, 100), kfvm.backends]))""")
    assert out[0] is None and out[1] == _kfvm.direct_solver_by_default(2, 100)
    assert out[2] == [HOST, "Device"]


@pytest.mark.skipif("KFVM_FIPY_PATH" not in os.environ, reason="needs FiPy")
def test_a_small_fipy_script_loads_the_host_module_alone(tmp_path):
    site = _package(tmp_path, [HOST], build_backends=[HOST, "Device"], default="Device")
    out = _run(site, """
import kfvm.fipy
kfvm.fipy.activate()
from fipy import CellVariable, DiffusionTerm, Grid1D, TransientTerm
m = Grid1D(nx=10)
v = CellVariable(mesh=m, value=0.0)
v.constrain(1.0, m.facesLeft)
(TransientTerm() == DiffusionTerm()).solve(var=v, dt=1e9)
print(json.dumps([_extension.loaded(), float(v.value.min())]))""",
               KFVM_PLACEMENT_CROSSOVER="100")
    assert _where(out[0]) == "host" and abs(out[1] - 1.0) < 1e-6


def test_anything_else_loads_the_build_s_module(tmp_path):
    site = _package(tmp_path, [HOST])
    out = _run(site, "kfvm.real_type\nprint(json.dumps(_extension.loaded()))")
    assert _where(out) == "build"
    # A host module without the backend placement picks is passed over.
    site = _package(tmp_path / "other", ["Elsewhere"])
    out = _run(site, SOLVE % (5, 5) + "print(json.dumps([_extension.loaded(), ok]))",
               KFVM_PLACEMENT_CROSSOVER="100")
    assert _where(out[0]) == "build" and out[1]


def test_a_process_holds_one_module(tmp_path):
    site = _package(tmp_path, [HOST], build_backends=[HOST, "Device"], default="Device")
    out = _run(site, SOLVE % (5, 5) + SOLVE % (20, 20) + """
why = kfvm.placement.choice()["why"]
try:
    kfvm.Grid2D(nx=2, ny=2, backend="Device")
    refused = ""
except kfvm.Error as e:
    refused = str(e)
print(json.dumps([_extension.loaded(), mesh.backend, ok, why, refused]))""",
               KFVM_PLACEMENT_CROSSOVER="100")
    assert _where(out[0]) == "host" and out[1] == HOST and out[2]
    assert "at or above the crossover of 100" in out[3] and "earlier mesh" in out[3]
    assert "backend 'Device'" in out[4] and "host module" in out[4]
    # A mesh whose cells placement does not know takes the held module's default (here
    # the build's own module stands in for the host module: its default).
    out = _run(site, SOLVE % (5, 5) + """
print(json.dumps([kfvm.mesh._backend_module(None).__name__.rsplit(".", 1)[-1],
                  kfvm.backends, kfvm.default_backend]))""", KFVM_PLACEMENT_CROSSOVER="100")
    assert out == [_kfvm.default_backend, [HOST, "Device"], "Device"]


def test_a_host_module_that_does_not_load_gives_way_to_the_build_s(tmp_path):
    site = _package(tmp_path, [HOST], broken=True)
    out = _run(site, "import warnings\nwarnings.simplefilter('always')\n" + SOLVE % (5, 5) +
               "print(json.dumps([_extension.loaded(), ok]))", KFVM_PLACEMENT_CROSSOVER="100")
    assert _where(out[0]) == "build" and out[1]


@pytest.mark.skipif(placement.candidates()[0] == placement.candidates()[1],
                    reason="the build has one backend: there is no crossover to measure")
def test_the_crossover_is_measured_in_a_process_of_its_own(tmp_path):
    site = _package(tmp_path, [HOST])
    record = tmp_path / "placement.json"
    out = _run(site, SOLVE % (8, 8) + """
print(json.dumps([_extension.loaded(), mesh.backend, ok]))""",
               KFVM_PLACEMENT_FILE=str(record))
    entries = list(json.loads(record.read_text()).values())
    assert len(entries) == 1 and entries[0]["host"] == HOST
    crossover = entries[0]["crossover_cells"]
    on_host = crossover is None or 64 < crossover
    assert out[1] == (HOST if on_host else _kfvm.default_backend) and out[2]
    assert _where(out[0]) == ("host" if on_host else "build")
