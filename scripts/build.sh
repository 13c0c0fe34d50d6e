#!/usr/bin/env bash
# Configures and builds kfvm into ${KFVM_BUILD_DIR:-build} (extra arguments go to cmake).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
build="${KFVM_BUILD_DIR:-$root/build}"
jobs="${KFVM_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$jobs"
