#ifndef KFVM_APPS_DECK_TABLE_READER_HPP
#define KFVM_APPS_DECK_TABLE_READER_HPP

// The typed reads behind readDeck (kfvm_Deck.cpp): one TOML table at a time, with errors
// that name the file, line, table, key and value. Host only (toml++).

#include <kfvm_Expression.hpp>
#include "kfvm_Deck.hpp"

#include <kfvm_Error.hpp>

#include <toml++/toml.h>

#include <array>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kfvm::app {

/// The bound of a deck number that has none.
inline constexpr double huge = std::numeric_limits<double>::max();

/// One table of the deck: typed reads that remember the keys read, and errors that
/// name file, line, table, key and value.
class TableReader {
 public:
  TableReader(const std::string& path, const toml::table& table, std::string name)
      : path_(path), table_(table), name_(std::move(name)) {}

  const toml::node* find(const std::string& key) {
    used_.insert(key);
    return table_.get(key);
  }

  /// Where key is (or would be) in the deck, for errors found after reading.
  DeckKey at(const std::string& key) const {
    const toml::node* node = table_.get(key);
    return {name_, key,
            int(node ? node->source().begin.line : table_.source().begin.line)};
  }

  template <class... Args>
  [[noreturn]] void error(const toml::node* node, const std::string& key,
                          const Args&... args) const {
    const auto line = node ? node->source().begin.line : table_.source().begin.line;
    fail(path_, ":", line, ": [", name_, "] ", key, ": ", args...);
  }

  static std::string show(const toml::node& node) {
    std::ostringstream text;
    if (node.is_string())
      text << '"' << *node.value<std::string>() << '"';
    else if (node.is_table())
      text << "a table";
    else if (node.is_array())
      text << "an array";
    else
      node.visit([&](auto&& value) { text << value; });
    return text.str();
  }

  static std::string range(double low, double high) { return rangeText(low, high); }

  double number(const std::string& key, double fallback, double low, double high,
                bool required = false) {
    const toml::node* node = find(key);
    if (!node) {
      if (required) error(nullptr, key, "missing (a number that ", range(low, high), ")");
      return fallback;
    }
    const auto value = node->value<double>();
    if (!node->is_number() || !value)
      error(node, key, "expected a number, got ", show(*node));
    if (!(*value >= low && *value <= high))
      error(node, key, "value ", *value, " is out of range (", range(low, high), ")");
    return *value;
  }

  int integer(const std::string& key, int fallback, int low, int high,
              bool required = false) {
    const toml::node* node = find(key);
    if (!node) {
      if (required)
        error(nullptr, key, "missing (an integer in [", low, ", ", high, "])");
      return fallback;
    }
    if (!node->is_integer()) error(node, key, "expected an integer, got ", show(*node));
    const auto value = *node->value<std::int64_t>();
    if (value < low || value > high)
      error(node, key, "value ", value, " is out of range [", low, ", ", high, "]");
    return int(value);
  }

  bool boolean(const std::string& key, bool fallback) {
    const toml::node* node = find(key);
    if (!node) return fallback;
    if (!node->is_boolean())
      error(node, key, "expected true or false, got ", show(*node));
    return *node->value<bool>();
  }

  std::string string(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& allowed = {},
                     bool required = false) {
    const toml::node* node = find(key);
    if (!node) {
      if (required) error(nullptr, key, "missing");
      return fallback;
    }
    if (!node->is_string()) error(node, key, "expected a string, got ", show(*node));
    const std::string value = *node->value<std::string>();
    if (!allowed.empty()) {
      std::string known;
      for (const auto& a : allowed) {
        if (a == value) return value;
        known += (known.empty() ? "" : ", ") + a;
      }
      error(node, key, "unknown value \"", value, "\" (known: ", known, ")");
    }
    return value;
  }

