#!/usr/bin/env python3
"""Example decks across MPI ranks against one process: `mpirun -np N kfvm run DECK` must
exit as `kfvm run DECK` does and write the same series.csv and probes.csv (every column
but the solver's iterations and residual, to --tolerance of the column's scale), the
parallel VTK files of every output step in the .pvd series (a .pvtr and one piece per
rank where the one-process run writes a .vtr), the same PNG snapshots and checkpoints,
and `mpirun kfvm check` must pass. Then checkpoints restart across any number of ranks:
a run stopped after --max-steps and restarted on another number of ranks (one process
among them) writes the series.csv of the uninterrupted one-process run.

    python3 tests/kfvm_mpi_decks.py --kfvm build/apps/kfvm --decks apps/decks \
        --ranks 2,4 diffusion1d convection1d

Each part runs only when asked for, so that ctest can run them side by side: the decks
named, --restart-decks, --gmsh and --parallel-keys (the [parallel] key and a start from
a .npy file).
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in row] for row in rows[1:]]


def compare_csv(name, one, many, skip, tolerance):
    header, a = columns(one)
    header_b, b = columns(many)
    if header != header_b or len(a) != len(b):
        return ["%s: %d rows of %s, %d of %s" % (name, len(a), header, len(b), header_b)]
    errors = []
    for c, column in enumerate(header):
        if column in skip:
            continue
        scale = max([abs(row[c]) for row in a] + [1e-300])
        worst = max(abs(x[c] - y[c]) for x, y in zip(a, b))
        if worst > tolerance * scale + 1e-10:  # fields of order 1: round-off near 0
            errors.append("%s: column %s differs by %.3e (scale %.3e)" % (name, column, worst, scale))
    return errors


def same_run(what, got, expected, expected_dir, out_dir, tolerance):
    """A run's exit status and series.csv against the expected run's; None when the exit
    status differs (the files are not compared then), else the list of differences."""
    if got.returncode != expected.returncode:
        return None
    return compare_csv(what + " series.csv", os.path.join(expected_dir, "series.csv"),
                       os.path.join(out_dir, "series.csv"), {"iterations", "residual"},
                       tolerance)


def restarts(args, work, flags):
    """Each --restart-decks deck stopped after --stop-after steps on one number of ranks
    and restarted from its checkpoint on another goes on as the uninterrupted
    one-process run."""
    failures = []
    launch = {1: [args.kfvm]}
    for n in (2, 4):
        launch[n] = [args.mpiexec, "-n", str(n)] + flags + [args.kfvm]
    for entry in args.restart_decks.split(",") if args.restart_decks else []:
        name, _, steps = entry.partition("@")  # name@N: stop after N steps
        stop_after = int(steps) if steps else args.stop_after
        deck = os.path.join(args.decks, name + ".toml")
        whole = os.path.join(work, name + "-whole")
        full = run([args.kfvm, "run", deck, "--output", whole, "-q"])
        for first, second in [(2, 4), (1, 2), (4, 1)]:
            what = "%s stopped on %d and restarted on %d" % (name, first, second)
            out = os.path.join(work, "%s-restart-%d-%d" % (name, first, second))
            stop = run(launch[first] + ["run", deck, "--output", out, "-q", "--max-steps",
                                        str(stop_after)], timeout=1200)
            checkpoint = os.path.join(out, "checkpoint.h5")
            if stop.returncode != 0 or not os.path.exists(checkpoint):
                failures.append("%s: the first part exit %d, checkpoint %s\n%s" % (
                    what, stop.returncode, os.path.exists(checkpoint), stop.stderr[-1000:]))
                continue
            # Ranks write their blocks together (parallel HDF5); one process its own kind.
            together = b"kfvm distributed checkpoint" in open(checkpoint, "rb").read()
            if together != (first > 1):
                failures.append("%s: the checkpoint of %d ranks is %s" % (
                    what, first, "a distributed one" if together else "one process's"))
            go_on = run(launch[second] + ["run", deck, "--output", out, "-q", "--restart",
                                          checkpoint], timeout=1200)
            differences = same_run(what + ",", go_on, full, whole, out, args.tolerance)
            if differences is None:
                failures.append("%s: exit %d, the whole run %d\n%s" % (
                    what, go_on.returncode, full.returncode, go_on.stderr[-1000:]))
                continue
            failures += differences
            print("%s: exit %d, the series of the whole one-process run" % (
                what, go_on.returncode))
        # Faults across ranks end every rank with the error (no rank left waiting): a
        # checkpoint rank 0 cannot write, and a damaged checkpoint to restart from.
        blocked = os.path.join(work, name + "-blocked")
        os.makedirs(os.path.join(blocked, "checkpoint.h5.tmp", "in-the-way"))
        damaged = os.path.join(work, name + "-damaged.h5")
        with open(damaged, "w") as f:
            f.write("not a checkpoint")
        for what, command, words in [
                ("an unwritable checkpoint", ["--output", blocked], "cannot create"),
                ("a damaged checkpoint", ["--restart", damaged], "not a sealed kfvm checkpoint")]:
            fault = run(launch[2] + ["run", deck, "-q"] + command, timeout=300)
            if fault.returncode != 1 or fault.stderr.count(words) != 2:
                failures.append("%s, %s on 2 ranks: exit %d, %r" % (
                    name, what, fault.returncode, fault.stderr[-1000:]))
    return failures


GMSH_TRANSIENT = """
[variable]
name = "phi"
initial = { type = "random", mean = 0.5, amplitude = 0.1, seed = 7 }

