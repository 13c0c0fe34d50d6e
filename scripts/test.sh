#!/usr/bin/env bash
# Builds kfvm and runs its whole test suite with ctest (every enabled backend, and the
# Trilinos adapter, also on 2 MPI ranks, when built). Extra arguments go to cmake;
# KFVM_CTEST_ARGS, when set, go to ctest (CI leaves some tests out of one configuration).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" "$@"
cd "${KFVM_BUILD_DIR:-$root/build}"
# shellcheck disable=SC2086 # KFVM_CTEST_ARGS holds several words
ctest --output-on-failure -j "${KFVM_JOBS:-$(nproc)}" ${KFVM_CTEST_ARGS:-}
