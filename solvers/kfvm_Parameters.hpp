#ifndef KFVM_PARAMETERS_HPP
#define KFVM_PARAMETERS_HPP

#include <map>
#include <set>
#include <string>

namespace kfvm {

/// Key/value options for run-time choices (solver parameters and the like). Values are
/// kept as text and converted on read; a bad conversion or an unknown key is a
/// kfvm::Error that names the key and the value.
class Parameters {
 public:
  Parameters() = default;
  Parameters(std::initializer_list<std::pair<const std::string, std::string>> entries)
      : entries_(entries) {}

  Parameters& set(const std::string& key, const std::string& value);
  Parameters& set(const std::string& key, const char* value) {
    return set(key, std::string(value));
  }
  Parameters& set(const std::string& key, double value);
  Parameters& set(const std::string& key, int value);

  bool has(const std::string& key) const { return entries_.count(key) > 0; }
  const std::map<std::string, std::string>& entries() const { return entries_; }
  std::string getString(const std::string& key, const std::string& fallback) const;
  double getDouble(const std::string& key, double fallback) const;
  int getInt(const std::string& key, int fallback) const;

  /// Throws kfvm::Error naming the first key that is not among known.
  void requireKnown(const std::set<std::string>& known, const std::string& owner) const;

 private:
  std::map<std::string, std::string> entries_;
};

}  // namespace kfvm

#endif
