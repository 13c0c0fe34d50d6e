#!/usr/bin/env bash
# Installs the built kfvm into a scratch prefix and builds and runs a tiny consumer
# project against it with find_package(kfvm) and kfvm::kfvm.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KFVM_BUILD_DIR:-$root/build}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$root/tests/consumer" -B "$scratch/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$scratch/consumer"
"$scratch/consumer/kfvm-consumer"
# The Python package, where the install put it (the interpreter's site folder under the
# prefix), imported from outside the source and build trees.
site=$(sed -n 's/^KFVM_PYTHON_INSTALL_DIR:STRING=//p' "$build/CMakeCache.txt")
if [ -n "$site" ]; then
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  (cd "$scratch" && PYTHONPATH="$scratch/prefix/$site" "$python" -c \
    "import kfvm, sys; m = kfvm.Grid1D(nx=4); assert kfvm.__file__.startswith('$scratch'); print('installed kfvm', kfvm.__version__, 'on', m.backend)")
fi
