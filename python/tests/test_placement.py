"""Which backend runs a problem when none is named (kfvm.placement): the host backend
below the crossover and for a direct solve, the build's default above it; the crossover
measured once and recorded; KFVM_BACKEND, KFVM_PLACEMENT_CROSSOVER and
KFVM_FIPY_BACKEND override it. The two-backend cases stand a second backend's name in
for the build's default, so that they run on any build."""

import json

import pytest

import kfvm
from kfvm import _kfvm, placement


@pytest.fixture
def two_backends(monkeypatch, tmp_path):
    """A build whose host backend is Serial and whose default is 'Device', with its
    records in a file of this test's own, and a measurement that counts its calls: the
    device steps faster from 64 x 64 cells."""
    monkeypatch.setattr(placement, "candidates", lambda: ("Serial", "Device"))
    monkeypatch.setenv("KFVM_PLACEMENT_FILE", str(tmp_path / "placement.json"))
    monkeypatch.delenv("KFVM_PLACEMENT_CROSSOVER", raising=False)
    monkeypatch.delenv("KFVM_BACKEND", raising=False)
    calls = []

    def seconds(backend, n):
        calls.append((backend, n))
        return 1e-3 * n * n / 1024 if backend == "Serial" else 2e-3
    monkeypatch.setattr(placement, "_seconds_per_step", seconds)
    return calls, tmp_path / "placement.json"


def test_the_crossover_is_measured_once_and_recorded(two_backends):
    calls, record = two_backends
    assert placement.crossover() == 64 * 64
    assert [n for _, n in calls] == [32, 32, 64, 64]
    entry = json.loads(record.read_text())[placement._key()]
    assert entry["crossover_cells"] == 64 * 64 and entry["host"] == "Serial"
    assert [row[0] for row in entry["seconds_per_step"]] == [32 * 32, 64 * 64]
    assert placement.crossover() == 64 * 64
    assert len(calls) == 4  # read back, not measured again


def test_small_problems_and_direct_solves_run_on_the_host(two_backends):
    assert placement.backend_for(1000) == "Serial"
    assert "below the crossover of 4096" in placement.choice()["why"]
    assert placement.backend_for(10 ** 6) == "Device"
    assert "at or above the crossover" in placement.choice()["why"]
    assert placement.backend_for(10 ** 6, direct=True) == "Serial"
    assert "direct solve" in placement.choice()["why"]


def test_a_device_that_never_wins_leaves_everything_on_the_host(two_backends, monkeypatch):
    monkeypatch.setattr(placement, "_seconds_per_step",
                        lambda backend, n: 1.0 if backend == "Serial" else 2.0)
    assert placement.crossover() is None
    assert placement.backend_for(10 ** 7) == "Serial"
    assert "never faster" in placement.choice()["why"]


def test_the_crossover_and_the_backend_can_be_given(two_backends, monkeypatch):
    calls, _ = two_backends
    monkeypatch.setenv("KFVM_PLACEMENT_CROSSOVER", "100")
    assert placement.backend_for(99) == "Serial" and placement.backend_for(100) == "Device"
    monkeypatch.setenv("KFVM_PLACEMENT_CROSSOVER", "never")
    assert placement.backend_for(10 ** 7) == "Serial"
    assert calls == []  # nothing measured
    monkeypatch.setenv("KFVM_PLACEMENT_CROSSOVER", "many")
    with pytest.raises(kfvm.Error, match="KFVM_PLACEMENT_CROSSOVER.*'many'"):
        placement.backend_for(10)
    monkeypatch.setenv("KFVM_BACKEND", "Device")
    assert placement.backend_for(10) == "Device" and placement.choice()["why"] == "named"
    assert placement.backend_for(10, named="Serial") == "Serial"


def test_a_mesh_runs_where_placement_puts_it(monkeypatch):
    monkeypatch.delenv("KFVM_BACKEND", raising=False)
    monkeypatch.setenv("KFVM_PLACEMENT_CROSSOVER", "0")
    mesh = kfvm.Grid2D(nx=4, ny=3)
    assert mesh.backend == _kfvm.default_backend
    with pytest.raises(kfvm.Error, match="backend 'Nowhere' is not in this build"):
        kfvm.Grid2D(nx=4, ny=3, backend="Nowhere")
    monkeypatch.setenv("KFVM_BACKEND", "Nowhere")
    with pytest.raises(kfvm.Error, match="backend 'Nowhere' is not in this build"):
        kfvm.Grid2D(nx=4, ny=3)


def test_the_measurement_steps_a_real_problem_on_each_backend():
    seconds = placement._seconds_per_step(_kfvm.default_backend, 8)
    assert 0.0 < seconds < 60.0
