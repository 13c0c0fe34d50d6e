"""FiPy's own example scripts, their doctests run through kfvm.fipy: the example's
checks (FiPy's tolerances against the analytical answers) must pass with every solve
taken by kfvm. The lines that open viewers are left out."""

import ast
import doctest
import os

import pytest

from fipy_setup import FIPY_PATH, _hook, kf  # noqa: F401

import fipy.tests.doctestPlus  # noqa: E402,F401  (registers FiPy's doctest flags)

EXAMPLES = [
    # FiPy's exponential1D convection on a cylindrical grid, and in r-z (uniform or not)
    "convection/exponential1D/cylindricalMesh1D.py",
    "convection/exponential1D/cylindricalMesh1DNonUniform.py",
    "convection/exponential2D/cylindricalMesh2D.py",
    "convection/exponential2D/cylindricalMesh2DNonUniform.py",
    # periodic grids: steady diffusion, and a square wave advected by Van Leer on a
    # periodic grid against the same on a grid twice as long
    "diffusion/steadyState/mesh1D/inputPeriodic.py",
    "convection/advection/vanLeerUpwind.py",
]


def run_example(relative):
    """Runs an example's doctests (the viewer lines left out); returns doctest's result,
    its failure reports and kfvm.fipy's report."""
    path = os.path.join(FIPY_PATH, "examples", relative)
    text = open(path).read()
    # As FiPy's own test runner does: the module's code first (some examples set up
    # their meshes and equations there), then its docstring's examples.
    globs = {"__name__": "fipy_example", "__file__": path}
    exec(compile(text, path, "exec"), globs)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(ast.get_docstring(ast.parse(text), clean=False), globs,
                              relative, path, 0)
    test.examples = [e for e in test.examples
                     if "iewer" not in e.source or e.source.lstrip().startswith("from")]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    kf.reset()
    failures = []
    result = runner.run(test, out=failures.append)
    return result, failures, kf.report()


@pytest.mark.parametrize("relative", EXAMPLES)
def test_fipy_example_passes_on_kfvm(relative):
    result, failures, report = run_example(relative)
    assert result.attempted >= 3
    assert result.failed == 0, "".join(failures)
    assert report and {row["where"] for row in report} == {"kfvm"}, report
