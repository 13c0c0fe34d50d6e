"""2D Cahn-Hilliard spinodal decomposition (after FiPy's examples/cahnHilliard/mesh2D).

Solves d(phi)/dt = div(D grad(mu)), mu = f'(phi) - eps^2 div(grad(phi)), with the
double well f(phi) = (phi^2 - 1)^2 / 4, on a square with zero-flux walls, from small
seeded noise around phi = 0. As FiPy writes it:

    TransientTerm() == DiffusionTerm(coeff=D f''(phi)) - DiffusionTerm(coeff=(D, eps^2))

with f''(phi) = 3 phi^2 - 1 as kfvm.Polynomial([-1, 0, 3]) (scaled by D). kfvm builds
the fourth-order operator and sweeps the nonlinear part (Newton) at every
backward-Euler step; the steps grow from 0.01 to 1. The grid has dx = eps / 2 (FiPy's
eps / 4): the matrix's condition number grows as dt / dx^4, and this keeps GMRES with
a Jacobi preconditioner fast.

Checks:
  * mass: the change of sum(phi * volume), relative to the total volume (phi is of
    order 1), stays below 1e-8;
  * the free energy F = sum(f(phi) V) + eps^2 / 2 sum over faces of
    |grad phi|^2 V_face never increases from one step to the next (to 1e-10 of |F|);
  * the noise has separated into phases (max phi > 0.7 and min phi < -0.7, as
    FiPy's test);
  * the PNG written by kfvm.write_png to --output exists and is a non-empty PNG.

Run:  python3 cahn_hilliard2d.py [--small] [--output DIR]
"""

import argparse
import os
import sys

import numpy as np

import kfvm


def free_energy(phi, eps):
    """Bulk energy of the cells plus the gradient energy of the interior faces."""
    mesh = phi.mesh
    values = phi.value
    bulk = np.sum(0.25 * (values**2 - 1.0) ** 2 * mesh.cellVolumes)
    owner, neighbour = mesh.faceCellIDs
    interior = neighbour >= 0
    a, b = owner[interior], neighbour[interior]
    distance = np.linalg.norm(mesh.cellCenters[:, a] - mesh.cellCenters[:, b], axis=0)
    gradient = (values[b] - values[a]) / distance
    face_volume = mesh.faceAreas[interior] * distance
    return float(bulk + 0.5 * eps**2 * np.sum(gradient**2 * face_volume))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the CI size (a few seconds)")
    parser.add_argument("--output", default="./cahn-hilliard2d-output",
                        help="folder for the PNG (default: %(default)s)")
    args = parser.parse_args()

    # FiPy's D = a = epsilon = 1, on a grid twice as coarse (dx = 0.5).
    D, eps, h = 1.0, 1.0, 0.5
    n = 32 if args.small else 64
    steps = 100
    mesh = kfvm.Grid2D(nx=n, ny=n, dx=h, dy=h)

    noise = np.random.default_rng(seed=2024).normal(0.0, 0.05, mesh.numberOfCells)
    phi = kfvm.CellVariable(mesh, value=noise, name="phi", hasOld=True)

    f2 = kfvm.Polynomial([-D, 0.0, 3.0 * D])  # D f''(phi) = D (3 phi^2 - 1)
    eq = (kfvm.TransientTerm()
          == kfvm.DiffusionTerm(coeff=f2) - kfvm.DiffusionTerm(coeff=(D, eps**2)))
    # ILU(0) does not suit the fourth-order matrix (GMRES stagnates with it); Jacobi,
    # given enough iterations, does.
    solver = kfvm.Solver("gmres", preconditioner="jacobi", restart=50,
                         max_iterations=20000, tolerance=1e-10)

    volume = float(np.sum(mesh.cellVolumes))
    mass0 = phi.integrate()
    energies = [free_energy(phi, eps)]
    mass_drift = 0.0
    for step in range(steps):
        dt = min(1.0, 0.01 * 1.1**step)
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver)
        mass_drift = max(mass_drift, abs(phi.integrate() - mass0) / volume)
        energies.append(free_energy(phi, eps))

    rises = np.diff(energies)
    worst_rise = float(np.max(rises)) / abs(energies[0])

    os.makedirs(args.output, exist_ok=True)
    png = os.path.join(args.output, "phi.png")
    kfvm.write_png(png, phi)
    with open(png, "rb") as image:
        is_png = image.read(8) == b"\x89PNG\r\n\x1a\n"
    png_bytes = os.path.getsize(png)

    print("cahn_hilliard2d: %dx%d steps=%d  mass drift %.2e (tol 1e-8)  energy %.4g -> "
          "%.4g, largest rise %.2e (tol 1e-10)  phi in [%.3f, %.3f]  %s: %d bytes"
          % (n, n, steps, mass_drift, energies[0], energies[-1], worst_rise,
             phi.min(), phi.max(), png, png_bytes))
    if not mass_drift < 1e-8:
        sys.exit("cahn_hilliard2d: mass changed by %.2e" % mass_drift)
    if not worst_rise <= 1e-10:
        sys.exit("cahn_hilliard2d: the free energy rose by %.2e" % worst_rise)
    if not (phi.max() > 0.7 and phi.min() < -0.7):
        sys.exit("cahn_hilliard2d: no phase separation (phi in [%.3f, %.3f])"
                 % (phi.min(), phi.max()))
    if not (is_png and png_bytes > 0):
        sys.exit("cahn_hilliard2d: %s is not a non-empty PNG" % png)


if __name__ == "__main__":
    main()
