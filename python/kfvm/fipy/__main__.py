"""python3 -m kfvm.fipy script.py [arguments]: runs a FiPy script unchanged, with its
equations on kfvm; KFVM_FIPY_REPORT=1 prints kfvm.fipy.report() at the end."""

import os
import runpy
import sys

import kfvm.fipy


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    script = sys.argv[1]
    if not os.path.isfile(script):
        print("kfvm.fipy: no such script: %s" % script, file=sys.stderr)
        return 2
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        if os.environ.get("KFVM_FIPY_REPORT"):
            kfvm.fipy.report(file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
