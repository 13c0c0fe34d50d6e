"""3D diffusion on the default backend (the GPU on a CUDA build), read without a copy.

Solves d(phi)/dt = D div(grad(phi)) on the unit cube from phi = 0, with phi = 1 on
x = 0, phi = 0 on x = 1 and zero flux on the other faces, by backward-Euler steps,
then the steady state (dt=None). The problem is 1D in x: at time t

    phi = 1 - x - sum_k 2 / (k pi) sin(k pi x) exp(-D k^2 pi^2 t),

and the steady state is the straight line 1 - x.

The field is read where it lives, without a copy: cupy.from_dlpack(phi) on a CUDA
backend (when CuPy is installed; else only the pointer of phi.__cuda_array_interface__
is checked), numpy.from_dlpack(phi) on host backends.

Checks:
  * the array's data pointer is the field's own (phi._field.data_pointer): no copy;
  * phi is the same in every (y, z) column to 1e-10 (the problem is 1D);
  * after the steps, max |phi - series| below 1e-2 (time and grid error);
  * the steady solution is 1 - x to 1e-8, and its max, computed on the zero-copy
    array, is 1 - dx / 2 (the cell next to x = 0) to 1e-8.

Run:  python3 diffusion3d_gpu.py [--small]
"""

import argparse
import math
import sys

import numpy as np

import kfvm


def zero_copy_view(phi):
    """(array, its data pointer, how): the field's own memory as a CuPy array on a CUDA
    backend or a NumPy array on a host one. Without CuPy the array is None and the
    pointer is the one the CUDA array interface hands out."""
    backend = phi.mesh.backend
    if backend == "Cuda":
        try:
            import cupy
        except ImportError:
            return None, phi.__cuda_array_interface__["data"][0], "__cuda_array_interface__"
        array = cupy.from_dlpack(phi)
        return array, array.data.ptr, "cupy.from_dlpack"
    if backend in ("Serial", "OpenMP", "Threads"):
        array = np.from_dlpack(phi)
        return array, array.__array_interface__["data"][0], "numpy.from_dlpack"
    return None, None, "no view on %s" % backend


def series(x, t, D, terms=200):
    k = np.arange(1, terms + 1)[:, None]
    modes = 2.0 / (k * math.pi) * np.sin(k * math.pi * x) * np.exp(-D * (k * math.pi) ** 2 * t)
    return 1.0 - x - modes.sum(axis=0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the CI size (a few seconds)")
    args = parser.parse_args()

    n = 16 if args.small else 64
    D, t_end, steps = 1.0, 0.1, 40
    dt = t_end / steps
    mesh = kfvm.Grid3D(nx=n, ny=n, nz=n, dx=1.0 / n, dy=1.0 / n, dz=1.0 / n)
    phi = kfvm.CellVariable(mesh, value=0.0, name="phi", hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    phi.constrain(0.0, mesh.facesRight)

    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=D)
    solver = kfvm.Solver("cg", preconditioner="jacobi", tolerance=1e-12,
                         max_iterations=10000)
    for _ in range(steps):
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver)

    x = mesh.x  # cells run x fastest, then y, then z
    values = phi.value  # on a GPU a host copy; on a host backend the field itself
    columns = values.reshape(n * n, n)
    spread = float(np.max(np.abs(columns - columns[0])))
    transient_error = float(np.max(np.abs(values - series(x, t_end, D))))

    eq.solve(var=phi, dt=None, solver=solver)
    steady_error = float(np.max(np.abs(phi.value - (1.0 - x))))

    array, pointer, view = zero_copy_view(phi)
    failures = []
    if pointer is not None and pointer != phi._field.data_pointer:
        failures.append("%s gave a copy (pointer %#x, the field's %#x)"
                        % (view, pointer, phi._field.data_pointer))
    top = float(phi.max() if array is None else array.max())
    max_error = abs(top - (1.0 - 0.5 / n))

    print("diffusion3d_gpu: %d^3 on %s, %s zero-copy %s  column spread %.1e (tol 1e-10)  "
          "transient error %.3e (tol 1e-2)  steady error %.2e, max error %.2e (tol 1e-8)"
          % (n, mesh.backend, view, "-" if pointer is None else "ok" if not failures else "FAILED",
             spread, transient_error, steady_error, max_error))
    if not spread < 1e-10:
        failures.append("phi varies across y, z by %.1e" % spread)
    if not transient_error < 1e-2:
        failures.append("transient error %.3e is above 1e-2" % transient_error)
    if not (steady_error < 1e-8 and max_error < 1e-8):
        failures.append("steady error %.2e / max error %.2e above 1e-8"
                        % (steady_error, max_error))
    if failures:
        sys.exit("diffusion3d_gpu: " + "; ".join(failures))


if __name__ == "__main__":
    main()
