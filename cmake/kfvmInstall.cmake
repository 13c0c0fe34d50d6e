include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KFVM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kfvm)

set(_kfvm_targets kfvm kfvm_core kfvm_io kfvm_kernels kfvm_solvers kfvm_solver_factory)
if(KFVM_HAVE_TRILINOS)
  list(APPEND _kfvm_targets kfvm_trilinos)
endif()
if(TARGET kfvm_mpi)
  list(APPEND _kfvm_targets kfvm_mpi kfvm_distributed)
endif()
install(TARGETS ${_kfvm_targets}
        EXPORT kfvmTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kfvm)
install(EXPORT kfvmTargets NAMESPACE kfvm:: DESTINATION ${KFVM_INSTALL_CMAKEDIR})

set(_kfvm_layers core core/io kernels solvers solvers/operators solvers/preconditioners
                 solvers/krylov solvers/multigrid solvers/direct)
if(KFVM_HAVE_TRILINOS)
  list(APPEND _kfvm_layers solvers/trilinos)
endif()
# Each layer's public headers (its own folder only: detail/ stays private) go flat into
# include/kfvm, as the sources include them by file name.
foreach(_kfvm_layer IN LISTS _kfvm_layers)
  file(GLOB _kfvm_layer_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${_kfvm_layer}/*.hpp)
  install(FILES ${_kfvm_layer_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kfvm)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/kfvm_Config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kfvm)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kfvmConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kfvmConfig.cmake
                              INSTALL_DESTINATION ${KFVM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kfvmConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kfvmConfig.cmake
              ${PROJECT_BINARY_DIR}/kfvmConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/kfvmKokkosFixups.cmake
        DESTINATION ${KFVM_INSTALL_CMAKEDIR})
