"""FiPy's 3D implicit diffusion, FiPy alone vs FiPy + kfvm.fipy vs kfvm's own Python API,
same machine, same run.

    PYTHONPATH=build/python:FIPY python3 perf/fipy_vs_kfvm_diffusion3d.py --n 100 --steps 10

The problem: an n^3 unit cube, phi = 1 on the left face and 0 on the right, D = 1,
backward Euler with dt = 10 dx^2, solved with CG to FiPy's default tolerance (1e-5
relative to the right-hand side). The FiPy script is the same text in both FiPy runs;
the second imports kfvm.fipy first. Time per step excludes the first step (kfvm's
compile, FiPy's first matrix); kfvm.fipy's time is split by kfvm.fipy.timings() into
FiPy's own Python work (what is not kfvm's), translation (FiPy evaluating what kfvm
reads), transfers and the solve. Prints one JSON object.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from fipy_perf_parts import kfvm_fipy_parts

os.environ.setdefault("FIPY_SOLVERS", "scipy")
os.environ.setdefault("FIPY_VIEWERS", "dummy")


def _problem(api, n):
    """The problem in FiPy's names, which kfvm's Python API shares: api is fipy or kfvm."""
    h = 1.0 / n
    mesh = api.Grid3D(nx=n, ny=n, nz=n, dx=h, dy=h, dz=h)
    phi = api.CellVariable(mesh=mesh, value=0.0, hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    phi.constrain(0.0, mesh.facesRight)
    return phi, api.TransientTerm() == api.DiffusionTerm(coeff=1.0), 10 * h * h


def _time_steps(phi, eq, solver, dt, steps, after_step=lambda step: None):
    """Seconds of each of steps + 1 backward-Euler steps (the first is the setup's)."""
    times = []
    for step in range(steps + 1):
        start = time.perf_counter()
        phi.updateOld()
        eq.solve(var=phi, dt=dt, solver=solver)
        after_step(step)
        times.append(time.perf_counter() - start)
    return times


def fipy_run(n, steps, with_kfvm):
    import fipy
    if with_kfvm:
        import kfvm.fipy as kf
        kf.activate()
        kf.reset()
    elif "kfvm.fipy" in sys.modules:
        sys.modules["kfvm.fipy"].deactivate()
    phi, eq, dt = _problem(fipy, n)
    first_parts = {}

    def after_step(step):
        if with_kfvm and step == 0:
            first_parts.update(sys.modules["kfvm.fipy"].timings())
    times = _time_steps(phi, eq, fipy.LinearCGSolver(), dt, steps, after_step)
    result = {"step_s": float(np.mean(times[1:])), "first_step_s": times[0],
              "answer": np.array(phi.value)}
    if with_kfvm:
        result.update(kfvm_fipy_parts(kf, first_parts, steps, result["step_s"]))
    return result


def native_run(n, steps):
    import kfvm
    phi, eq, dt = _problem(kfvm, n)
    solver = kfvm.Solver("cg", tolerance=1e-5, preconditioner="none")
    times = _time_steps(phi, eq, solver, dt, steps, lambda step: kfvm._kfvm.fence())
    return {"step_s": float(np.mean(times[1:])), "first_step_s": times[0],
            "answer": phi.value.copy(), "backend": phi.mesh.backend}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--fipy-steps", type=int, default=None,
                        help="steps of FiPy alone (default: --steps)")
    parser.add_argument("--skip-fipy", action="store_true")
    args = parser.parse_args()
    out = {"n": args.n, "steps": args.steps}
    import kfvm
    out["kfvm"] = {k: kfvm.info()[k] for k in ("kokkos_version", "default_backend",
                                                 "host_concurrency")}
    runs = {}
    if not args.skip_fipy:
        runs["fipy"] = fipy_run(args.n, args.fipy_steps or args.steps, False)
    runs["fipy+kfvm"] = fipy_run(args.n, args.steps, True)
    runs["kfvm-native"] = native_run(args.n, args.steps)
    # The answers, compared where the runs took the same steps (all to CG's 1e-5).
    answers = {name: r.pop("answer") for name, r in runs.items()}
    same_steps = args.fipy_steps in (None, args.steps)
    for name, a in answers.items():
        if "fipy" in answers and same_steps:
            runs[name]["max_difference_to_fipy"] = float(np.max(np.abs(a - answers["fipy"])))
    runs["kfvm-native"]["max_difference_to_fipy+kfvm"] = float(
        np.max(np.abs(answers["kfvm-native"] - answers["fipy+kfvm"])))
    out["runs"] = runs
    if "fipy" in runs:
        base = runs["fipy"]["step_s"]
        out["speedup"] = {name: base / r["step_s"] for name, r in runs.items()}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
