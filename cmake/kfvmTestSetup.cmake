# What every test of a directory gets once the directory has added them
# (kfvm_finish_tests(), called at its end): a work folder of its own and, in a sanitizer
# build, the run-time options that tests starting MPI need.
#
# Work folders: every test runs in a folder of its own under ${PROJECT_BINARY_DIR}/
# test-work, so that no two tests share a file whatever their order or ctest -j. A test
# added with add_test runs in test-work/<its name>; a GoogleTest program runs in
# test-work/<its prefix>, and each of its tests in a subfolder named for the test
# (tests/kfvm_TestWorkFolder.cpp). Tests write to relative paths (or
# kfvm::Test::workFolder()); guard.TestsHaveTheirOwnWorkFolders fails when two tests are
# given the same folder or one inside another's.
set(KFVM_TEST_WORK_ROOT ${PROJECT_BINARY_DIR}/test-work)

# The backends the test programs are built for: every one kfvm is built for, unless
# KFVM_TEST_BACKENDS names a subset (CI's OpenMP build names OpenMP: the Serial backend's
# tests are its default build's). guard.BackendLabelsMatchKokkos names the backends left
# out.
set(KFVM_TEST_BACKENDS "" CACHE STRING
    "Backends to build and run the tests for (a subset of ${KFVM_BACKENDS}; empty: all)")
if(KFVM_TEST_BACKENDS)
  foreach(_kfvm_backend IN LISTS KFVM_TEST_BACKENDS)
    if(NOT _kfvm_backend IN_LIST KFVM_BACKENDS)
      message(FATAL_ERROR "KFVM_TEST_BACKENDS names '${_kfvm_backend}', which the Kokkos "
                          "found does not enable (it enables ${KFVM_BACKENDS})")
    endif()
  endforeach()
  set(KFVM_TESTED_BACKENDS ${KFVM_TEST_BACKENDS})
else()
  set(KFVM_TESTED_BACKENDS ${KFVM_BACKENDS})
endif()

# kfvm_test_work_folder(<name> <variable>): test-work/<name>, made now (ctest needs a
# test's working directory to exist).
function(kfvm_test_work_folder name variable)
  file(MAKE_DIRECTORY ${KFVM_TEST_WORK_ROOT}/${name})
  set(${variable} ${KFVM_TEST_WORK_ROOT}/${name} PARENT_SCOPE)
endfunction()

# kfvm_finish_tests(): every test of the calling directory without a WORKING_DIRECTORY
# runs in test-work/<its name>. With sanitizers, tests labelled mpi record the whole stack
# of every allocation (ASan's slow unwinder): OpenMPI keeps allocations to the end, and
# tests/sanitizers/lsan.supp can name the OpenMPI library that made them only from whole
# stacks. Other tests keep the fast unwinder: the slow one makes allocation-heavy tests
# several times slower.
function(kfvm_finish_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} WORKING_DIRECTORY folder)
    if(NOT folder)
      kfvm_test_work_folder(${test} folder)
      set_tests_properties(${test} PROPERTIES WORKING_DIRECTORY ${folder})
    endif()
    get_test_property(${test} LABELS labels)
    if(KFVM_SANITIZE AND "mpi" IN_LIST labels)
      set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                   "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=0")
    endif()
  endforeach()
endfunction()
