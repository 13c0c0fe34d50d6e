#include <kfvm_Error.hpp>
#include <kfvm_Parameters.hpp>

#include <cstdlib>
#include <sstream>

namespace kfvm {

Parameters& Parameters::set(const std::string& key, const std::string& value) {
  entries_[key] = value;
  return *this;
}

Parameters& Parameters::set(const std::string& key, double value) {
  return set(key, Details::concatenate(value));
}

Parameters& Parameters::set(const std::string& key, int value) {
  return set(key, std::to_string(value));
}

std::string Parameters::getString(const std::string& key,
                                  const std::string& fallback) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? fallback : it->second;
}

double Parameters::getDouble(const std::string& key, double fallback) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(it->second.c_str(), &end);
  require(!it->second.empty() && end && *end == '\0', "parameter '", key,
          "' must be a number, got '", it->second, "'");
  return value;
}

int Parameters::getInt(const std::string& key, int fallback) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return fallback;
  char* end = nullptr;
  const long value = std::strtol(it->second.c_str(), &end, 10);
  require(!it->second.empty() && end && *end == '\0' && value >= -2147483647L &&
              value <= 2147483647L,
          "parameter '", key, "' must be an integer, got '", it->second, "'");
  return static_cast<int>(value);
}

void Parameters::requireKnown(const std::set<std::string>& known,
                              const std::string& owner) const {
  for (const auto& entry : entries_) {
    if (known.count(entry.first)) continue;
    std::ostringstream list;
    for (const auto& name : known) list << (list.tellp() > 0 ? ", " : "") << name;
    fail("unknown parameter '", entry.first, "' for ", owner, " (known: ", list.str(),
         ")");
  }
}

}  // namespace kfvm
