#!/usr/bin/env bash
# Runs a FiPy script unchanged with its equations on kfvm (python3 -m kfvm.fipy), after
# building kfvm with its Python module (installing what is missing with apt). FiPy comes
# from KFVM_FIPY_DIR (its source folder, holding fipy/ and examples/), by default
# ../shared/fipy beside the checkout. The script: python/examples/fipy/heat3d.py (a
# plain FiPy script) unless another is named; further arguments go to it. The table of
# which equations ran where is printed at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fipy_dir="${KFVM_FIPY_DIR:-$root/../shared/fipy}"
script="$root/python/examples/fipy/heat3d.py"
if [ $# -gt 0 ] && [ -f "$1" ]; then script="$1"; shift; fi
if [ ! -f "$fipy_dir/fipy/__init__.py" ]; then
  echo "fipy-example.sh: no FiPy in $fipy_dir (set KFVM_FIPY_DIR to FiPy's source folder)" >&2
  exit 2
fi
"$root/scripts/build.sh" >/dev/null
python=/usr/bin/python3
[ -x "$python" ] || python=python3
export PYTHONPATH="$root/build/python:$fipy_dir${PYTHONPATH:+:$PYTHONPATH}"
export FIPY_SOLVERS="${FIPY_SOLVERS:-scipy}" FIPY_VIEWERS="${FIPY_VIEWERS:-dummy}"
export KFVM_FIPY_REPORT=1
exec "$python" -m kfvm.fipy "$script" "$@"
