# Kokkos (required), Kokkos Kernels (optional), and the backend list kfvm builds for.
find_package(Kokkos REQUIRED)
include(kfvmKokkosFixups)

set(KFVM_HAVE_KOKKOSKERNELS OFF)
if(KFVM_ENABLE_KOKKOSKERNELS)
  find_package(KokkosKernels QUIET)
  include(kfvmKokkosFixups)
  if(KokkosKernels_FOUND AND NOT KFVM_KOKKOSKERNELS_TARGET)
    # Trilinos' Kokkos Kernels is built against Trilinos' own Kokkos: never mixed with another.
    message(STATUS "kfvm: ignoring Kokkos Kernels at ${KokkosKernels_DIR}: it does not belong "
                   "to the Kokkos in use (${Kokkos_DIR})")
  endif()
  if(KokkosKernels_FOUND AND KFVM_KOKKOSKERNELS_TARGET)
    set(KFVM_HAVE_KOKKOSKERNELS ON)
  endif()
endif()

# One entry per enabled Kokkos execution space; tests run once per entry.
set(KFVM_BACKENDS "")
foreach(_kfvm_backend IN ITEMS Serial OpenMP Cuda HIP)
  string(TOUPPER ${_kfvm_backend} _kfvm_upper)
  if(Kokkos_ENABLE_${_kfvm_upper} OR "${_kfvm_upper}" IN_LIST Kokkos_DEVICES)
    list(APPEND KFVM_BACKENDS ${_kfvm_backend})
  endif()
endforeach()
if(NOT KFVM_BACKENDS)
  message(FATAL_ERROR "kfvm: the Kokkos found (${Kokkos_DIR}) enables none of Serial, OpenMP, Cuda, HIP")
endif()

# Trilinos (Tpetra, Belos, MueLu, Ifpack2, Amesos2): optional, on by default when found and
# built on the same Kokkos as kfvm (Debian's Trilinos brings Debian's Kokkos 3.4).
set(_kfvm_trilinos_usable OFF)
set(_kfvm_trilinos_packages Tpetra Belos MueLu Ifpack2 Amesos2)
if(NOT DEFINED KFVM_ENABLE_TRILINOS OR KFVM_ENABLE_TRILINOS)
  find_package(Trilinos QUIET)
  if(Trilinos_FOUND)
    set(_kfvm_trilinos_usable ON)
    foreach(_kfvm_package IN LISTS _kfvm_trilinos_packages)
      if(NOT _kfvm_package IN_LIST Trilinos_PACKAGE_LIST)
        set(_kfvm_trilinos_usable OFF)
        set(_kfvm_trilinos_why "it lacks ${_kfvm_package}")
      endif()
    endforeach()
    if(NOT KFVM_KOKKOS_IS_TRILINOS)
      set(_kfvm_trilinos_usable OFF)
      set(_kfvm_trilinos_why "it is built on another Kokkos than ${Kokkos_DIR}")
    endif()
    if(NOT KFVM_REAL_TYPE STREQUAL "double")
      set(_kfvm_trilinos_usable OFF)
      set(_kfvm_trilinos_why "its Tpetra is instantiated for double only")
    endif()
  else()
    set(_kfvm_trilinos_why "find_package(Trilinos) found none")
  endif()
endif()
option(KFVM_ENABLE_TRILINOS "Build kfvm::trilinos (Belos, MueLu, Ifpack2, Amesos2)"
       ${_kfvm_trilinos_usable})
if(KFVM_ENABLE_TRILINOS)
  if(NOT _kfvm_trilinos_usable)
    message(FATAL_ERROR "KFVM_ENABLE_TRILINOS is ON but the Trilinos at ${Trilinos_DIR} "
                        "cannot be used: ${_kfvm_trilinos_why}")
  endif()
  find_package(MPI REQUIRED COMPONENTS CXX)  # Debian's Trilinos is built with OpenMPI
  set(KFVM_HAVE_TRILINOS ON)
  set(KFVM_HAVE_MPI ON)  # through Tpetra, for now kfvm's only MPI user
else()
  set(KFVM_HAVE_TRILINOS OFF)
  set(KFVM_HAVE_MPI OFF)
  if(_kfvm_trilinos_why)
    message(STATUS "kfvm: Trilinos adapter off (${_kfvm_trilinos_why})")
  endif()
endif()

# MPI: kfvm's own domain decomposition and halo exchange (kfvm::mpi), besides Trilinos'
# use of it. On by default when MPI is found.
option(KFVM_ENABLE_MPI "Build the MPI halo exchange (kfvm::mpi) when MPI is found" ON)
if(KFVM_ENABLE_MPI AND NOT KFVM_HAVE_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(KFVM_HAVE_MPI ON)
  endif()
endif()
if(NOT KFVM_ENABLE_MPI AND NOT KFVM_HAVE_TRILINOS)
  set(KFVM_HAVE_MPI OFF)
endif()

# SuiteSparse (Debian: libsuitesparse-dev): KLU and UMFPACK behind the direct solver
# "lu" (solvers/direct/). On by default when found; without it "lu" is an error naming
# the package.
option(KFVM_ENABLE_SUITESPARSE "Build the direct solver on SuiteSparse when it is found" ON)
set(KFVM_HAVE_SUITESPARSE OFF)
if(KFVM_ENABLE_SUITESPARSE)
  find_path(KFVM_SUITESPARSE_INCLUDE_DIR NAMES klu.h umfpack.h PATH_SUFFIXES suitesparse)
  set(KFVM_SUITESPARSE_LIBRARIES "")
  set(_kfvm_suitesparse_missing "")
  foreach(_kfvm_library klu umfpack amd colamd btf suitesparseconfig)
    find_library(KFVM_SUITESPARSE_${_kfvm_library}_LIBRARY NAMES ${_kfvm_library})
    if(KFVM_SUITESPARSE_${_kfvm_library}_LIBRARY)
      list(APPEND KFVM_SUITESPARSE_LIBRARIES ${KFVM_SUITESPARSE_${_kfvm_library}_LIBRARY})
    else()
      list(APPEND _kfvm_suitesparse_missing ${_kfvm_library})
    endif()
  endforeach()
  if(KFVM_SUITESPARSE_INCLUDE_DIR AND EXISTS ${KFVM_SUITESPARSE_INCLUDE_DIR}/umfpack.h
     AND NOT _kfvm_suitesparse_missing)
    set(KFVM_HAVE_SUITESPARSE ON)
    message(STATUS "kfvm: direct solver 'lu' with SuiteSparse's KLU and UMFPACK "
                   "(${KFVM_SUITESPARSE_INCLUDE_DIR})")
  else()
    message(STATUS "kfvm: no SuiteSparse (headers ${KFVM_SUITESPARSE_INCLUDE_DIR}, "
                   "libraries missing: ${_kfvm_suitesparse_missing}): the direct solver "
                   "'lu' is off")
  endif()
endif()