[equation]
transient = 1.0
diffusion = 1.0
diffusion_correction = "over-relaxed"
convection = { velocity = [0.5, 0.2], scheme = "van-leer" }

[[boundary]]
patch = "inlet"
type = "dirichlet"
value = 1.0

[[boundary]]
patch = "outlet"
type = "dirichlet"
value = 0.0

[solver]
name = "bicgstab"
tolerance = 1e-13
sweeps = 40
sweep_tolerance = 1e-11

[time]
dt = 0.01
steps = 20

[output]
vtk_every = 10
checkpoint_every = 5

[[output.probe]]
point = [1.0, 0.5]

[[output.probe]]
point = [0.3, 0.8]
"""


# Two coupled species on the channel's triangles: u enters at the inlet and turns into
# v (k = 2), which diffuses slower; both leave through the outlet.
GMSH_COUPLED = """
[[variable]]
name = "u"
initial = { type = "random", mean = 0.2, amplitude = 0.1, seed = 3 }

[[variable]]
name = "v"

[[equation]]
transient = { u = 1.0 }
diffusion = { u = 1.0 }
implicit_source = { u = -2.0 }

[[equation]]
transient = { v = 1.0 }
diffusion = { v = 0.3 }
implicit_source = { u = 2.0 }

[[boundary]]
variable = "u"
patch = "inlet"
type = "dirichlet"
value = 1.0

[[boundary]]
variable = "u"
patch = "outlet"
type = "dirichlet"
value = 0.0

[[boundary]]
variable = "v"
patch = "outlet"
type = "dirichlet"
value = 0.0

[solver]
name = "gmres"
preconditioner = "ilu0"
tolerance = 1e-13

[time]
dt = 0.02
steps = 20

[output]
vtk_every = 10
checkpoint_every = 5
png = true

