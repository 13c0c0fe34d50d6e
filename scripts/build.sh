#!/usr/bin/env bash
# Configures and builds kfvm into ${KFVM_BUILD_DIR:-build} (extra arguments go to cmake;
# KFVM_BUILD_TARGETS, when set, names the targets to build instead of all of them).
# Compiles through ccache when it is installed (KFVM_CCACHE=0 turns that off), with
# CCACHE_BASEDIR at this checkout, so that a build in another clone of the same sources
# (CI's) hits the cache this one filled; the cache itself is ccache's (outside the clone).
# KFVM_INSTALL_DEPS=0 skips scripts/install-deps.sh (a machine that is not Debian's).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${KFVM_INSTALL_DEPS:-1}" != 0 ]; then "$root/scripts/install-deps.sh"; fi
build="${KFVM_BUILD_DIR:-$root/build}"
launcher=()
if [ "${KFVM_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# The Python module is built for Debian's python3 (its numpy and pytest), not for
# whichever python3 comes first in PATH.
python_hint=()
if [ -x /usr/bin/python3 ]; then python_hint=(-DPython3_EXECUTABLE=/usr/bin/python3); fi
jobs="${KFVM_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${python_hint[@]}" \
  "${launcher[@]}" "$@"
# shellcheck disable=SC2086 # KFVM_BUILD_TARGETS holds several words
cmake --build "$build" -j "$jobs" ${KFVM_BUILD_TARGETS:+--target $KFVM_BUILD_TARGETS}
