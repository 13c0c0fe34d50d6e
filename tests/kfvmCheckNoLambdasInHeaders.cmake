# guard.NoDeviceLambdasInHeaders: no KOKKOS_LAMBDA or KOKKOS_CLASS_LAMBDA in a header
# outside a comment. nvcc's extended-lambda wrappers in a header that several translation
# units compile break the one-definition rule: Release builds on Cuda then call through a
# null pointer (7519826 in the library's headers, a30f28b in a test header). Headers use
# named functors. SOURCE_DIR: the project's source folder.
file(GLOB_RECURSE headers
     ${SOURCE_DIR}/core/*.hpp ${SOURCE_DIR}/kernels/*.hpp ${SOURCE_DIR}/solvers/*.hpp
     ${SOURCE_DIR}/apps/*.hpp ${SOURCE_DIR}/python/*.hpp ${SOURCE_DIR}/tests/*.hpp
     ${SOURCE_DIR}/perf/*.hpp)
set(found "")
foreach(header IN LISTS headers)
  file(STRINGS ${header} lines REGEX "KOKKOS_(CLASS_)?LAMBDA")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^[ \t]*//")
      string(APPEND found "\n  ${header}: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(found)
  message(FATAL_ERROR "device lambdas in headers (use a named functor):${found}")
endif()
message(STATUS "${count} headers, no device lambda outside a comment")
