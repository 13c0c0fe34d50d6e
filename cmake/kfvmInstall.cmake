include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KFVM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kfvm)

set(_kfvm_targets kfvm kfvm_core kfvm_kernels kfvm_solvers kfvm_solver_factory)
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

set(_kfvm_layers core kernels solvers solvers/operators solvers/preconditioners
                 solvers/krylov)
if(KFVM_HAVE_TRILINOS)
  list(APPEND _kfvm_layers solvers/trilinos)
endif()
foreach(_kfvm_layer IN LISTS _kfvm_layers)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_kfvm_layer}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kfvm
          FILES_MATCHING PATTERN "*.hpp" PATTERN "detail" EXCLUDE PATTERN "trilinos" EXCLUDE
                         PATTERN "operators" EXCLUDE PATTERN "preconditioners" EXCLUDE
                         PATTERN "krylov" EXCLUDE)
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
