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
