"""FiPy's Cahn-Hilliard example (examples/cahnHilliard/mesh2D.py, mesh3D.py; with
--form coupled mesh2DCoupled.py), FiPy alone vs FiPy + kfvm.fipy, same machine, same
script, same run.

    PYTHONPATH=build/python:FIPY python3 perf/fipy_vs_kfvm_cahn_hilliard.py --dim 2 --n 100

The script is the example's: an n^dim grid of spacing 0.25, phi from Gaussian noise
(mean 0.5, variance 0.01; one seeded draw shared by both runs), D = a = epsilon = 1,

    TransientTerm() == DiffusionTerm(D a^2 (1 - 6 PHI (1 - PHI))) - DiffusionTerm((D, epsilon^2))

with PHI = phi.arithmeticFaceValue (a face coefficient negative in the spinodal region),
stepped with the example's dt = min(100, exp(-5 + 0.01 k)) and its DefaultSolver (FiPy's
scipy LU; kfvm.fipy stands in GMRES + ILU(0) to 1e-10). Each run is its own process
with a time limit: FiPy's LU in 3D may not finish, and then the row says so. Time per
step excludes the first (kfvm's compile, FiPy's first matrix); kfvm.fipy's time is split
by kfvm.fipy.timings(). Prints one JSON object.

--form coupled is mesh2DCoupled's first form: phi and psi = f'(phi) - epsilon^2 lap(phi)
as eq1 & eq2 (TransientTerm(var=phi) == DiffusionTerm(D, var=psi); ImplicitSourceTerm(1,
var=psi) == ImplicitSourceTerm(f''(phi), var=phi) - f''(phi) phi + f'(phi) -
DiffusionTerm(epsilon^2, var=phi)), kfvm's CoupledSystem under kfvm.fipy.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from fipy_perf_parts import kfvm_fipy_parts

os.environ.setdefault("FIPY_SOLVERS", "scipy")
os.environ.setdefault("FIPY_VIEWERS", "dummy")


def _equation(form, fipy, mesh, phi):
    """The example's equation and what eq.solve takes besides dt and solver."""
    D = a = epsilon = 1.
    if form == "coupled":
        psi = fipy.CellVariable(name="psi", mesh=mesh)
        dfdphi = a**2 * phi * (1 - phi) * (1 - 2 * phi)
        d2fdphi2 = a**2 * (1 - 6 * phi * (1 - phi))
        eq1 = fipy.TransientTerm(var=phi) == fipy.DiffusionTerm(coeff=D, var=psi)
        eq2 = (fipy.ImplicitSourceTerm(coeff=1., var=psi)
               == fipy.ImplicitSourceTerm(coeff=d2fdphi2, var=phi) - d2fdphi2 * phi + dfdphi
               - fipy.DiffusionTerm(coeff=epsilon**2, var=phi))
        return eq1 & eq2, {}
    PHI = phi.arithmeticFaceValue
    return (fipy.TransientTerm()
            == fipy.DiffusionTerm(coeff=D * a**2 * (1 - 6 * PHI * (1 - PHI)))
            - fipy.DiffusionTerm(coeff=(D, epsilon**2))), {"var": phi}


def one_run(dim, n, steps, with_kfvm, answer_file, form="fourth-order"):
    """The example's loop for steps + 1 steps; returns its timings."""
    import fipy
    from fipy.tools import numerix
    if with_kfvm:
        import kfvm.fipy as kf
        kf.reset()
    if dim == 2:
        mesh = fipy.Grid2D(nx=n, ny=n, dx=0.25, dy=0.25)
    else:
        mesh = fipy.Grid3D(nx=n, ny=n, nz=n, dx=0.25, dy=0.25, dz=0.25)
    phi = fipy.CellVariable(name="phi", mesh=mesh)
    noise = np.random.default_rng(2026).normal(0.5, np.sqrt(0.01), mesh.numberOfCells)
    phi.setValue(noise)
    eq, options = _equation(form, fipy, mesh, phi)
    solver = fipy.DefaultSolver()
    dexp = -5
    times = []
    first_parts = {}
    for step in range(steps + 1):
        start = time.perf_counter()
        dt = min(100, numerix.exp(dexp))
        dexp += 0.01
        eq.solve(dt=dt, solver=solver, **options)
        times.append(time.perf_counter() - start)
        if with_kfvm and step == 0:
            first_parts = dict(kf.timings())
    result = {"step_s": float(np.mean(times[1:])), "first_step_s": times[0],
              "steps": steps}
    if with_kfvm:
        result.update(kfvm_fipy_parts(kf, first_parts, steps, result["step_s"]))
    np.save(answer_file, np.array(phi.value))
    return result


def _subprocess(args, with_kfvm, steps, answer_file):
    command = [sys.executable] + (["-m", "kfvm.fipy"] if with_kfvm else []) + [
        os.path.abspath(__file__), "--dim", str(args.dim), "--n", str(args.n),
        "--steps", str(steps), "--form", args.form, "--one", "kfvm" if with_kfvm else "fipy",
        "--answer", answer_file]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"did_not_finish_s": args.timeout}
    if done.returncode != 0:
        return {"failed": done.stderr[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dim", type=int, choices=(2, 3), default=2)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--form", choices=("fourth-order", "coupled"), default="fourth-order")
    parser.add_argument("--fipy-steps", type=int, default=None,
                        help="steps of FiPy alone (default: --steps)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds each run may take")
    parser.add_argument("--one", choices=("fipy", "kfvm"), help=argparse.SUPPRESS)
    parser.add_argument("--answer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(args.dim, args.n, args.steps, args.one == "kfvm",
                                 args.answer, args.form)))
        return
    import kfvm
    out = {"dim": args.dim, "n": args.n, "steps": args.steps, "form": args.form,
           "kfvm": {k: kfvm.info()[k] for k in ("kokkos_version", "default_backend",
                                                "host_concurrency")}}
    scratch = os.environ.get("TMPDIR", "/tmp")
    answers = {name: os.path.join(scratch, "kfvm-ch-%s-%d.npy" % (name, os.getpid()))
               for name in ("fipy", "fipy+kfvm")}
    fipy_steps = args.fipy_steps or args.steps
    runs = {"fipy": _subprocess(args, False, fipy_steps, answers["fipy"]),
            "fipy+kfvm": _subprocess(args, True, args.steps, answers["fipy+kfvm"])}
    if fipy_steps == args.steps and all("step_s" in r for r in runs.values()):
        a, b = (np.load(answers[k]) for k in ("fipy", "fipy+kfvm"))
        runs["fipy+kfvm"]["max_difference_to_fipy"] = float(np.max(np.abs(a - b)))
    for path in answers.values():
        if os.path.exists(path):
            os.remove(path)
    out["runs"] = runs
    if all("step_s" in r for r in runs.values()):
        out["speedup"] = runs["fipy"]["step_s"] / runs["fipy+kfvm"]["step_s"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
