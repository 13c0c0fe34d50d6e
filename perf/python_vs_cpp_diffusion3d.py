#!/usr/bin/env python3
"""The Python loop of eq.solve against the C++ kfvm-diffusion3d, same settings, same
run: n^3 cells on the unit cube, phi = 0 on every side, sin(pi x) sin(pi y) sin(pi z) at
t = 0, backward Euler, CG + Jacobi to 1e-8. Runs both sides in turn (repeats times) and
compares the best seconds per step; the Python loop also runs under kfvm.ResourceWatch
(no allocation and no host-device copy in a step).

    PYTHONPATH=build/python python3 perf/python_vs_cpp_diffusion3d.py \
        --demo build/apps/kfvm-diffusion3d --n 128 --steps 10
"""

import argparse
import re
import subprocess
import sys
import time

import numpy as np

import kfvm


def cpp_run(demo, n, steps, dt):
    out = subprocess.run([demo, "--n", str(n), "--steps", str(steps), "--dt", str(dt),
                          "--every", str(10 ** 9)], check=True, capture_output=True,
                         text=True).stdout
    seconds = float(re.search(r"wall time\s+([0-9.e+-]+) s", out).group(1))
    iterations = int(re.search(r"solver iterations (\d+) total", out).group(1))
    return seconds / steps, iterations


def python_run(n, steps, dt, watch):
    mesh = kfvm.Grid3D(nx=n, ny=n, nz=n, dx=1.0 / n, dy=1.0 / n, dz=1.0 / n)
    x, y, z = mesh.cellCenters
    phi = kfvm.CellVariable(mesh, value=np.sin(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z),
                            name="phi")
    phi.constrain(0.0, mesh.exteriorFaces)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=1.0)
    solver = kfvm.Solver("cg", preconditioner="jacobi", tolerance=1e-8, max_iterations=1000)
    eq.compile(var=phi, solver=solver)  # as the C++ demo builds its stepper before timing
    iterations = 0
    counts = None
    kfvm.fence()
    start = time.perf_counter()
    for step in range(steps):
        if watch and step == 1:  # the first step sets the solver up
            w = kfvm.ResourceWatch().__enter__()
        report = eq.solve(var=phi, dt=dt, solver=solver)
        iterations += report.iterations
    kfvm.fence()
    seconds = time.perf_counter() - start
    if watch:
        w.__exit__(None, None, None)
        counts = (w.allocations, w.cross_space_copies)
    return seconds / steps, iterations, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True, help="the kfvm-diffusion3d executable")
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cpp, py = [], []
    for _ in range(args.repeats):
        cpp.append(cpp_run(args.demo, args.n, args.steps, args.dt))
        py.append(python_run(args.n, args.steps, args.dt, watch=False))
    watched = python_run(args.n, args.steps, args.dt, watch=True)
    best_cpp = min(c[0] for c in cpp)
    best_py = min(p[0] for p in py)
    ratio = best_py / best_cpp
    print("backend %s, %d^3, %d steps of dt %g, CG + Jacobi to 1e-8, %d repeats"
          % (kfvm.default_backend, args.n, args.steps, args.dt, args.repeats))
    print("C++ kfvm-diffusion3d  %.4f s per step (runs: %s), %d iterations"
          % (best_cpp, ", ".join("%.4f" % c[0] for c in cpp), cpp[0][1]))
    print("Python eq.solve loop  %.4f s per step (runs: %s), %d iterations"
          % (best_py, ", ".join("%.4f" % p[0] for p in py), py[0][1]))
    print("Python / C++          %.3f (target <= 1.05)" % ratio)
    print("in steps 2..%d: %d allocations, %d host-device copies"
          % (args.steps, watched[2][0], watched[2][1]))
    if cpp[0][1] != py[0][1]:
        sys.exit("the two loops took different iteration counts: %d vs %d" % (cpp[0][1], py[0][1]))
    if watched[2] != (0, 0):
        sys.exit("the Python loop allocated or copied inside a step")


if __name__ == "__main__":
    main()
