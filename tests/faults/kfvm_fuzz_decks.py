#!/usr/bin/env python3
"""Fuzzes `kfvm check` and a short `kfvm run` with mutated example decks (issue 16).

Each case mutates one example deck (lines deleted, duplicated or swapped, characters
flipped, bytes inserted, values of another type, extreme numbers) with a fixed seed, then
runs `kfvm check CASE` and `kfvm run CASE --cells 8 --max-steps 3`. Every run must end
with exit 0, or with a documented status (1 error, 2 failed solve, 4 failed check, 64
usage) and a `kfvm error:` line; never a signal, an uncaught exception, a sanitizer
report or a time-out.

    kfvm_fuzz_decks.py --kfvm build/apps/kfvm --decks apps/decks --work /tmp/w [--cases N]
                       [--shard K/M]

--shard K/M runs the cases whose number is K modulo M (the cases themselves do not
change: all are drawn, in order, from the one seed), so that M tests share the work.
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys

EXTREMES = ["0", "-1", "1e308", "-1e308", "1e-308", "nan", "inf", "-inf", "1e100",
            "2147483648", "-2147483649", "9223372036854775807", "1e9", "0.0", "-0.0",
            "100001", "3", "1"]
REPLACEMENTS = ['"x"', '""', "[]", "[1, 2, 3]", "{}", "{ a = 1 }", "true", "1.5", "-7",
                '"sqrt(-1)"', '"1 / (x - 0.5)"', '"t"', '"((((((((x))))))))"',
                '"' + "(" * 100 + "x" + ")" * 100 + '"', '"' + "-" * 500 + 'x"',
                '"' + "(" * 30000 + "x" + ")" * 30000 + '"', '"' + "-" * 400000 + 'x"']
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])")
VALUE = re.compile(r"=\s*(.+)$")


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.choice(["delete", "duplicate", "swap", "flip", "insert", "retype",
                       "extreme", "extreme", "retype", "combo"])
    if kind == "combo":
        for _ in range(rng.randint(2, 4)):
            text, _ = mutate(text, rng)
        return text, "combo"
    i = rng.randrange(len(lines))
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "flip" and lines[i]:
        k = rng.randrange(len(lines[i]))
        lines[i] = lines[i][:k] + chr(rng.randrange(32, 127)) + lines[i][k + 1:]
    elif kind == "insert":
        k = rng.randrange(len(lines[i]) + 1)
        junk = "".join(chr(rng.choice([0, 7, 10, 13, 27, 34, 39, 91, 93, 123, 125, 255,
                                        rng.randrange(1, 256)]))
                       for _ in range(rng.randint(1, 6)))
        lines[i] = lines[i][:k] + junk + lines[i][k:]
    elif kind == "retype":
        candidates = [n for n, line in enumerate(lines) if VALUE.search(line)]
        if candidates:
            n = rng.choice(candidates)
            lines[n] = VALUE.sub("= " + rng.choice(REPLACEMENTS), lines[n])
    elif kind == "extreme":
        candidates = [n for n, line in enumerate(lines) if NUMBER.search(line)
                      and not line.lstrip().startswith("#")]
        if candidates:
            n = rng.choice(candidates)
            matches = list(NUMBER.finditer(lines[n]))
            m = rng.choice(matches)
            lines[n] = lines[n][:m.start()] + rng.choice(EXTREMES) + lines[n][m.end():]
    return "\n".join(lines), kind


def clean(status, output):
    """None when a run ended as documented, else what is wrong."""
    if status < 0:
        return f"killed by signal {-status}"
    for bad in ["terminate called", "AddressSanitizer", "LeakSanitizer", "runtime error:",
                "Segmentation fault", "Aborted"]:
        if bad in output:
            return f"'{bad}' in the output"
    if status not in (0, 1, 2, 4, 64):
        return f"exit status {status}"
    if status in (1, 2, 64) and "kfvm error: " not in output:
        return f"exit status {status} without a 'kfvm error:' line"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kfvm", required=True)
    parser.add_argument("--decks", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--shard", default="0/1", help="K/M: the cases K modulo M")
    options = parser.parse_args()
    try:
        shard, shards = (int(x) for x in options.shard.split("/"))
    except ValueError:
        parser.error(f"--shard takes K/M, not '{options.shard}'")
    if shards < 1 or not 0 <= shard < shards:
        parser.error(f"--shard {options.shard}: K must lie in 0..M-1")
    rng = random.Random(options.seed)
    decks = sorted(glob.glob(os.path.join(options.decks, "*.toml")))
    texts = {d: open(d, encoding="utf-8").read() for d in decks}
    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    passed = failed = 0
    statuses = {}
    for case in range(options.cases):
        source = decks[case % len(decks)]
        text, kind = mutate(texts[source], rng)
        if case % shards != shard:
            continue
        path = os.path.join(options.work, f"case{case:04d}.toml")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        out = os.path.join(options.work, f"case{case:04d}-output")
        problems = []
        for command in (["check", path],
                        ["run", "-q", path, "--cells", "8", "--max-steps", "3",
                         "--output", out]):
            try:
                done = subprocess.run([options.kfvm, *command], capture_output=True,
                                      timeout=options.timeout)
                output = (done.stdout + done.stderr).decode("utf-8", "replace")
                problem = clean(done.returncode, output)
                statuses[(command[0], done.returncode)] = statuses.get(
                    (command[0], done.returncode), 0) + 1
            except subprocess.TimeoutExpired:
                output, problem = "", f"no answer within {options.timeout} s"
            if problem:
                problems.append(f"kfvm {command[0]}: {problem}\n{output[-2000:]}")
        shutil.rmtree(out, ignore_errors=True)
        if problems:
            failed += 1
            print(f"FAILED  case {case} ({kind} of {os.path.basename(source)}): {path}")
            for p in problems:
                print("        " + p.replace("\n", "\n        "))
        else:
            passed += 1
            os.remove(path)
    print("exit statuses:", ", ".join(f"{c} {s}: {n}" for (c, s), n in sorted(statuses.items())))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
