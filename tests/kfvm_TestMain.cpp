#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

namespace {

bool onlyListingTests() {
#ifdef GTEST_FLAG_GET
  return GTEST_FLAG_GET(list_tests);
#else
  return ::testing::GTEST_FLAG(list_tests);
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  // ctest's test discovery parses this program's --gtest_list_tests output: Kokkos must
  // not start then, or its start-up warnings would be read as test names.
  if (onlyListingTests()) return RUN_ALL_TESTS();
  Kokkos::initialize(argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
