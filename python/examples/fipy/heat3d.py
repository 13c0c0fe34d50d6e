"""A plain FiPy script (it imports nothing of kfvm): 3D heat conduction in a unit cube
held at 1 on the left and 0 on the right, stepped with backward Euler, then solved
steady and checked against the exact profile 1 - x.

    python3 heat3d.py [n]                 FiPy alone
    python3 -m kfvm.fipy heat3d.py [n]    the same script, its equations on kfvm
"""

import sys
import time

from fipy import CellVariable, DiffusionTerm, Grid3D, LinearCGSolver, TransientTerm
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
h = 1.0 / n
mesh = Grid3D(nx=n, ny=n, nz=n, dx=h, dy=h, dz=h)
phi = CellVariable(mesh=mesh, value=0.0, hasOld=True, name="temperature")
phi.constrain(1.0, mesh.facesLeft)
phi.constrain(0.0, mesh.facesRight)

eq = TransientTerm() == DiffusionTerm(coeff=1.0)
solver = LinearCGSolver(tolerance=1e-10, iterations=5000)
start = time.perf_counter()
for step in range(10):
    phi.updateOld()
    eq.solve(var=phi, dt=10 * h * h, solver=solver)
elapsed = time.perf_counter() - start
print("%d^3 cells: 10 backward-Euler steps in %.3f s; mean temperature %.6f"
      % (n, elapsed, float(phi.cellVolumeAverage)))

DiffusionTerm(coeff=1.0).solve(var=phi, solver=solver)
error = float(np.max(np.abs(np.asarray(phi.value) - (1.0 - np.asarray(mesh.x)))))
print("steady: max |phi - (1 - x)| = %.2e" % error)
sys.exit(0 if error < 1e-6 else 1)
