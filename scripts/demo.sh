#!/usr/bin/env bash
# Builds the 3D transient diffusion demo (only it and the libraries it links: the test
# suite, the other apps and the benchmarks are left for scripts/test.sh) and runs it.
# Arguments go to the demo, e.g.
#   scripts/demo.sh --n 128 --steps 20 --scheme cn
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log="${TMPDIR:-/tmp}/kfvm-demo-build.log"
echo "kfvm: building the demo (the first build takes a few minutes; log in $log)" >&2
KFVM_BUILD_TARGETS=kfvm-diffusion3d "$root/scripts/build.sh" >"$log" 2>&1 ||
  { tail -30 "$log" >&2; exit 1; }
exec "${KFVM_BUILD_DIR:-$root/build}/apps/kfvm-diffusion3d" "$@"
