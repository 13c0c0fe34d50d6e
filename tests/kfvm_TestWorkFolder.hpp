#ifndef KFVM_TEST_WORK_FOLDER_HPP
#define KFVM_TEST_WORK_FOLDER_HPP

#include <string>

namespace kfvm::Test {

/// The running test's own folder (also the current folder while it runs): files a test
/// writes go here, never to a shared place such as /tmp.
std::string workFolder();

/// workFolder()/name.
std::string workPath(const std::string& name);

}  // namespace kfvm::Test

#endif
