"""A stationary 1D Allen-Cahn front.

Solves d(phi)/dt = eps^2 d2(phi)/dx2 + phi - phi^3 on -L/2 < x < L/2 with zero-flux
ends. The reaction phi - phi^3 is the source kfvm.Polynomial([0, 1, 0, -1]), which
kfvm linearizes (Newton) and sweeps at every step. The front

    phi(x) = tanh(x / (sqrt(2) eps))

is a steady solution. The run starts from a tanh twice as wide (odd in x, so the
front stays at x = 0) and takes backward-Euler steps until phi stops changing.

Checks:
  * the steps reach a steady state (max change per step below 1e-10);
  * max |phi - tanh(x / (sqrt(2) eps))| is below 0.05 (dx / eps)^2: the grid's
    error is second order, about 0.03 (dx / eps)^2 (4e-3 with --small's 2.5 cells
    per eps, 5e-5 with the full size's 25).

Run:  python3 allen_cahn1d.py [--small]
"""

import argparse
import math
import sys

import numpy as np

import kfvm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the CI size (a few seconds)")
    args = parser.parse_args()

    eps, L = 0.05, 2.0
    nx = 100 if args.small else 1000
    dx = L / nx
    dt, max_steps = 0.5, 200

    mesh = kfvm.Grid1D(nx=nx, dx=dx)
    x = mesh.x - L / 2
    width = math.sqrt(2.0) * eps
    phi = kfvm.CellVariable(mesh, value=np.tanh(x / (2.0 * width)), name="phi",
                            hasOld=True)

    eq = (kfvm.TransientTerm()
          == kfvm.DiffusionTerm(coeff=eps**2) + kfvm.Polynomial([0.0, 1.0, 0.0, -1.0]))
    solver = kfvm.Solver("cg", tolerance=1e-12)

    change = math.inf
    steps = 0
    while change > 1e-10 and steps < max_steps:
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver, sweep_tolerance=1e-12)
        change = float(np.max(np.abs(phi.value - phi.old.value)))
        steps += 1

    error = float(np.max(np.abs(phi.value - np.tanh(x / width))))
    tolerance = 0.05 * (dx / eps) ** 2
    print("allen_cahn1d: nx=%d eps/dx=%.1f  steps %d (last change %.1e, tol 1e-10)  "
          "max error %.3e (tol %.2e)" % (nx, eps / dx, steps, change, error, tolerance))
    if not change <= 1e-10:
        sys.exit("allen_cahn1d: no steady state after %d steps (change %.1e)"
                 % (steps, change))
    if not error < tolerance:
        sys.exit("allen_cahn1d: front error %.3e is above %.2e" % (error, tolerance))


if __name__ == "__main__":
    main()
