// Every GoogleTest test runs in a folder of its own: <start folder>/<Suite>.<Test>, made
// (emptied first) before the test starts and entered for its duration. ctest starts each
// test program in the test's own folder (tests/CMakeLists.txt), so tests that write files
// (relative paths, or kfvm::Test::workFolder()) never share one, whatever the order or
// -j. Linked into every GoogleTest program; it registers itself before main() runs.
#include "kfvm_TestWorkFolder.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace kfvm::Test {
namespace {

std::filesystem::path& current() {
  static std::filesystem::path folder;
  return folder;
}

/// Fails the whole program: a test without its folder would write into another's.
[[noreturn]] void cannot(const std::string& what, const std::filesystem::path& path,
                         const std::error_code& error) {
  std::fprintf(stderr, "kfvm test: cannot %s the work folder '%s': %s\n", what.c_str(),
               path.string().c_str(), error.message().c_str());
  std::exit(3);
}

class WorkFolderListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& test) override {
    std::error_code error;
    if (start_.empty()) {
      start_ = std::filesystem::current_path(error);
      if (error) cannot("read the start folder of", ".", error);
    }
    const auto folder =
        start_ / (std::string(test.test_suite_name()) + "." + test.name());
    // Ranks of an MPI test share the folder: each makes it, none empties it.
    if (!std::getenv("OMPI_COMM_WORLD_SIZE")) std::filesystem::remove_all(folder, error);
    std::filesystem::create_directories(folder, error);
    if (!std::filesystem::is_directory(folder)) cannot("make", folder, error);
    std::filesystem::current_path(folder, error);
    if (error) cannot("enter", folder, error);
    current() = folder;
  }

  void OnTestEnd(const ::testing::TestInfo&) override {
    std::error_code error;
    std::filesystem::current_path(start_, error);
    if (error) cannot("leave", current(), error);
    current().clear();
  }

 private:
  std::filesystem::path start_;
};

const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new WorkFolderListener);
  return true;
}();

}  // namespace

std::string workFolder() {
  if (current().empty()) {
    ADD_FAILURE() << "kfvm::Test::workFolder() called outside a running test";
    return std::filesystem::current_path().string();
  }
  return current().string();
}

std::string workPath(const std::string& name) {
  return (std::filesystem::path(workFolder()) / name).string();
}

}  // namespace kfvm::Test
