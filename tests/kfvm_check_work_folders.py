#!/usr/bin/env python3
"""Guard: every test has a work folder of its own (cmake/kfvmTestSetup.cmake), none equal
to another's or inside another's, and the folders a test is told to write to (--work,
--output, --basetemp=, -DWORK=) lie in its own. A GoogleTest test run alone
(--gtest_filter=<Suite>.<Test>, as gtest_discover_tests runs each) works in <its working
directory>/<Suite>.<Test> (tests/kfvm_TestWorkFolder.cpp).

    kfvm_check_work_folders.py --ctest CTEST --build BUILD_DIR
    kfvm_check_work_folders.py --listing LISTING.json   (ctest --show-only=json-v1 output)
"""
import argparse
import json
import os
import re
import subprocess
import sys

GTEST_ONE = re.compile(r"^--gtest_filter=([A-Za-z0-9_/]+\.[A-Za-z0-9_/]+)$")
OUTPUT_FLAG = re.compile(r"^--(work|output)$")
OUTPUT_ASSIGNED = re.compile(r"^(--basetemp=|-DWORK=)(.*)$")


def work_folders(listing):
    """(test name, work folder) for every test, and the problems found on the way."""
    folders, problems = [], []
    for test in listing["tests"]:
        name = test["name"]
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        folder = properties.get("WORKING_DIRECTORY")
        if not folder:
            problems.append("%s has no work folder" % name)
            continue
        command = test.get("command", [])
        for argument in command:
            match = GTEST_ONE.match(argument)
            if match:
                folder = os.path.join(folder, match.group(1))
        for previous, argument in zip([""] + command, command):
            target = None
            if OUTPUT_FLAG.match(previous):
                target = argument
            else:
                match = OUTPUT_ASSIGNED.match(argument)
                if match:
                    target = match.group(2)
            if target and os.path.isabs(target) and \
                    not (target + "/").startswith(folder.rstrip("/") + "/"):
                problems.append("%s writes to %s, outside its folder %s" % (name, target, folder))
        folders.append((name, os.path.normpath(folder)))
    return folders, problems


def clashes(folders):
    """Tests whose folder is another's or lies inside it: sorted by folder, such a pair
    shows up next to each other."""
    problems = []
    keyed = sorted((folder + "/", name) for name, folder in folders)
    for (before, first), (after, second) in zip(keyed, keyed[1:]):
        if after.startswith(before):
            problems.append("%s works in %s, which is or lies in the work folder of %s"
                            % (second, after.rstrip("/"), first))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ctest")
    parser.add_argument("--build")
    parser.add_argument("--listing")
    args = parser.parse_args()
    if args.listing:
        with open(args.listing) as f:
            listing = json.load(f)
    elif args.ctest and args.build:
        done = subprocess.run([args.ctest, "--show-only=json-v1"], cwd=args.build,
                              capture_output=True, text=True)
        if done.returncode != 0:
            print("'ctest --show-only=json-v1' failed (%d): %s" % (done.returncode, done.stderr))
            return 1
        listing = json.loads(done.stdout)
    else:
        parser.error("give --listing, or --ctest and --build")
    folders, problems = work_folders(listing)
    problems += clashes(folders)
    if problems:
        print("tests without a work folder of their own:\n  " + "\n  ".join(problems))
        return 1
    print("%d tests, each in a work folder of its own" % len(folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