[[output.probe]]
point = [1.0, 0.5]
"""


GMSH_DECKS = ["channel-gmsh", "channel-gmsh-transient", "periodic-gmsh", "channel-gmsh-coupled"]


def gmsh_runs(args, work, flags):
    """Decks on a Gmsh mesh across ranks: the steady channel deck, a transient one on
    its mesh (random start, corrected diffusion, Van Leer convection), a coupled one (two
    species) and the periodic deck (periodic-gmsh.toml) write the series,
    probes and PNG snapshots of one process, a .pvtu set with a piece per rank, and a run
    stopped on one number of ranks and restarted on another goes on as the whole run."""
    failures = []
    mesh = os.path.join(os.path.abspath(args.decks), "meshes", "channel.msh")
    steady = open(os.path.join(args.decks, "channel-gmsh.toml")).read().replace(
        'file = "meshes/channel.msh"', 'file = "%s"' % mesh)
    transient = steady.split("[equation]")[0] + GMSH_TRANSIENT
    # Periodic triangles: each part keeps the joined faces between its cells.
    periodic = open(os.path.join(args.decks, "periodic-gmsh.toml")).read().replace(
        'file = "meshes/periodic-square.msh"', 'file = "%s"' % os.path.join(
            os.path.abspath(args.decks), "meshes", "periodic-square.msh"))
    coupled = steady.split("[equation]")[0] + GMSH_COUPLED
    texts = {"channel-gmsh": steady, "channel-gmsh-transient": transient,
             "periodic-gmsh": periodic, "channel-gmsh-coupled": coupled}
    for name in args.gmsh.split(","):
        if name not in texts:
            return ["--gmsh: no deck '%s' (known: %s)" % (name, ", ".join(GMSH_DECKS))]
        text = texts[name]
        deck = os.path.join(work, name + ".toml")
        with open(deck, "w") as f:
            f.write(text)
        one = os.path.join(work, name + "-1")
        alone = run([args.kfvm, "run", deck, "--output", one, "-q"])
        if alone.returncode != 0:
            failures.append("%s on one process: exit %d\n%s" % (name, alone.returncode,
                                                                 alone.stderr[-2000:]))
            continue
        for n in [int(r) for r in args.ranks.split(",")]:
            launch = [args.mpiexec, "-n", str(n)] + flags + [args.kfvm]
            out = os.path.join(work, "%s-%d" % (name, n))
            many = run(launch + ["run", deck, "--output", out, "-q"], timeout=1200)
            what = "%s on %d ranks" % (name, n)
            differences = same_run(what, many, alone, one, out, args.tolerance)
            if differences is None:
                failures.append("%s: exit %d\n%s" % (what, many.returncode, many.stderr[-2000:]))
                continue
            failures += differences
            failures += compare_csv(what + " probes.csv", os.path.join(one, "probes.csv"),
                                    os.path.join(out, "probes.csv"), set(), args.tolerance)
            vtu = sorted(f[:-4] for f in os.listdir(one) if f.endswith(".vtu"))
            pvtu = sorted(f[:-5] for f in os.listdir(out) if f.endswith(".pvtu"))
            pieces = [f for f in os.listdir(out) if f.endswith(".vtu")]
            if vtu != pvtu or len(pieces) != n * len(vtu):
                failures.append("%s: .pvtu %s and %d pieces, one process .vtu %s" % (
                    what, pvtu, len(pieces), vtu))
            for png in sorted(f for f in os.listdir(one) if f.endswith(".png")):
                mine = os.path.join(out, png)
                if not os.path.exists(mine) or open(mine, "rb").read() != open(
                        os.path.join(one, png), "rb").read():
                    failures.append("%s: %s is not the one-process snapshot" % (what, png))
            check = run(launch + ["check", deck])
            if check.returncode != 0 or check.stdout.count(": ok") != 1:
                failures.append("%s: kfvm check exit %d, printed %r" % (
                    what, check.returncode, check.stdout))
            print("%s: exit %d, series, probes and snapshots as one process" % (
                what, many.returncode))
        if name not in ("channel-gmsh-transient", "channel-gmsh-coupled"):
            continue
        for first, second in [(2, 4), (4, 1)]:
            what = "%s stopped on %d and restarted on %d" % (name, first, second)
            out = os.path.join(work, "%s-restart-%d-%d" % (name, first, second))
            launch = {k: ([args.mpiexec, "-n", str(k)] + flags if k > 1 else []) + [args.kfvm]
                      for k in (first, second)}
            stop = run(launch[first] + ["run", deck, "--output", out, "-q", "--max-steps",
                                        "10"], timeout=1200)
            checkpoint = os.path.join(out, "checkpoint.h5")
            go_on = run(launch[second] + ["run", deck, "--output", out, "-q", "--restart",
                                          checkpoint], timeout=1200)
            differences = same_run(what + ",", go_on, alone, one, out, args.tolerance)
            if stop.returncode != 0 or differences is None:
                failures.append("%s: exits %d, %d\n%s%s" % (
                    what, stop.returncode, go_on.returncode, stop.stderr[-1000:],
                    go_on.stderr[-1000:]))
                continue
            failures += differences
            print("%s: the series of the whole one-process run" % what)
    # [parallel] ranks on a Gmsh mesh are refused across ranks.
    launch = [args.mpiexec, "-n", "2"] + flags + [args.kfvm]
    deck = os.path.join(work, "gmsh-ranks.toml")
    with open(deck, "w") as f:
        f.write(steady + "\n[parallel]\nranks = [2, 1]\n")
    check = run(launch + ["check", deck])
    if check.returncode == 0 or "partitioned by METIS or recursive bisection" not in check.stderr:
        failures.append("[parallel] ranks on a Gmsh mesh, 2 ranks: exit %d, %r" % (
            check.returncode, check.stderr[-500:]))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kfvm", required=True)
    parser.add_argument("--decks", required=True)
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--ranks", default="2,4", help="comma-separated rank counts")
    parser.add_argument("--tolerance", type=float, default=1e-8,
                        help="relative to a column's largest value (the solver's tolerance "
                             "over the run's steps)")
    parser.add_argument("--restart-decks", default="",
                        help="comma-separated decks with checkpoint_every to restart across "
                             "rank counts (name@N: stopped after N steps, else --stop-after)")
    parser.add_argument("--stop-after", type=int, default=20,
                        help="steps before the restart (a multiple of checkpoint_every)")
    parser.add_argument("--gmsh", nargs="?", const=",".join(GMSH_DECKS), default="",
                        help="comma-separated decks on a Gmsh mesh (gmsh_runs; all of %s "
                             "when none are named)" % ", ".join(GMSH_DECKS))
    parser.add_argument("--parallel-keys", action="store_true",
                        help="the [parallel] key and a start from a .npy file across ranks")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    failures = []
    with tempfile.TemporaryDirectory(dir=".") as work:
        for name in args.names:
            text = open(os.path.join(args.decks, name + ".toml")).read()
            deck = os.path.join(work, name + ".toml")
            with open(deck, "w") as f:
                f.write(text)
            one = os.path.join(work, name + "-1")
            alone = run([args.kfvm, "run", deck, "--output", one, "-q"])
            for n in [int(r) for r in args.ranks.split(",")]:
                launch = [args.mpiexec, "-n", str(n)] + flags + [args.kfvm]
                out = os.path.join(work, "%s-%d" % (name, n))
                many = run(launch + ["run", deck, "--output", out, "-q"], timeout=1200)
                what = "%s on %d ranks" % (name, n)
                differences = same_run(what, many, alone, one, out, args.tolerance)
                if differences is None:
                    failures.append("%s: exit %d, one process %d\n%s" % (
                        what, many.returncode, alone.returncode, many.stderr[-2000:]))
                    continue
                failures += differences
                if os.path.exists(os.path.join(one, "probes.csv")):
                    failures += compare_csv(what + " probes.csv", os.path.join(one, "probes.csv"),
                                            os.path.join(out, "probes.csv"), set(),
                                            args.tolerance)
                vtr = sorted(f[:-4] for f in os.listdir(one) if f.endswith(".vtr"))
                pvtr = sorted(f[:-5] for f in os.listdir(out) if f.endswith(".pvtr"))
                pieces = [f for f in os.listdir(out) if f.endswith(".vtr")]
                if vtr != pvtr or len(pieces) != n * len(vtr):
                    failures.append("%s: .pvtr %s and %d pieces, one process .vtr %s" % (
                        what, pvtr, len(pieces), vtr))
                for ending in [".png", ".h5"]:  # snapshots of the gathered field
                    mine = sorted(f for f in os.listdir(out) if f.endswith(ending))
                    theirs = sorted(f for f in os.listdir(one) if f.endswith(ending))
                    if mine != theirs:
                        failures.append("%s: wrote %s, one process %s" % (what, mine, theirs))
                pvd = [f for f in os.listdir(out) if f.endswith(".pvd")]
                if len(pvd) != 1 or any(s + ".pvtr" not in open(os.path.join(out, pvd[0])).read()
                                        for s in pvtr):
                    failures.append("%s: the .pvd series does not list every .pvtr" % what)
                check = run(launch + ["check", deck])
                if check.returncode != 0 or check.stdout.count(": ok") != 1:
                    failures.append("%s: kfvm check exit %d, printed %r" % (
                        what, check.returncode, check.stdout))
                print("%s: exit %d, series and probes as one process" % (what, many.returncode))
        if args.parallel_keys:
            failures += parallel_keys(args, work, flags)
        failures += restarts(args, work, flags)
        if args.gmsh:
            failures += gmsh_runs(args, work, flags)
    for failure in failures:
        print("FAILED " + failure)
    return 1 if failures else 0


def parallel_keys(args, work, flags):
    """[parallel] ranks: the process grid given must have as many ranks as the run; what
    runs across ranks cannot do yet is refused before the run, naming it. Initial values
    from a .npy file: the whole grid's, each rank takes its cells."""
    failures = []
    launch = [args.mpiexec, "-n", "2"] + flags + [args.kfvm]
    text = open(os.path.join(args.decks, "diffusion1d.toml")).read()
    for ranks, status, words in [("[2]", 0, "ok"), ("[3]", 1, "a process grid of 3 ranks"),
                                 ("[2, 1]", 1, "ranks")]:
        deck = os.path.join(work, "parallel.toml")
        with open(deck, "w") as f:
            f.write(text + "\n[parallel]\nranks = %s\n" % ranks)
        check = run(launch + ["check", deck])
        if check.returncode != status or words not in check.stdout + check.stderr:
            failures.append("[parallel] ranks = %s on 2 ranks: exit %d, %r" % (
                ranks, check.returncode, check.stderr[-500:]))
    try:
        import numpy
        numpy.save(os.path.join(work, "start.npy"), numpy.sin(numpy.arange(50) / 7.0))
        deck = os.path.join(work, "from-file.toml")
        with open(deck, "w") as f:
            f.write(text.split("[check]")[0].replace(  # no exact solution from here
                'initial = { type = "constant", value = 0.0 }',
                'initial = { type = "file", file = "start.npy" }'))
        one, two = os.path.join(work, "file-1"), os.path.join(work, "file-2")
        alone = run([args.kfvm, "run", deck, "--output", one, "-q"])
        many = run(launch + ["run", deck, "--output", two, "-q"])
        if alone.returncode != 0 or many.returncode != 0:
            failures.append("a .npy start: exit %d and %d on 2 ranks\n%s%s" % (
                alone.returncode, many.returncode, alone.stderr[-500:], many.stderr[-500:]))
        else:
            failures += compare_csv("a .npy start on 2 ranks, series.csv",
                                    os.path.join(one, "series.csv"),
                                    os.path.join(two, "series.csv"),
                                    {"iterations", "residual"}, args.tolerance)
    except ImportError:
        print("numpy missing: the .npy start is not run")
    return failures


if __name__ == "__main__":
    sys.exit(main())
