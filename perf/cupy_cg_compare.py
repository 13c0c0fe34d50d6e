#!/usr/bin/env python3
"""One backward-Euler diffusion step with CuPy's CG, side by side with kfvm.

The system is kfvm-bench's: the 7-point finite-volume matrix of d(phi)/dt = lap(phi) on
n^3 cells of the unit cube, Dirichlet 0 on all six faces, dt = h^2, so that every row is
scaled by the cell volume h^3: diagonal h^3/dt + sum of face coefficients (h between
cells, 2h to a Dirichlet face), off-diagonals -h; right-hand side h^3/dt times the
field sin(3x) sin(2y + z). Solved to rtol 1e-8 from that field as initial guess (kfvm's
ImplicitStepper does the same).

    python3 perf/cupy_cg_compare.py --n 256 --kfvm-json bench-cuda.json
    python3 perf/cupy_cg_compare.py --n 256 --poisson

With --poisson the system is issue 20's steady Poisson problem instead, as
kfvm-solver-bench --problem poisson assembles it: the same matrix without the mass
term, right-hand side h^3 (-lap u = 1), from a zero guess. The first form prints CuPy's median time and iterations and, given kfvm-bench's JSON of the same run,
kfvm's backward-Euler step time and the speed-up.
"""
import argparse
import inspect
import json
import time

import cupy as cp
import cupyx.scipy.sparse as sparse
import cupyx.scipy.sparse.linalg as linalg


def one_dimensional(n, h):
    main = cp.full(n, 2 * h)
    main[0] = main[-1] = h + 2 * h  # one interior face, one Dirichlet face at h/2
    off = cp.full(n - 1, -h)
    return sparse.diags([off, main, off], [-1, 0, 1], format="csr")


def system(n, poisson=False):
    h = 1.0 / n
    eye = sparse.identity(n, format="csr")
    T = one_dimensional(n, h)
    K = (sparse.kron(sparse.kron(eye, eye), T) + sparse.kron(sparse.kron(eye, T), eye)
         + sparse.kron(sparse.kron(T, eye), eye))
    mass = 0.0 if poisson else h ** 3 / (h * h)
    A = (K + mass * sparse.identity(n ** 3, format="csr")).tocsr()
    if poisson:
        return A, cp.full(n ** 3, h ** 3), cp.zeros(n ** 3)
    c = cp.arange(n) * h + h / 2
    # kfvm-bench's field: sin(3x) sin(2y + z), cell (i, j, k) at index i + n (j + n k)
    z, y, x = cp.meshgrid(c, c, c, indexing="ij")
    phi = (cp.sin(3 * x) * cp.sin(2 * y + z)).ravel()
    return A, mass * phi, phi


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kfvm-json", default=None)
    parser.add_argument("--poisson", action="store_true")
    args = parser.parse_args()
    A, b, guess = system(args.n, args.poisson)
    iterations = [0]
    # CuPy follows SciPy, which renamed tol to rtol.
    tolerance_name = "rtol" if "rtol" in inspect.signature(linalg.cg).parameters else "tol"

    def count(_):
        iterations[0] += 1

    times = []
    for r in range(args.repeat + 1):
        iterations[0] = 0
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        x, info = linalg.cg(A, b, x0=guess.copy(), atol=0, maxiter=5000, callback=count,
                            **{tolerance_name: 1e-8})
        cp.cuda.Device().synchronize()
        if r > 0:
            times.append(time.perf_counter() - start)
    residual = float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))
    cupy_ms = sorted(times)[len(times) // 2] * 1e3
    print(f"CuPy {cp.__version__} cg, {'Poisson' if args.poisson else 'step'}, "
          f"{args.n}^3, rtol 1e-8: {cupy_ms:.1f} ms "
          f"(median of {args.repeat}), {iterations[0]} iterations, info {info}, "
          f"relative residual {residual:.2e}")
    if args.kfvm_json:
        results = json.load(open(args.kfvm_json))["results"]
        steps = [r for r in results
                 if r["kernel"].startswith("backward-Euler") and r["n"] == args.n]
        if steps:
            kfvm_ms = steps[0]["seconds"] * 1e3
            print(f"kfvm {steps[0]['kernel']}: {kfvm_ms:.1f} ms -> kfvm is "
                  f"{cupy_ms / kfvm_ms:.1f}x faster than CuPy's cg on the same system")


if __name__ == "__main__":
    main()
