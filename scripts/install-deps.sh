#!/usr/bin/env bash
# Installs, with apt, whatever kfvm's default build (Debian 12: Kokkos 3.4 and the
# Trilinos 13.2 solvers, Kokkos Kernels, OpenMPI, CLI11, GoogleTest, toml++ and stb for
# decks, METIS for mesh partitions, SuiteSparse for the direct solver, with OpenBLAS for
# its dense kernels: twice as fast as the reference BLAS) still lacks. Does nothing when
# all is there. KFVM_WITHOUT_TRILINOS=1 leaves Trilinos and MPI out.
set -euo pipefail

packages=(cmake ninja-build g++ make ccache
          libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          libcli11-dev libgtest-dev googletest libtomlplusplus-dev libstb-dev
          libspdlog-dev libmetis-dev libsuitesparse-dev libopenblas0-serial
          python3 pybind11-dev python3-dev libdlpack-dev python3-numpy
          python3-pytest python3-scipy python3-packaging python3-matplotlib)
if [ "${KFVM_WITHOUT_TRILINOS:-0}" != 1 ]; then
  # find_package(Trilinos) needs the whole set; its link line needs (PT-)Scotch; OpenMPI.
  packages+=(trilinos-all-dev libptscotch-dev libscotch-dev libopenmpi-dev openmpi-bin)
fi
if [ "${KFVM_WITH_FORMAT_CHECK:-0}" = 1 ]; then packages+=(clang-format); fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "kfvm: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "kfvm: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