  /// An array of pairs of strings ([["a", "b"], ...]); none without the key.
  std::vector<std::array<std::string, 2>> stringPairs(const std::string& key) {
    const toml::node* node = find(key);
    std::vector<std::array<std::string, 2>> pairs;
    if (!node) return pairs;
    const toml::array* array = node->as_array();
    if (!array || array->empty())
      error(node, key, "expected an array of pairs of names, got ", show(*node));
    for (const toml::node& element : *array) {
      const toml::array* pair = element.as_array();
      if (!pair || pair->size() != 2 || !(*pair)[0].is_string() ||
          !(*pair)[1].is_string())
        error(&element, key, "expected a pair of names [\"a\", \"b\"], got ",
              show(element));
      pairs.push_back(
          {*(*pair)[0].value<std::string>(), *(*pair)[1].value<std::string>()});
    }
    return pairs;
  }

  /// An array of numbers; size 0 means any non-empty size.
  std::vector<double> numbers(const std::string& key, std::size_t size, double low,
                              double high, bool required = false) {
    const toml::node* node = find(key);
    if (!node) {
      if (required) error(nullptr, key, "missing (an array of ", size, " numbers)");
      return {};
    }
    const toml::array* array = node->as_array();
    if (!array) error(node, key, "expected an array of numbers, got ", show(*node));
    if ((size > 0 && array->size() != size) || array->empty())
      error(node, key, "expected ", size > 0 ? std::to_string(size) : "some",
            " numbers, got ", array->size());
    std::vector<double> values;
    for (const toml::node& element : *array) {
      const auto value = element.value<double>();
      if (!element.is_number() || !value)
        error(&element, key, "expected a number, got ", show(element));
      if (!(*value >= low && *value <= high))
        error(&element, key, "value ", *value, " is out of range (", range(low, high),
              ")");
      values.push_back(*value);
    }
    return values;
  }

  /// A number in [low, high], or a string holding an expression in x, y, z (its values
  /// at the cells are held to [low, high] when the run sets up: validateDeck). Without
  /// the key: fallback, or an error when it is required.
  DeckCoefficient coefficient(const std::string& key, double fallback, double low,
                              double high, bool required = false) {
    const toml::node* node = find(key);
    DeckCoefficient result;
    result.value = fallback;
    result.low = low;
    result.high = high;
    result.at = at(key);
    if (node && node->is_string()) {
      result.expression = *node->value<std::string>();
      bool usesTime = false;
      try {
        usesTime = Expression(result.expression).usesTime();
      } catch (const Error& e) {
        error(node, key, e.message());
      }
      if (usesTime)
        error(node, key, "expression '", result.expression,
              "' reads t, but coefficients are evaluated once, before the first step "
              "(use x, y and z only)");
      return result;
    }
    result.value = number(key, fallback, low, high, required);
    return result;
  }

  const toml::table* subtable(const std::string& key) {
    const toml::node* node = find(key);
    if (node && !node->is_table())
      error(node, key, "expected a table, got ", show(*node));
    return node ? node->as_table() : nullptr;
  }

  /// Every key must have been read: the first that was not is an error.
  void finish() const {
    for (auto&& [key, node] : table_) {
      const std::string name(key.str());
      if (!used_.count(name)) {
        const auto line = key.source().begin.line;
        fail(path_, ":", line, ": [", name_, "] unknown key '", name, "'");
      }
    }
  }

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }

 private:
  const std::string& path_;
  const toml::table& table_;
  std::string name_;
  std::set<std::string> used_;
};

struct Deck;
struct InitialCondition;

/// A variable's `initial` table.
void readInitial(TableReader& initial, InitialCondition& condition, int dimension);

/// [time] (kfvm_DeckTime.cpp).
void readTime(TableReader& time, Deck& deck);

/// [variable] or [[variable]] (kfvm_DeckVariables.cpp); every deck has one or more.
void readVariables(TableReader& top, Deck& deck);

/// The [[equation]] tables of a coupled deck, one per variable.
void readCoupledEquations(TableReader& top, const toml::array& equations, Deck& deck);

/// The variable a table's key names (a [[boundary]] or [check] `variable`): its index;
/// without the key, 0 when the deck has one variable, else an error.
int variableIndex(TableReader& reader, const std::string& key, const Deck& deck);

}  // namespace kfvm::app

#endif
