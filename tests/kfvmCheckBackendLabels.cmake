cmake_minimum_required(VERSION 3.16)
# Guard: the backend labels ctest reports must be exactly the execution spaces Kokkos was
# configured with (as `kfvm info --backends` reads them from Kokkos' macros), less those
# KFVM_TEST_BACKENDS leaves out by name (TESTED_BACKENDS: the ones tested, comma-separated;
# the others are named in the output), and every backend must run the same number of
# tests. Run by ctest with
#   -DKFVM_COMMAND=<kfvm> -DCTEST_COMMAND=<ctest> -DBUILD_DIR=<build tree>
#   -DTESTED_BACKENDS=<Serial,OpenMP,...> -P this file
foreach(variable KFVM_COMMAND CTEST_COMMAND BUILD_DIR TESTED_BACKENDS)
  if(NOT ${variable})
    message(FATAL_ERROR "kfvmCheckBackendLabels: ${variable} is not set")
  endif()
endforeach()

execute_process(COMMAND ${KFVM_COMMAND} info --backends
                OUTPUT_VARIABLE kokkos_spaces RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "'kfvm info --backends' failed (${status})")
endif()

execute_process(COMMAND ${CTEST_COMMAND} --print-labels WORKING_DIRECTORY ${BUILD_DIR}
                OUTPUT_VARIABLE label_text RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "'ctest --print-labels' failed (${status})")
endif()

# Every Kokkos execution space name is a backend label; other labels (perf, MPI...) are not.
set(all_spaces Serial OpenMP Threads HPX Cuda HIP SYCL OpenMPTarget)
# Kokkos may print start-up warnings to stdout too: keep only the lines naming a space.
string(REPLACE "\n" ";" info_lines "${kokkos_spaces}")
set(kokkos_spaces "")
foreach(line IN LISTS info_lines)
  string(STRIP "${line}" line)
  if(line IN_LIST all_spaces)
    list(APPEND kokkos_spaces ${line})
  endif()
endforeach()
if(NOT kokkos_spaces)
  message(FATAL_ERROR "'kfvm info --backends' named no execution space")
endif()

set(backend_labels "")
string(REPLACE "\n" ";" label_lines "${label_text}")
foreach(line IN LISTS label_lines)
  string(STRIP "${line}" label)
  if(label IN_LIST all_spaces)
    list(APPEND backend_labels ${label})
  endif()
endforeach()

set(problems "")
string(REPLACE "," ";" tested "${TESTED_BACKENDS}")
foreach(space IN LISTS tested)
  if(NOT space IN_LIST kokkos_spaces)
    string(APPEND problems "\n  KFVM_TEST_BACKENDS names ${space}, which this Kokkos does not enable")
  endif()
endforeach()
foreach(space IN LISTS kokkos_spaces)
  if(NOT space IN_LIST tested)
    message(STATUS "Kokkos enables ${space}; KFVM_TEST_BACKENDS leaves its tests out of this build")
  elseif(NOT space IN_LIST backend_labels)
    string(APPEND problems "\n  Kokkos enables ${space}, but no ctest test is labelled ${space}")
  endif()
endforeach()
foreach(label IN LISTS backend_labels)
  if(NOT label IN_LIST kokkos_spaces)
    string(APPEND problems "\n  ctest label ${label} is not an execution space of this Kokkos")
  elseif(NOT label IN_LIST tested)
    string(APPEND problems "\n  ctest label ${label} names a backend KFVM_TEST_BACKENDS leaves out")
  endif()
endforeach()

# The same test sources run on every backend, so each label must hold as many tests.
set(reference_count "")
foreach(label IN LISTS backend_labels)
  execute_process(COMMAND ${CTEST_COMMAND} -N -L "^${label}$" WORKING_DIRECTORY ${BUILD_DIR}
                  OUTPUT_VARIABLE listing)
  # Count the suite's own tests (named <Backend>.<Suite>.<Test>); other tests may carry a
  # backend label too (the Trilinos adapter's run on Serial).
  string(REGEX MATCHALL "Test +#[0-9]+: ${label}\\.[A-Za-z0-9_]+\\.[A-Za-z0-9_/]+" suite_tests
         "${listing}")
  list(LENGTH suite_tests count)
  message(STATUS "backend ${label}: ${count} tests")
  if(NOT count OR count EQUAL 0)
    string(APPEND problems "\n  backend ${label} has no tests")
  elseif(reference_count STREQUAL "")
    set(reference_count ${count})
    set(reference_label ${label})
  elseif(NOT count EQUAL reference_count)
    string(APPEND problems
           "\n  backend ${label} has ${count} tests, ${reference_label} has ${reference_count}")
  endif()
endforeach()

# Where Kokkos has OpenMP, every test must name its host threads (OMP_NUM_THREADS) and
# reserve at least as many from ctest -j (PROCESSORS); kfvmTestThreads.cmake says why.
# A ';' in a property given to gtest_discover_tests once silently dropped PROCESSORS.
if("OpenMP" IN_LIST kokkos_spaces AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  execute_process(COMMAND ${CTEST_COMMAND} --show-only=json-v1 WORKING_DIRECTORY ${BUILD_DIR}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "'ctest --show-only=json-v1' failed (${status})")
  endif()
  string(JSON test_count LENGTH "${listing}" tests)
  math(EXPR last "${test_count} - 1")
  set(checked 0)
  foreach(t RANGE ${last})
    string(JSON test GET "${listing}" tests ${t})  # once: each query parses all it is given
    string(JSON name GET "${test}" name)
    string(JSON property_count LENGTH "${test}" properties)
    set(threads "")
    set(processors 1)
    if(property_count GREATER 0)
      math(EXPR last_property "${property_count} - 1")
      foreach(p RANGE ${last_property})
        string(JSON property GET "${test}" properties ${p} name)
        string(JSON value GET "${test}" properties ${p} value)
        if(property STREQUAL "PROCESSORS")
          set(processors ${value})
        elseif(property STREQUAL "ENVIRONMENT" AND value MATCHES "OMP_NUM_THREADS=([0-9]+)")
          set(threads ${CMAKE_MATCH_1})
        endif()
      endforeach()
    endif()
    if(threads STREQUAL "")
      string(APPEND problems "\n  ${name} does not set OMP_NUM_THREADS")
    elseif(processors LESS threads)
      string(APPEND problems
             "\n  ${name} runs ${threads} OpenMP threads but reserves ${processors} processors")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
  message(STATUS "${checked} tests name their OpenMP threads and reserve them")
endif()

if(problems)
  message(FATAL_ERROR "backend labels do not match Kokkos (${kokkos_spaces}):${problems}")
endif()
message(STATUS "backend labels match Kokkos: ${kokkos_spaces}")
