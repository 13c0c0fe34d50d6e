"""Transient and steady 1D diffusion (FiPy's examples/diffusion/mesh1D).

Solves d(phi)/dt = D d2(phi)/dx2 on 0 < x < L, starting from phi = 0, with phi = 1 at
x = 0 and phi = 0 at x = L, by backward-Euler steps. While the front has not reached
the right end the domain is as good as semi-infinite, and the solution is

    phi(x, t) = erfc(x / (2 sqrt(D t))).

Checks:
  * after the steps, max |phi - erfc(...)| below 1e-2 (the error of backward Euler
    and of the grid at these sizes is a few 1e-3);
  * the steady solution (dt=None) is the straight line phi = 1 - x / L to 1e-8.

Run:  python3 diffusion1d.py [--small]
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

    # FiPy's problem: L = 50, D = 1, up to t = 45. --small keeps FiPy's grid (50 cells)
    # and time step; the full size refines both.
    L, D, t_end = 50.0, 1.0, 45.0
    nx = 50 if args.small else 400
    steps = 100 if args.small else 800
    dx = L / nx
    dt = t_end / steps

    mesh = kfvm.Grid1D(nx=nx, dx=dx)
    phi = kfvm.CellVariable(mesh, value=0.0, name="phi", hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    phi.constrain(0.0, mesh.facesRight)

    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=D)
    solver = kfvm.Solver("cg", tolerance=1e-10)
    for _ in range(steps):
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver)

    x = mesh.x
    erfc = np.vectorize(math.erfc)
    exact = erfc(x / (2.0 * math.sqrt(D * t_end)))
    transient_error = float(np.max(np.abs(phi.value - exact)))

    # The steady state: dt=None solves the equation without its time derivative.
    eq.solve(var=phi, dt=None, solver=solver)
    steady_error = float(np.max(np.abs(phi.value - (1.0 - x / L))))

    print("diffusion1d: nx=%d steps=%d  transient max error %.3e (tol 1e-2)  "
          "steady max error %.3e (tol 1e-8)" % (nx, steps, transient_error, steady_error))
    if not transient_error < 1e-2:
        sys.exit("diffusion1d: transient error %.3e is above 1e-2" % transient_error)
    if not steady_error < 1e-8:
        sys.exit("diffusion1d: steady error %.3e is above 1e-8" % steady_error)


if __name__ == "__main__":
    main()
