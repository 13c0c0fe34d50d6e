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
