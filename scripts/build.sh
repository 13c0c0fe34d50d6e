#!/usr/bin/env bash
# Configures and builds kfvm into ${KFVM_BUILD_DIR:-build} (extra arguments go to cmake).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
build="${KFVM_BUILD_DIR:-$root/build}"
# The Python module is built for Debian's python3 (its numpy and pytest), not for
# whichever python3 comes first in PATH.
python_hint=()
if [ -x /usr/bin/python3 ]; then python_hint=(-DPython3_EXECUTABLE=/usr/bin/python3); fi
jobs="${KFVM_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${python_hint[@]}" "$@"
cmake --build "$build" -j "$jobs"
