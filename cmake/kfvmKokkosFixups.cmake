# Repairs and normalises what find_package(Kokkos) / find_package(KokkosKernels) give,
# for kfvm's build and for its installed package config alike.
#
# Debian 12's Kokkos 3.4 (from Trilinos 13.2) defines Kokkos::kokkos with the include
# directory /usr/lib/include, which does not exist; the real headers sit in
# Kokkos_INCLUDE_DIRS. Its Kokkos Kernels target is called trilinos_kokkoskernels,
# where a standalone Kokkos Kernels calls it Kokkos::kokkoskernels.
if(TARGET Kokkos::kokkos)
  get_target_property(_kfvm_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  if(_kfvm_kokkos_inc)
    foreach(_kfvm_dir IN LISTS _kfvm_kokkos_inc)
      if(NOT _kfvm_dir MATCHES "^\\$<" AND NOT EXISTS "${_kfvm_dir}" AND Kokkos_INCLUDE_DIRS)
        set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                        "${Kokkos_INCLUDE_DIRS}")
        break()
      endif()
    endforeach()
  endif()
endif()

# Whether Kokkos itself came from Trilinos: decided once, right after find_package(Kokkos),
# since Trilinos' Kokkos Kernels config defines the Trilinos Kokkos targets too.
if(NOT DEFINED KFVM_KOKKOS_IS_TRILINOS)
  if(TARGET trilinos_kokkoscore)
    set(KFVM_KOKKOS_IS_TRILINOS TRUE)
  else()
    set(KFVM_KOKKOS_IS_TRILINOS FALSE)
  endif()
endif()

set(KFVM_KOKKOSKERNELS_TARGET "")
if(TARGET Kokkos::kokkoskernels)
  set(KFVM_KOKKOSKERNELS_TARGET Kokkos::kokkoskernels)
elseif(TARGET trilinos_kokkoskernels AND KFVM_KOKKOS_IS_TRILINOS)
  set(KFVM_KOKKOSKERNELS_TARGET trilinos_kokkoskernels)
endif()
