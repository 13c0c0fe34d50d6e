"""VTK, PNG, probes and checkpoints from Python."""

import os

import numpy as np
import pytest

import kfvm


def test_vtk_series_and_png(tmp_path):
    mesh = kfvm.Grid2D(nx=6, ny=4)
    phi = kfvm.CellVariable(mesh, value=mesh.x, name="phi")
    series = kfvm.VtkSeries(tmp_path, "run")
    series.write([phi], 0.0)
    series.write(phi, 0.5)
    text = open(series.pvd).read()
    assert 'timestep="0.5"' in text and "run_000001.vtr" in text
    assert "phi" in open(tmp_path / "run_000000.vtr").read()
    if kfvm._kfvm.has_png:
        kfvm.write_png(tmp_path / "phi.png", phi)
        assert open(tmp_path / "phi.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_probes(tmp_path):
    mesh = kfvm.Grid1D(nx=10, dx=0.1)
    phi = kfvm.CellVariable(mesh, value=mesh.x, name="phi")
    probes = kfvm.Probes(phi, [0.05, 0.52], path=tmp_path / "p.csv")
    assert np.allclose(probes.record(1.0), [[0.05, 0.55]])
    lines = open(tmp_path / "p.csv").read().splitlines()
    assert lines[0].startswith("time,phi@") and lines[1].startswith("1,")
    with pytest.raises(kfvm.Error):
        kfvm.Probes(phi, [2.0])


def test_checkpoint_round_trip_and_refusals(tmp_path):
    mesh = kfvm.Grid2D(nx=5, ny=3)
    phi = kfvm.CellVariable(mesh, value=np.arange(15.0), name="phi")
    mu = kfvm.CellVariable(mesh, value=-1.0, name="mu")
    path = tmp_path / "state.h5"
    try:
        kfvm.save_checkpoint(path, [phi, mu], time=1.5, step=3, dt=0.5)
    except kfvm.Error as error:
        if "without HDF5" in str(error):
            pytest.skip(str(error))
        raise
    phi.value, mu.value = 0.0, 0.0
    state = kfvm.load_checkpoint(path, [phi, mu])
    assert state == {"time": 1.5, "step": 3, "dt": 0.5}
    assert phi.value.tolist() == list(np.arange(15.0)) and mu.value.tolist() == [-1.0] * 15
    with pytest.raises(kfvm.Error, match="belongs to"):
        other = kfvm.Grid2D(nx=5, ny=4)
        kfvm.load_checkpoint(path, [kfvm.CellVariable(other, name="phi"),
                                    kfvm.CellVariable(other, name="mu")])
    data = bytearray(open(path, "rb").read())
    data[-20] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(kfvm.Error, match="state.h5"):
        kfvm.load_checkpoint(path, [phi, mu])
