#!/usr/bin/env python3
"""Plots kfvm-bench efficiency (achieved GB/s over the copy GB/s of the same run) per
kernel and backend, for one grid size, to a PNG.

    python3 perf/plot_efficiency.py --n 256 --out perf/efficiency.png \
        perf/results/2026-11-30-h200-cuda.json perf/results/2026-11-30-h200-openmp16.json
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path, n):
    data = json.load(open(path))
    rows = {}
    for r in data["results"]:
        if r["n"] != n or r["kernel"].startswith("copy (deep_copy)"):
            continue
        kernel = "backward-Euler step" if r["kernel"].startswith("backward-Euler") else r["kernel"]
        rows[kernel] = r["of_copy"]
    label = f"{data['backend']} (Kokkos {data['kokkos_version']}, {data.get('real', 'double')})"
    return label, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--out", default="efficiency.png")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    series = [load(f, args.n) for f in args.files]
    kernels = []
    for _, rows in series:
        kernels += [k for k in rows if k not in kernels]
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(11, 5))
    for i, (label, rows) in enumerate(series):
        xs = [j + i * width for j in range(len(kernels))]
        ax.bar(xs, [rows.get(k, 0) for k in kernels], width, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(kernels))])
    ax.set_xticklabels(kernels, rotation=30, ha="right")
    ax.set_ylabel("achieved GB/s / copy GB/s (same run)")
    ax.set_title(args.title or f"kfvm kernel efficiency at {args.n}^3 cells")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
