#!/usr/bin/env python3
"""The constant-coefficient 7-point apply: a hand-written Numba CUDA kernel side by side
with kfvm's matrix-free stencil, in the same run.

The operator is kfvm-bench's backward-Euler matrix: d(phi)/dt = lap(phi) on n^3 cells of
the unit cube, Dirichlet 0 on all six faces, dt = h^2, every row scaled by the cell
volume h^3. Row of cell P: (h + sum of its face coefficients) x_P - h * (sum of its
neighbours' x), the face coefficient h between cells and 2h to a Dirichlet face. The
Numba kernel computes the diagonal in registers from the count of boundary faces, so it
reads x and writes y: 16 bytes a cell in double, the least any apply can move. kfvm's
stencil reads its diagonal array at the boundary cells only (the interior diagonal is
one number, StencilOperator::uniformInteriorDiagonal()).

    kfvm-bench --sizes 256,512 --kernels-only --json bench.json
    python3 perf/numba_stencil_compare.py --sizes 256,512 --kfvm-json bench.json

checks the Numba kernel against a sparse matrix of the same operator (SciPy, at 12^3),
times it (median of --repeat, CUDA events, after a warm-up; the fastest of a
one-thread-per-cell kernel in six block shapes and a kernel marching up k in chunks of 8
to 64 cells in four, so that the peer is at its best), and prints kfvm's rows of the same sizes from
the JSON, with the ratio. --json writes the Numba figures.
"""
import argparse
import json

import numpy as np

# numba-cuda 0.2x still registers an overload for np.row_stack, which NumPy 2.3 removed:
# without the alias (it was np.vstack's) numba.cuda fails on import beside such a NumPy.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402


@cuda.jit
def seven_point(x, y, h):
    i, j, k = cuda.grid(3)
    n2, n1, n0 = x.shape  # x[k, j, i], i fastest (kfvm's cell order)
    if i >= n0 or j >= n1 or k >= n2:
        return
    diagonal = h  # h^3 / dt with dt = h^2
    off = 0.0
    if i > 0:
        off += x[k, j, i - 1]
        diagonal += h
    else:
        diagonal += 2 * h
    if i < n0 - 1:
        off += x[k, j, i + 1]
        diagonal += h
    else:
        diagonal += 2 * h
    if j > 0:
        off += x[k, j - 1, i]
        diagonal += h
    else:
        diagonal += 2 * h
    if j < n1 - 1:
        off += x[k, j + 1, i]
        diagonal += h
    else:
        diagonal += 2 * h
    if k > 0:
        off += x[k - 1, j, i]
        diagonal += h
    else:
        diagonal += 2 * h
    if k < n2 - 1:
        off += x[k + 1, j, i]
        diagonal += h
    else:
        diagonal += 2 * h
    y[k, j, i] = diagonal * x[k, j, i] - h * off


@cuda.jit
def seven_point_march(x, y, h, depth):
    """The same operator, each thread marching `depth` cells up k from (i, j, chunk),
    x below, here and above in registers (the classic 2.5D GPU stencil)."""
    i, j, chunk = cuda.grid(3)
    n2, n1, n0 = x.shape
    k0 = chunk * depth
    if i >= n0 or j >= n1 or k0 >= n2:
        return
    k1 = min(k0 + depth, n2)
    side = h  # h^3 / dt, plus the in-plane faces' coefficients
    side += h if i > 0 else 2 * h
    side += h if i < n0 - 1 else 2 * h
    side += h if j > 0 else 2 * h
    side += h if j < n1 - 1 else 2 * h
    below = x[k0 - 1, j, i] if k0 > 0 else 0.0
    here = x[k0, j, i]
    for k in range(k0, k1):
        above = x[k + 1, j, i] if k < n2 - 1 else 0.0
        diagonal = side + (h if k > 0 else 2 * h) + (h if k < n2 - 1 else 2 * h)
        off = below + above
        if i > 0:
            off += x[k, j, i - 1]
        if i < n0 - 1:
            off += x[k, j, i + 1]
        if j > 0:
            off += x[k, j - 1, i]
        if j < n1 - 1:
            off += x[k, j + 1, i]
        y[k, j, i] = diagonal * here - h * off
        below = here
        here = above


# (kernel, block, depth): the one-thread-per-cell kernel in several block shapes, and the
# marching one with chunks of 8 to 64 cells along k.
VARIANTS = ([("cells", b, 1) for b in [(32, 4, 1), (32, 8, 1), (64, 4, 1), (128, 2, 1),
                                       (32, 4, 2), (256, 1, 1)]]
            + [("march", b, d) for b in [(32, 4, 1), (32, 8, 1), (64, 4, 1), (128, 1, 1)]
               for d in (8, 16, 32, 64)])


