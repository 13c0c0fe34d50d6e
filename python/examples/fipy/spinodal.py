"""A plain FiPy script (it imports nothing of kfvm): spinodal decomposition by
Cahn-Hilliard in FiPy's own style, with a residual-controlled time step.

    dc/dt = div(M f''(c) grad c) - div(M grad(kappa lap c)),  f = (c (1 - c))^2 / 2

FiPy's LU solves each sweep (LinearLUSolver; --solver default names none, so FiPy,
and kfvm.fipy, choose); a step makes three sweeps, and is
accepted when the sweeps' residual falls (the third below the first, and below
--tolerance):
then dt grows by 10%; otherwise the step is rejected, c goes back to its old values
and dt shrinks to 0.8 dt. The run ends when dt reaches --until-dt (or after --steps
tries). Each try prints one line: try, accepted or rejected, t, dt, the sweeps'
residuals and the free energy.

    python3 spinodal.py [--mesh bounded|periodic|joined] [--n 24] [--until-dt 1]
    python3 -m kfvm.fipy spinodal.py ...     the same script, its equations on kfvm

--mesh joined is a T-shaped domain: two Grid2Ds joined along a shared edge (a general
mesh in FiPy and in kfvm).
"""

import argparse
import time

from fipy import (CellVariable, DiffusionTerm, Grid2D, LinearLUSolver, PeriodicGrid2D,
                  TransientTerm)
from fipy.tools import numerix
import numpy as np

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--mesh", choices=("bounded", "periodic", "joined"), default="bounded")
parser.add_argument("--n", type=int, default=24, help="cells along a side")
parser.add_argument("--until-dt", type=float, default=1.0)
parser.add_argument("--steps", type=int, default=1000, help="tries at most")
parser.add_argument("--dt", type=float, default=0.01, help="the first dt")
parser.add_argument("--seed", type=int, default=2026)
parser.add_argument("--solver", choices=("lu", "default"), default="lu",
                    help="FiPy's LinearLUSolver, or no solver named (FiPy's default)")
parser.add_argument("--tolerance", type=float, default=1e-3,
                    help="the third sweep's residual must fall below it")
args = parser.parse_args()

n, dx = args.n, 1.0
if args.mesh == "bounded":
    mesh = Grid2D(nx=n, ny=n, dx=dx, dy=dx)
elif args.mesh == "periodic":
    mesh = PeriodicGrid2D(nx=n, ny=n, dx=dx, dy=dx)
else:  # a bar of n x n/2 cells with a stem of n/2 x n/2 below its middle
    bar = Grid2D(nx=n, ny=n // 2, dx=dx, dy=dx) + [[0.0], [n // 2 * dx]]
    stem = Grid2D(nx=n // 2, ny=n // 2, dx=dx, dy=dx) + [[n // 4 * dx], [0.0]]
    mesh = bar + stem

M, kappa = 1.0, 1.0
rng = np.random.RandomState(args.seed)
c = CellVariable(mesh=mesh, name="c", hasOld=True,
                 value=0.5 + 0.05 * (2 * rng.random_sample(mesh.numberOfCells) - 1))
second = M * (1 - 6 * c.arithmeticFaceValue * (1 - c.arithmeticFaceValue))  # M f''(c)
eq = TransientTerm() == DiffusionTerm(coeff=second) - DiffusionTerm(coeff=(M, kappa))
solver = LinearLUSolver() if args.solver == "lu" else None


def free_energy():
    values = numerix.asarray(c.value)
    gradient = numerix.asarray(c.grad.value)
    density = 0.5 * (values * (1 - values)) ** 2 + 0.5 * kappa * (gradient ** 2).sum(axis=0)
    return float((density * numerix.asarray(mesh.cellVolumes)).sum())


t, dt, accepted, tries = 0.0, args.dt, 0, 0
start = time.perf_counter()
while dt < args.until_dt and tries < args.steps:
    c.updateOld()
    residuals = [eq.sweep(var=c, dt=dt, solver=solver) for _ in range(3)]
    ok = residuals[-1] < residuals[0] and residuals[-1] < args.tolerance
    if ok:
        t += dt
        accepted += 1
    else:
        c.setValue(c.old)
    print("try %3d %-8s t %.10f dt %.10f residuals %.3e %.3e %.3e energy %.12e"
          % (tries, "accepted" if ok else "rejected", t, dt, residuals[0], residuals[1],
             residuals[2], free_energy()), flush=True)
    tries += 1
    dt = dt * 1.1 if ok else dt * 0.8
seconds = time.perf_counter() - start
print("%s mesh of %d cells: %d tries, %d accepted, t %.6f, dt %.6f, %.3f s, %.4f s a try"
      % (args.mesh, mesh.numberOfCells, tries, accepted, t, dt, seconds,
         seconds / max(tries, 1)))
