#!/usr/bin/env bash
# Builds Kokkos 3.4.01 with OpenMP and Serial from Debian 12's own `trilinos` source
# package (the Kokkos Debian ships is Serial-only), for kfvm's OpenMP build in CI:
#
#   scripts/build-kokkos-openmp.sh            # -> build-kokkos-openmp/install
#   scripts/test.sh -DKokkos_ROOT=$PWD/build-kokkos-openmp/install -DKFVM_ENABLE_TRILINOS=OFF
#
# Only packages/kokkos is unpacked and built (kfvm needs no Kokkos Kernels); Debian's own
# patches to it are applied. Source entries are derived from the machine's apt sources
# when none are enabled. Does nothing when the install is already there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${KFVM_KOKKOS_OPENMP_DIR:-$root/build-kokkos-openmp}"
prefix="$work/install"
jobs="${KFVM_JOBS:-$(nproc)}"

if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] ||
   [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  echo "kfvm: Kokkos with OpenMP already installed in $prefix"
  exit 0
fi

sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

# 1. Source package entries: derived from the binary ones, written under a kfvm name.
has_deb_src() {
  grep -rqsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
    grep -rqsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}
if ! has_deb_src; then
  echo "kfvm: enabling Debian source packages (derived from the existing apt sources)"
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    case "$file" in *kfvm-deb-src*) continue ;; esac
    sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' "$file" |
      $sudo tee "/etc/apt/sources.list.d/kfvm-deb-src-$(basename "$file")" >/dev/null
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    sed -nE 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$file" |
      $sudo tee "/etc/apt/sources.list.d/kfvm-deb-src-$(basename "$file")" >/dev/null
  done
  $sudo apt-get update -qq
fi

# 2. The source package, and packages/kokkos out of it.
mkdir -p "$work/download"
cd "$work/download"
if ! ls trilinos_*.orig.tar.* >/dev/null 2>&1; then
  apt-get source --download-only trilinos
fi
rm -rf "$work/src"
mkdir -p "$work/src"
tar -xf trilinos_*.orig.tar.* -C "$work/src" --strip-components=1 --wildcards '*/packages/kokkos/*'
tar -xf trilinos_*.debian.tar.* -C "$work/src"
cd "$work/src"
while read -r patch_name; do
  patch_file="debian/patches/$patch_name"
  [ -f "$patch_file" ] || continue
  # Debian's patches that touch nothing but packages/kokkos.
  if ! grep -E '^\+\+\+ ' "$patch_file" | grep -vq ' b/packages/kokkos/'; then
    echo "kfvm: applying Debian patch $patch_name"
    patch -p1 --forward --quiet < "$patch_file"
  fi
done < <(grep -vE '^[[:space:]]*(#|$)' debian/patches/series)

# 3. Kokkos with OpenMP and Serial, C++17, as kfvm builds; position-independent, so that
#    the Python module (a shared object) can link it.
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$work/src/packages/kokkos" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "${launcher[@]}" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
cmake --build "$work/build" -j "$jobs" --target install
echo "kfvm: Kokkos with OpenMP (from $(basename "$work"/download/trilinos_*.dsc)) in $prefix"