def launch(x, y, h, variant):
    kind, block, depth = variant
    n = x.shape[0]
    if kind == "cells":
        grid = tuple((n + b - 1) // b for b in block)
        seven_point[grid, block](x, y, h)
    else:
        chunks = (n + depth - 1) // depth
        grid = ((n + block[0] - 1) // block[0], (n + block[1] - 1) // block[1],
                (chunks + block[2] - 1) // block[2])
        seven_point_march[grid, block](x, y, h, depth)


def reference_matrix(n):
    """The same operator as a SciPy sparse matrix (kron of 1D ones)."""
    import scipy.sparse as sparse
    h = 1.0 / n
    main = np.full(n, 2 * h)
    main[0] = main[-1] = h + 2 * h  # one interior face, one Dirichlet face at h/2
    T = sparse.diags([np.full(n - 1, -h), main, np.full(n - 1, -h)], [-1, 0, 1])
    eye = sparse.identity(n)
    K = (sparse.kron(sparse.kron(eye, eye), T) + sparse.kron(sparse.kron(eye, T), eye)
         + sparse.kron(sparse.kron(T, eye), eye))
    return (K + h * sparse.identity(n ** 3)).tocsr()


def check(n=12):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, n, n))
    expected = reference_matrix(n) @ x.ravel()
    worst = 0.0
    for variant in VARIANTS:
        y = cuda.device_array_like(x)
        launch(cuda.to_device(x), y, 1.0 / n, variant)
        worst = max(worst, np.abs(y.copy_to_host().ravel() - expected).max())
    scale = np.abs(expected).max()
    if worst > 1e-13 * scale:
        raise SystemExit(f"the Numba kernel differs from the matrix by {worst:.3e} "
                         f"(scale {scale:.3e})")
    return worst / scale


def time_kernel(n, repeat):
    x = cuda.to_device(np.sin(np.arange(n ** 3, dtype=np.float64)).reshape(n, n, n))
    y = cuda.device_array_like(x)
    h = 1.0 / n
    start, stop = cuda.event(), cuda.event()
    best = None
    for variant in VARIANTS:
        launch(x, y, h, variant)  # warm-up (and compilation)
        cuda.synchronize()
        times = []
        for _ in range(repeat):
            start.record()
            launch(x, y, h, variant)
            stop.record()
            stop.synchronize()
            times.append(cuda.event_elapsed_time(start, stop) * 1e-3)
        median = float(np.median(times))
        if best is None or median < best[0]:
            best = (median, variant)
    return best


def kfvm_rows(path, n):
    with open(path) as f:
        bench = json.load(f)
    rows = [r for r in bench["results"]
            if r["n"] == n and r["kernel"].startswith("matrix-free 7-point, constant D")]
    copy = [r for r in bench["results"] if r["n"] == n and r["kernel"] == "copy (deep_copy)"]
    return bench, rows, (copy[0]["seconds"] if copy else None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="256,512")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--kfvm-json", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    error = check()
    print(f"Numba kernel against the sparse matrix at 12^3: relative error {error:.1e}")
    out = {"device": cuda.get_current_device().name.decode()
           if isinstance(cuda.get_current_device().name, bytes)
           else str(cuda.get_current_device().name), "results": []}
    for n in [int(s) for s in args.sizes.split(",")]:
        seconds, variant = time_kernel(n, args.repeat)
        bytes_moved = 2 * 8 * n ** 3
        out["results"].append({"n": n, "seconds": seconds, "kernel": variant[0],
                               "block": list(variant[1]), "depth": variant[2],
                               "bytes": bytes_moved})
        print(f"\n{n}^3: Numba 7-point, best of {len(VARIANTS)} variants ({variant}): "
              f"{seconds * 1e3:.4f} ms, "
              f"{bytes_moved / seconds / 1e9:.0f} GB/s")
        if args.kfvm_json:
            bench, rows, copy = kfvm_rows(args.kfvm_json, n)
            for r in rows:
                print(f"  kfvm {r['kernel']}: {r['seconds'] * 1e3:.4f} ms "
                      f"({seconds / r['seconds']:.2f}x Numba's speed)")
            if copy:
                print(f"  deep_copy of a vector (read + write, the same 16 B a cell): "
                      f"{copy * 1e3:.4f} ms")
            out["kfvm_revision"] = bench.get("git_revision")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
