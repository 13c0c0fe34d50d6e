#!/usr/bin/env bash
# The host module of a device build (kfvm/_extension.py): kfvm's Python extension built on
# a host-only Kokkos, into ${KFVM_HOST_BUILD_DIR:-build-host} (no tests or benchmarks, no
# Trilinos or MPI: it runs the small problems of one process). Its last line of output is
# the module's path, which the device build takes:
#
#   module=$(scripts/build-host-module.sh | tail -n 1)
#   scripts/build.sh -DKokkos_ROOT=/opt/kokkos-cuda -DKFVM_HOST_PYTHON_MODULE="$module"
#
# KFVM_HOST_KOKKOS_ROOT names the host Kokkos (default: the one CMake finds, Debian's on
# Debian); extra arguments go to cmake (the device build's KFVM_REAL_TYPE, for one).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KFVM_HOST_BUILD_DIR:-$root/build-host}"
kokkos=()
if [ -n "${KFVM_HOST_KOKKOS_ROOT:-}" ]; then kokkos=(-DKokkos_ROOT="$KFVM_HOST_KOKKOS_ROOT"); fi
KFVM_BUILD_DIR="$build" KFVM_BUILD_TARGETS=_kfvm "$root/scripts/build.sh" "${kokkos[@]}" \
  -DKFVM_ENABLE_TESTS=OFF -DKFVM_ENABLE_PERF=OFF -DKFVM_ENABLE_TRILINOS=OFF \
  -DKFVM_ENABLE_MPI=OFF -DKFVM_HOST_PYTHON_MODULE= "$@" >&2
module=$(find "$build/python/kfvm" -maxdepth 1 -name '_kfvm*.so' | head -n 1)
if [ -z "$module" ]; then
  echo "scripts/build-host-module.sh: no _kfvm module in $build/python/kfvm" >&2
  exit 1
fi
echo "$module"
