#!/usr/bin/env python3
"""Fault tests of `kfvm run` (issue 16): full disks, damaged checkpoints, NaN fields,
long names and messages. Every case must end with the documented exit status and a
`kfvm error:` line naming the file or value, and leave nothing half-written behind.

    kfvm_fault_tests.py --kfvm build/apps/kfvm --decks apps/decks --work /tmp/w GROUP...

Groups: full-disk, tmpfs, damaged-checkpoints, values, names. Prints 'N passed, N failed'.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

OPTIONS = None
RESULTS = {"passed": 0, "failed": 0}


def run(*arguments, env=None, timeout=120):
    """Runs kfvm; returns (status, stdout + stderr)."""
    full_env = dict(os.environ)
    full_env.pop("KFVM_TEST_FAIL_WRITES", None)
    full_env.update(env or {})
    done = subprocess.run([OPTIONS.kfvm, *arguments], capture_output=True, text=True,
                          env=full_env, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def check(condition, what, output=""):
    if condition:
        RESULTS["passed"] += 1
        print(f"ok      {what}")
    else:
        RESULTS["failed"] += 1
        print(f"FAILED  {what}\n{output}")


def deck(name):
    return os.path.join(OPTIONS.decks, name + ".toml")


def fresh(name):
    path = os.path.join(OPTIONS.work, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def write_deck(name, text):
    path = os.path.join(OPTIONS.work, name + ".toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(status, output, expected_status, *parts):
    return status == expected_status and "kfvm error: " in output and all(
        p in output for p in parts)


# -- full disk, injected (KFVM_TEST_FAIL_WRITES) ----------------------------------------
def full_disk():
    for target, name in [(".vtr", "allen-cahn2d"), (".pvd", "allen-cahn2d"),
                         ("series.csv", "allen-cahn2d"), (".png", "allen-cahn2d"),
                         ("checkpoint.h5", "allen-cahn2d"), ("probes.csv", "two-species1d")]:
        out = fresh("full-" + name + target)
        status, output = run("run", "-q", deck(name), "--output", out,
                             env={"KFVM_TEST_FAIL_WRITES": target})
        check(refused(status, output, 1, target, "No space left on device"),
              f"a full disk for {target} stops {name} with exit 1 naming the file", output)
        leftovers = [f for f in os.listdir(out) if f.endswith(".tmp")]
        check(not leftovers, f"a failed {target} leaves no temporary file", leftovers)
    # A failed checkpoint keeps the good one that was there.
    out = fresh("full-keeps-checkpoint")
    status, output = run("run", "-q", deck("allen-cahn2d"), "--output", out)
    check(status == 0, "allen-cahn2d runs", output)
    with open(os.path.join(out, "checkpoint.h5"), "rb") as f:
        good = f.read()
    status, output = run("run", "-q", deck("allen-cahn2d"), "--output", out,
                         env={"KFVM_TEST_FAIL_WRITES": "checkpoint.h5"})
    check(refused(status, output, 1, "checkpoint.h5", "is kept"),
          "a failed checkpoint says the previous one is kept", output)
    with open(os.path.join(out, "checkpoint.h5"), "rb") as f:
        check(f.read() == good, "the previous checkpoint is byte for byte the same")
    check(not os.path.exists(os.path.join(out, "checkpoint.h5.tmp")),
          "no checkpoint.h5.tmp is left")


# -- full disk, real: a small tmpfs (root only) -----------------------------------------
def consistent_leftovers(out):
    """Whatever a run that failed on a full disk left must be whole."""
    problems = []
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        with open(path, "rb") as f:
            data = f.read()
        if name.endswith((".vtr", ".pvd")) and not data.endswith(b"</VTKFile>\n"):
            problems.append(name + " is cut off")
        if name.endswith(".png") and not data.endswith(b"IEND\xaeB`\x82"):
            problems.append(name + " is cut off")
        if name.endswith(".tmp"):
            problems.append(name + " was left")
        if name == "checkpoint.h5":
            copy = fresh("tmpfs-restart")
            os.makedirs(copy)
            shutil.copy(path, copy)
            status, output = run("run", "-q", deck("allen-cahn2d"), "--output", copy,
                                 "--restart", os.path.join(copy, "checkpoint.h5"),
                                 "--max-steps", "2")
            if status != 0:
                problems.append("checkpoint.h5 does not restart: " + output)
    return problems


def tmpfs():
    mount = tempfile.mkdtemp(prefix="kfvm-tmpfs-")
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mount],
            capture_output=True).returncode != 0:
        print("skip    no tmpfs can be mounted here (the injected full-disk cases cover it)")
        return
    subprocess.run(["umount", mount])
    failed_files = set()
    try:
        # Sizes at which allen-cahn2d fills the disk in a PNG, the first checkpoint, a VTK
        # file, a later checkpoint (the earlier one must survive) and the .pvd.
        for size in ["8k", "20k", "24k", "44k", "56k", "60k"]:
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount],
                           check=True)
            try:
                status, output = run("run", "-q", deck("allen-cahn2d"), "--output", mount)
                full = "No space left on device" in output or "errno = 28" in output
                check(status == 1 and full and "kfvm error: " in output,
                      f"tmpfs of {size}: exit 1 with a kfvm error (no space)", output)
                if status == 1:
                    failed_files.add(output.split("'")[1].split("/")[-1] if "'" in output
                                     else output)
                problems = consistent_leftovers(mount)
                check(not problems, f"tmpfs of {size}: every file left is whole", problems)
            finally:
                subprocess.run(["umount", mount], check=True)
        print(f"        the full tmpfs stopped writes to: {sorted(failed_files)}")
        for kind in [".png.tmp", "checkpoint.h5.tmp", ".vtr.tmp", ".pvd.tmp"]:
            check(any(f.endswith(kind) for f in failed_files),
                  f"a full tmpfs was met writing a {kind[:-4]} file", sorted(failed_files))
    finally:
        os.rmdir(mount)


# -- damaged and foreign checkpoints ----------------------------------------------------
def damaged_checkpoints():
    out = fresh("damaged")
    status, output = run("run", "-q", deck("two-species1d"), "--output", out,
                         "--max-steps", "150")
    check(status == 0 and "stopped" in output, "two-species1d: 150 steps", output)
    path = os.path.join(out, "checkpoint.h5")
    with open(path, "rb") as f:
        good = f.read()
    attribute = good.find(b"mesh 1D")
    check(attribute > 512, "the fingerprint attribute is in the file")
    cases = [("seal", 40), ("superblock", 520), ("middle", len(good) // 2),
             ("data", len(good) - 16), ("attribute", attribute + 5)]
    for what, at in cases:
        damaged = bytearray(good)
        damaged[at] ^= 0x04
        bad = os.path.join(OPTIONS.work, f"damaged-{what}.h5")
        with open(bad, "wb") as f:
            f.write(damaged)
        status, output = run("run", "-q", deck("two-species1d"), "--output",
                             fresh("damaged-run"), "--restart", bad)
        check(refused(status, output, 1, bad) and
              ("is damaged" in output or "is not a sealed" in output),
              f"a byte flipped in the {what} (offset {at}) is refused", output)
    bad = os.path.join(OPTIONS.work, "damaged-truncated.h5")
    with open(bad, "wb") as f:
        f.write(good[:len(good) // 2])
    status, output = run("run", "-q", deck("two-species1d"), "--output",
                         fresh("damaged-run"), "--restart", bad)
    check(refused(status, output, 1, bad, "(truncated)"), "a truncated file is refused",
          output)
    other = fresh("damaged-other")
    run("run", "-q", deck("allen-cahn2d"), "--output", other, "--max-steps", "12")
    status, output = run("run", "-q", deck("two-species1d"), "--output",
                         fresh("damaged-run"), "--restart",
                         os.path.join(other, "checkpoint.h5"))
    check(refused(status, output, 1, "belongs to another deck", "mesh 2D 64 x 8"),
          "another deck's checkpoint is refused", output)
    with open(deck("two-species1d")) as f:
        text = f.read()
    changed = write_deck("two-species1d-other-dt", text.replace("dt = 2.5e-4", "dt = 3e-4"))
    status, output = run("run", "-q", changed, "--output", fresh("damaged-run"),
                         "--restart", path)
    check(refused(status, output, 1, "the deck's time steps give"),
          "a checkpoint whose time and dt the deck's [time] does not give is refused",
          output)
    # A damaged collection (.pvd) on restart names the file and the line.
    pvd = os.path.join(out, "u-v.pvd")
    with open(pvd) as f:
        lines = f.read().replace('timestep="0"', 'timestep="zero"', 1)
    with open(pvd, "w") as f:
        f.write(lines)
    status, output = run("run", "-q", deck("two-species1d"), "--output", out,
                         "--restart", path)
    check(refused(status, output, 1, "u-v.pvd", "is damaged"),
          "a damaged .pvd is refused on restart, naming it", output)


# -- values: NaN and inf, unbounded runs, [check] ----------------------------------------
BASE = """[mesh]
dimension = 1
cells = [10]
length = [1.0]
"""


def values():
    nan_initial = write_deck("nan-initial", BASE + """[variable]
