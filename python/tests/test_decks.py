"""The example decks, twice: their problems through the Python API against their own
[check] (deck_problems.py), and kfvm.run_deck against `kfvm run` file for file."""

import filecmp
import os
import subprocess

import numpy as np
import pytest
from scipy.special import erfc

import kfvm
import deck_problems
from conftest import DECKS

# The example decks' tolerances are double precision ones: as ctest runs the decks
# (tests/CMakeLists.txt), a float build checks none of them.
DOUBLE_ONLY = pytest.mark.skipif(kfvm.real_type != "float64",
                                 reason="the example decks' tolerances are double precision ones")

CHECKED = ["diffusion1d", "convection1d", "variable-diffusion1d", "coupled-steady1d",
           "two-species1d", "allen-cahn2d", "diffusion3d", "cahn-hilliard2d",
           "cahn-hilliard2d-coupled"]


@DOUBLE_ONLY
@pytest.mark.parametrize("name", CHECKED)
def test_deck_problem_through_the_python_api_meets_its_check(name):
    error, tolerance, what = deck_problems.run(DECKS / (name + ".toml"))
    assert error <= tolerance, "%s: %s %g > %g" % (name, what, error, tolerance)


def test_deck_with_potential_boundaries_is_reported_as_not_translated():
    with pytest.raises(NotImplementedError, match="potential"):
        deck_problems.run(DECKS / "cahn-hilliard-tanh1d.toml")


@DOUBLE_ONLY
@pytest.mark.parametrize("name", ["diffusion1d", "two-species1d", "diffusion1d-adaptive"])
def test_run_deck_equals_kfvm_run(name, tmp_path, kfvm_command):
    deck = DECKS / (name + ".toml")
    here, there = tmp_path / "python", tmp_path / "command"
    assert kfvm.run_deck(deck, output=here, quiet=True) == 0
    subprocess.run([kfvm_command, "run", str(deck), "--output", str(there), "-q"],
                   check=True, stdout=subprocess.DEVNULL)
    files = sorted(os.listdir(there))
    assert files == sorted(os.listdir(here))
    assert any(f.endswith(".vtr") for f in files)
    for f in files:
        if f.endswith(".h5"):  # HDF5 may stamp its objects: compare what they hold
            assert kfvm._kfvm.read_checkpoint(str(here / f)) == \
                kfvm._kfvm.read_checkpoint(str(there / f)), f
        else:
            assert filecmp.cmp(here / f, there / f, shallow=False), f


def test_run_deck_reports_a_failed_solve_as_kfvm_run_does(tmp_path):
    deck = tmp_path / "short.toml"
    text = (DECKS / "diffusion1d.toml").read_text()
    deck.write_text(text.replace('tolerance = 1e-12', 'tolerance = 1e-12\nmax_iterations = 1'))
    assert kfvm.run_deck(deck, output=tmp_path / "out", quiet=True) == 2


def test_bad_deck_raises_kfvm_error_naming_it():
    with pytest.raises(kfvm.Error, match="unknown-solver.toml"):
        kfvm.run_deck(DECKS.parent.parent / "tests" / "decks" / "unknown-solver.toml")
    with pytest.raises(kfvm.Error):
        kfvm.run_deck("/nonexistent/deck.toml")


def test_check_deck():
    assert kfvm.check_deck(DECKS / "diffusion1d.toml") == 0


@DOUBLE_ONLY
def test_deck_takes_fipys_diffusion_of_either_sign(tmp_path):
    """diffusion_sign = "either": Cahn-Hilliard's negative second-order coefficient beside
    the fourth-order term (DiffusionSign::Either); without it the deck is refused."""
    text = """
[mesh]
dimension = 1
cells = [40]
length = [4.0]
[variable]
name = "phi"
initial = { type = "expression", value = "0.1 * sin(3 * x)" }
[equation]
transient = 1.0
diffusion = -0.2
%s
higher_order = { mobility = 1.0, kappa = 0.5 }
[solver]
name = "gmres"
preconditioner = "ilu0"
tolerance = 1e-12
[time]
dt = 0.01
steps = 5
"""
    deck = tmp_path / "either.toml"
    deck.write_text(text % 'diffusion_sign = "either"')
    assert kfvm.run_deck(deck, output=tmp_path / "out", quiet=True) == 0
    deck.write_text(text % "")
    with pytest.raises(kfvm.Error, match="diffusion"):
        kfvm.check_deck(deck)


@DOUBLE_ONLY
def test_deck_starts_from_a_checkpoint_or_a_numpy_file(tmp_path):
    """FiPy's mesh1D to t = 22.5, then on to t = 45 from the checkpoint, or from a .npy of
    the exact values at 22.5: both meet erfc at t + 22.5; a .npy of zeros does not (the
    check sees the file). The file's path is relative to the deck's folder."""
    first = (DECKS / "diffusion1d.toml").read_text().replace("steps = 100", "steps = 50")
    first = first.replace("[output]", "[output]\ncheckpoint_every = 50")
    (tmp_path / "first.toml").write_text(first)
    assert kfvm.run_deck(tmp_path / "first.toml", output=tmp_path / "first", quiet=True) == 0
    later = (DECKS / "diffusion1d.toml").read_text().replace("steps = 100", "steps = 50")
    later = later.replace('exact = "erfc(x / (2 * sqrt(t)))"',
                          'exact = "erfc(x / (2 * sqrt(t + 22.5)))"')
    assert "t + 22.5" in later
    x = (np.arange(50) + 0.5)
    for name, values, status in [("first/checkpoint.h5", None, 0),
                                 ("exact.npy", erfc(x / (2 * np.sqrt(22.5))), 0),
                                 ("zeros.npy", np.zeros(50), 4)]:
        if values is not None:
            np.save(tmp_path / name, values)
        deck = tmp_path / ("later-" + name.replace("/", "-") + ".toml")
        deck.write_text(later.replace('initial = { type = "constant", value = 0.0 }',
                                      'initial = { type = "file", file = "%s" }' % name))
        assert kfvm.run_deck(deck, output=tmp_path / ("out-" + deck.stem), quiet=True) == status, name
    np.save(tmp_path / "short.npy", np.zeros(49))
    deck.write_text(later.replace('initial = { type = "constant", value = 0.0 }',
                                  'initial = { type = "file", file = "short.npy" }'))
    with pytest.raises(kfvm.Error, match=r"short.npy': an array of shape \(49,\)"):
        kfvm.check_deck(deck)
