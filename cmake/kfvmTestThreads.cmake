# Host threads of test processes. Where Kokkos has OpenMP, every Kokkos program starts
# OpenMP threads (host deep copies and the default host space use them), and OpenMP
# barriers spin: two test processes sharing cores then run a hundred times slower than
# one alone. So each test names its threads, and reserves as many from ctest -j.
set(KFVM_TEST_OPENMP_THREADS 2 CACHE STRING "OpenMP threads of each OpenMP test")

# kfvm_test_threads(<test> <threads per process> [<processes>]): OMP_NUM_THREADS for the
# test and PROCESSORS = threads x processes. Without OpenMP in Kokkos each process is one
# thread, and only PROCESSORS = processes is set.
function(kfvm_test_threads test threads)
  set(processes 1)
  if(ARGC GREATER 2)
    set(processes ${ARGV2})
  endif()
  if("OpenMP" IN_LIST KFVM_BACKENDS)
    set_tests_properties(${test} PROPERTIES
                         ENVIRONMENT "OMP_NUM_THREADS=${threads};OMP_PROC_BIND=false")
  else()
    set(threads 1)
  endif()
  math(EXPR processors "${threads} * ${processes}")
  set_tests_properties(${test} PROPERTIES PROCESSORS ${processors})
endfunction()