initial = { type = "expression", value = "1 / (x - 0.45)^0 * sqrt(x - 0.5)" }
[equation]
transient = 1.0
diffusion = 1.0
[time]
dt = 0.1
steps = 2
""")
    status, output = run("run", "-q", nan_initial, "--output", fresh("nan"))
    check(refused(status, output, 1, "phi is -nan initially at cell 0"),
          "a NaN initial field is named", output)
    # phi_{n+1} = phi_n / (1 - c dt) with c dt = 0.999: a thousandfold a step, until
    # the solver's norms overflow (near 1e154, long before phi itself is inf).
    blowup = write_deck("blow-up", BASE + """[variable]
initial = { type = "constant", value = 1.0 }
[equation]
transient = 1.0
diffusion = 1.0
implicit_source = 1.998
[solver]
name = "cg"
[time]
dt = 0.5
steps = 200
""")
    status, output = run("run", "-q", blowup, "--output", fresh("blow-up"))
    check(status == 2 and "failed: not converged" in output and "phi in [9.99" in output,
          "a diverging run stops with exit 2, naming the step, time and phi's range", output)
    # Cahn-Hilliard's fourth-order term at dt = 1000: ILU(0)-GMRES in 50 iterations
    # misses (exit 2); with fallback = "lu" the direct solver does those solves.
    stalled = """[mesh]
