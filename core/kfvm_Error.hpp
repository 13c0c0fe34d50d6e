#ifndef KFVM_ERROR_HPP
#define KFVM_ERROR_HPP

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kfvm {

/// The one exception type kfvm throws. Its message names the offending value.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message)
      : std::runtime_error("kfvm: " + message), message_(message) {}
  /// The message without what()'s "kfvm: " prefix, to quote inside another.
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

namespace Details {
template <class... Parts>
std::string concatenate(Parts&&... parts) {
  std::ostringstream out;
  out.precision(17);
  (out << ... << std::forward<Parts>(parts));
  return out.str();
}
}  // namespace Details

/// Throws kfvm::Error with the parts streamed into one message.
template <class... Parts>
[[noreturn]] void fail(Parts&&... parts) {
  throw Error(Details::concatenate(std::forward<Parts>(parts)...));
}

/// Throws kfvm::Error with the parts as its message unless the condition holds.
template <class... Parts>
void require(bool condition, Parts&&... parts) {
  if (!condition) fail(std::forward<Parts>(parts)...);
}

}  // namespace kfvm

#endif
