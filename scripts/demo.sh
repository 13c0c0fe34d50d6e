#!/usr/bin/env bash
# Builds kfvm and runs the 3D transient diffusion demo. Arguments go to the demo, e.g.
#   scripts/demo.sh --n 128 --steps 20 --scheme cn
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
exec "${KFVM_BUILD_DIR:-$root/build}/apps/kfvm-diffusion3d" "$@"
