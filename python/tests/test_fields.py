"""Meshes and fields: geometry, values, zero-copy views, errors, resources, lifetime."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kfvm

HOST = kfvm.default_backend in ("Serial", "OpenMP")


def test_grid_geometry_uniform_and_not():
    mesh = kfvm.Grid2D(nx=3, ny=2, dx=[1.0, 2.0, 3.0], dy=0.5)
    assert mesh.shape == (3, 2) and mesh.numberOfCells == 6
    assert np.allclose(mesh.cellCenters[0][:3], [0.5, 2.0, 4.5])
    assert np.allclose(mesh.cellVolumes[:3], [0.5, 1.0, 1.5])
    assert len(mesh.facesLeft) == 2 and len(mesh.facesTop) == 3
    assert len(mesh.exteriorFaces) == 10 and len(mesh.interiorFaces) == mesh.numberOfFaces - 10
    assert np.allclose(mesh.faceNormals[:, mesh.facesLeft.indices], [[-1, -1], [0, 0]])
    mesh3 = kfvm.Grid3D(nx=2, ny=2, nz=3)
    z = mesh3.faceCenters[2]
    assert np.all(z[mesh3.facesFront.indices] == 0) and np.all(z[mesh3.facesBack.indices] == 3)


def test_values_assignment_and_old():
    mesh = kfvm.Grid1D(nx=4)
    phi = kfvm.CellVariable(mesh, value=[1, 2, 3, 4], name="phi", hasOld=True)
    assert phi.value.tolist() == [1, 2, 3, 4]
    phi.value = 7
    assert phi.old.value.tolist() == [1, 2, 3, 4]
    phi.updateOld()
    assert phi.old.value.tolist() == [7] * 4
    phi.setValue(0.5, where=mesh.x > 2)
    assert phi.value.tolist() == [7, 7, 0.5, 0.5]


def test_bad_arguments_raise_kfvm_errors_not_crashes():
    mesh = kfvm.Grid1D(nx=4)
    other = kfvm.Grid1D(nx=4)
    phi = kfvm.CellVariable(mesh)
    for bad in (lambda: phi.setValue(np.zeros(5)),
                lambda: phi.setValue(np.zeros((2, 2))),
                lambda: phi.setValue([1, np.nan, 0, 0]),
                lambda: phi.setValue("text"),
                lambda: phi.constrain(1.0, mesh.interiorFaces),
                lambda: phi.constrain(np.ones(3), mesh.facesLeft),
                lambda: phi.constrain(np.inf, mesh.facesLeft),
                lambda: kfvm.Grid1D(nx=0),
                lambda: kfvm.Grid1D(nx=3, dx=[1, 2]),
                lambda: kfvm.Grid1D(nx=2, dx=-1),
                lambda: kfvm.Grid1D(nx=2, backend="NoSuchBackend"),
                lambda: kfvm.Solver(3),
                lambda: kfvm.Polynomial([]),
                lambda: kfvm.Polynomial([float("nan")]),
                lambda: kfvm.ConvectionTerm(coeff=(1,), scheme="quick"),
                lambda: (kfvm.DiffusionTerm(coeff=-1.0) == 0).solve(var=phi),
                lambda: (kfvm.DiffusionTerm(coeff=kfvm.CellVariable(other)) == 0).solve(var=phi),
                lambda: (kfvm.DiffusionTerm() == 0).solve(var=phi, solver="nosuch"),
                lambda: (kfvm.DiffusionTerm() == 0).solve(var=phi, solver=kfvm.Solver("cg", colour=3)),
                lambda: (kfvm.TransientTerm() == kfvm.DiffusionTerm()).solve(var=phi, dt=-1.0),
                lambda: (kfvm.TransientTerm() == kfvm.DiffusionTerm()).solve(var=phi, dt=1.0, scheme="magic"),
                lambda: (kfvm.TransientTerm() == kfvm.DiffusionTerm()).solve(var=3, dt=1.0),
                lambda: kfvm.write_vtk("/nonexistent/dir/f.vtr", phi)):
        with pytest.raises(kfvm.Error):
            bad()


def test_error_messages_are_the_cpp_ones():
    mesh = kfvm.Grid1D(nx=4)
    phi = kfvm.CellVariable(mesh)
    with pytest.raises(kfvm.Error, match="unknown solver 'nosuch' \\(known: cg, fcg, bicgstab, gmres, fgmres"):
        (kfvm.DiffusionTerm() == 0).solve(var=phi, solver="nosuch")
    with pytest.raises(ValueError, match="cannot open '/nonexistent/f.vtr.tmp' for writing"):
        kfvm.write_vtk("/nonexistent/f.vtr", phi)


@pytest.mark.skipif(not HOST, reason="the buffer protocol and numpy.from_dlpack are host-side")
def test_numpy_views_alias_the_field_memory():
    mesh = kfvm.Grid1D(nx=5)
    phi = kfvm.CellVariable(mesh, value=1.0)
    a = np.from_dlpack(phi)
    b = np.asarray(phi)  # the buffer protocol
    assert a.__array_interface__["data"][0] == phi._field.data_pointer
    assert b.__array_interface__["data"][0] == phi._field.data_pointer
    b[2] = 5.0                       # write through the buffer view ...
    assert a[2] == 5.0 and phi.value[2] == 5.0  # ... read through DLPack and kfvm
    phi.value = 3.0                  # write through kfvm ...
    assert a[0] == 3.0 and b[4] == 3.0  # ... read through both views
    (kfvm.TransientTerm() == kfvm.ImplicitSourceTerm(-1.0)).solve(var=phi, dt=1.0)
    assert abs(a[0] - 1.5) < 1e-6    # a solve writes the same memory
    assert phi.__dlpack_device__() == (1, 0)


def test_dlpack_capsule_outlives_its_variable():
    mesh = kfvm.Grid1D(nx=3)
    phi = kfvm.CellVariable(mesh, value=2.0)
    capsule = phi.__dlpack__()
    del phi
    if HOST:
        class Holder:
            def __dlpack__(self, **kwargs):
                return capsule

            def __dlpack_device__(self):
                return (1, 0)
        assert np.from_dlpack(Holder()).tolist() == [2.0] * 3


def test_a_time_step_allocates_nothing_and_copies_nothing():
    mesh = kfvm.Grid3D(nx=12, ny=10, nz=8, dx=0.1, dy=0.1, dz=0.1)
    D = kfvm.CellVariable(mesh, value=0.5)
    phi = kfvm.CellVariable(mesh, value=1.0, hasOld=True)
    phi.constrain(2.0, mesh.facesLeft)
    phi.constrainRobin(1.0, 0.5, 0.2, mesh.facesTop)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=D) + kfvm.ImplicitSourceTerm(-0.1) + 0.3
    tolerance = 1e-8 if kfvm.real_type == "float64" else 1e-6
    for scheme, name in (("be", "cg"), ("cn", "bicgstab"), ("be", "gmres")):
        solver = kfvm.Solver(name, tolerance=tolerance)
        for _ in range(2):  # warm-up: setup allocates
            phi.updateOld()
            eq.solve(var=phi, dt=0.01, scheme=scheme, solver=solver)
        with kfvm.ResourceWatch() as watch:
            for _ in range(5):
                phi.updateOld()
                eq.solve(var=phi, dt=0.01, scheme=scheme, solver=solver)
        assert watch.allocations == 0, watch.first_allocation
        assert watch.cross_space_copies == 0, watch.first_copy
    with kfvm.ResourceWatch() as watch:
        phi.value  # asking for values copies on a GPU, not on the host
    assert watch.cross_space_copies == (0 if HOST else 1)


def test_objects_alive_at_exit_do_not_crash_the_interpreter():
    script = textwrap.dedent("""
        import numpy as np, kfvm
        mesh = kfvm.Grid2D(nx=8, ny=8)
        phi = kfvm.CellVariable(mesh, value=1.0, hasOld=True)
        eq = kfvm.TransientTerm() == kfvm.DiffusionTerm()
        eq.solve(var=phi, dt=0.1)
        capsule = phi.__dlpack__()
        view = np.from_dlpack(phi) if kfvm.default_backend in ("Serial", "OpenMP") else None
        cycle = [phi]; cycle.append(cycle)
        print("ok", kfvm.is_initialized())
    """)
    env = dict(os.environ, OMP_PROC_BIND="false")  # else Kokkos' OpenMP warns on stderr
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok True" and done.stderr == ""


def test_initialize_after_start_with_other_settings_is_an_error():
    kfvm.Grid1D(nx=2)
    threads = kfvm.info()["host_concurrency"]
    kfvm.initialize()  # the same (defaults): fine
    with pytest.raises(kfvm.Error, match="must come before"):
        kfvm.initialize(num_threads=threads + 1)


def test_info():
    info = kfvm.info()
    assert info["default_backend"] == kfvm.default_backend
    assert set(kfvm.backends) <= set(info["kokkos_execution_spaces"])
    assert info["kfvm_version"] == kfvm.__version__


@pytest.mark.parametrize("backend", kfvm.backends)
def test_every_backend_of_the_build_gives_the_same_answer(backend):
    answers = []
    for b in (backend, kfvm.default_backend):
        mesh = kfvm.Grid2D(nx=9, ny=7, dx=0.1, dy=0.2, backend=b)
        phi = kfvm.CellVariable(mesh, value=mesh.x * mesh.y)
        phi.constrain(1.0, mesh.facesLeft)
        eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(0.3) + kfvm.ImplicitSourceTerm(-0.2)
        for _ in range(3):
            eq.solve(var=phi, dt=0.05, solver=kfvm.Solver("cg", tolerance=1e-12))
        assert mesh.backend == b
        answers.append(phi.value)
    assert np.max(np.abs(answers[0] - answers[1])) < 1e-6
