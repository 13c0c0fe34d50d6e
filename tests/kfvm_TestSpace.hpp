#ifndef KFVM_TEST_SPACE_HPP
#define KFVM_TEST_SPACE_HPP

// The execution space this test executable runs on. tests/CMakeLists.txt builds the same
// test sources once per backend kfvm is built for, defining KFVM_TEST_BACKEND.

#include <kfvm_Types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <limits>
#include <string>

namespace kfvm::Test {

inline constexpr double pi = 3.14159265358979323846;

#if defined(KFVM_TEST_BACKEND_SERIAL)
using TestExecSpace = Kokkos::Serial;
#elif defined(KFVM_TEST_BACKEND_OPENMP)
using TestExecSpace = Kokkos::OpenMP;
#elif defined(KFVM_TEST_BACKEND_CUDA)
using TestExecSpace = Kokkos::Cuda;
#elif defined(KFVM_TEST_BACKEND_HIP)
using TestExecSpace = Kokkos::HIP;
#else
#error "define KFVM_TEST_BACKEND_<SPACE> for the test executable"
#endif

/// A tolerance scaled to the precision kfvm was built with: the double-precision value
/// given, or the float equivalent (the same number of ulps, capped at 1e-3).
inline double tolerance(double forDouble) {
  if (sizeof(Real) == sizeof(double)) return forDouble;
  const double ulps = forDouble / std::numeric_limits<double>::epsilon();
  const double scaled = ulps * std::numeric_limits<float>::epsilon();
  return scaled < 1e-3 ? scaled : 1e-3;
}

/// A relative solver tolerance that the precision can reach: the value given in double,
/// at least 1e-6 in float.
inline double solverTolerance(double forDouble) {
  return sizeof(Real) == sizeof(double) ? forDouble
                                        : (forDouble > 1e-6 ? forDouble : 1e-6);
}

/// solverTolerance() as the text a solver parameter takes.
inline std::string solverToleranceText(double forDouble) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", solverTolerance(forDouble));
  return text;
}

}  // namespace kfvm::Test

#endif
