#!/usr/bin/env bash
# Builds kfvm and runs the 3D transient diffusion demo. Arguments go to the demo, e.g.
#   scripts/demo.sh --n 128 --steps 20 --scheme cn
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
echo "kfvm: building (the first build takes a few minutes; log in /tmp/kfvm-demo-build.log)" >&2
"$root/scripts/build.sh" >/tmp/kfvm-demo-build.log 2>&1 || { tail -30 /tmp/kfvm-demo-build.log >&2; exit 1; }
exec "${KFVM_BUILD_DIR:-$root/build}/apps/kfvm-diffusion3d" "$@"
