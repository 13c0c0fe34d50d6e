#!/usr/bin/env bash
# Builds kfvm with its Python module (installing what is missing with apt) and runs a
# Python example with it: python/examples/diffusion1d.py unless another is named.
# Extra arguments go to the example (e.g. --small).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
example="$root/python/examples/diffusion1d.py"
if [ $# -gt 0 ] && [ -f "$1" ]; then example="$1"; shift; fi
"$root/scripts/build.sh" >/dev/null
python=/usr/bin/python3
[ -x "$python" ] || python=python3
PYTHONPATH="$root/build/python${PYTHONPATH:+:$PYTHONPATH}" exec "$python" "$example" "$@"
