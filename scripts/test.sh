#!/usr/bin/env bash
# Builds kfvm and runs its whole test suite with ctest (every enabled backend, and the
# Trilinos adapter, also on 2 MPI ranks, when built). Extra arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" "$@"
cd "${KFVM_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${KFVM_JOBS:-$(nproc)}"