dimension = 2
cells = [24, 24]
length = [24.0, 24.0]
[variable]
initial = { type = "random", mean = 0.0, amplitude = 0.05, seed = 2026 }
[equation]
transient = 1.0
higher_order = { mobility = 1.0, kappa = 1.0, potential = [0.0, -1.0, 0.0, 1.0] }
[solver]
name = "gmres"
preconditioner = "ilu0"
max_iterations = 50
[time]
dt = 1000.0
steps = 2
"""
    status, output = run("run", "-q", write_deck("stalled", stalled), "--output",
                         fresh("stalled"))
    check(status == 2 and "iteration limit 50 reached" in output,
          "a Krylov solve that stalls stops the run with exit 2", output)
    status, output = run("run", write_deck("fallback", stalled + """[solver.parameters]
fallback = "lu"
"""), "--output", fresh("fallback"))
    # (A build without SuiteSparse refuses the deck, naming the package.)
    check(status == 0 or (status == 1 and "libsuitesparse-dev" in output),
          "with fallback = \"lu\" the direct solver does what the method missed", output)
    nan_exact = write_deck("nan-exact", BASE + """[equation]
transient = 1.0
diffusion = 1.0
[time]
dt = 0.1
steps = 1
[check]
exact = "sqrt(-1)"
tolerance = 1.0
""")
    status, output = run("run", "-q", nan_exact, "--output", fresh("nan-exact"))
    check(status == 4 and "= nan" in output and "FAILED" in output,
          "a NaN exact solution fails [check] (exit 4)", output)
    status, output = run("run", "--no-such-option", deck("diffusion1d"))
    check(status == 64 and output.startswith("kfvm error: "),
          "a usage error exits 64 with 'kfvm error:'", output)
    status, output = run("run", "-q", deck("diffusion1d"), "--output", "/proc/version/x")
    check(refused(status, output, 1, "cannot create the output folder '/proc/version/x'"),
          "an output folder that cannot be made is a kfvm error", output)


# -- long names ---------------------------------------------------------------------------
def names():
    name = "phi" + "x" * 197
    long_deck = write_deck("long-name", f"""[mesh]
dimension = 2
cells = [8, 8]
length = [1.0, 1.0]
[variable]
name = "{name}"
[equation]
transient = 1.0
diffusion = 1.0
[time]
dt = 0.1
steps = 3
[output]
vtk_every = 1
png = true
png_every = 1
""")
    out = fresh("long-name")
    status, output = run("run", "-q", long_deck, "--output", out)
    check(status == 0, "a 200-character variable name runs", output)
    for step in range(4):
        for extension in (".vtr", ".png"):
            file = f"{name}_{step:06d}{extension}"
            check(os.path.exists(os.path.join(out, file)),
                  f"step {step} has its own {extension} file", sorted(os.listdir(out)))


GROUPS = {"full-disk": full_disk, "tmpfs": tmpfs, "damaged-checkpoints": damaged_checkpoints,
          "values": values, "names": names}


def main():
    global OPTIONS
    parser = argparse.ArgumentParser()
    parser.add_argument("--kfvm", required=True)
    parser.add_argument("--decks", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("groups", nargs="+", choices=sorted(GROUPS))
    OPTIONS = parser.parse_args()
    os.makedirs(OPTIONS.work, exist_ok=True)
    for group in OPTIONS.groups:
        GROUPS[group]()
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
