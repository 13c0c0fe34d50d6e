#ifndef KFVM_DETAIL_GMSH_READING_HPP
#define KFVM_DETAIL_GMSH_READING_HPP

// What the ASCII (kfvm_GmshFile.cpp) and binary (kfvm_GmshBinary.cpp) .msh readers share.

#include <kfvm_Error.hpp>
#include <kfvm_GmshFile.hpp>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <istream>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kfvm::Details::Gmsh {

constexpr long long maxCount = std::numeric_limits<Ordinal>::max();

/// Node tag -> index into GmshFile::nodes.
using NodeIndex = std::unordered_map<long long, Ordinal>;
/// (dimension, entity tag) -> the entity's physical tags (MSH 4.1).
using EntityPhysicals = std::map<std::pair<int, int>, std::vector<int>>;

/// The file's lines, read one at a time, split into numbers or words, with the line
/// number for errors.
class Lines {
 public:
  Lines(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

  /// The next line; false at the end of the file.
  bool next() {
    if (!std::getline(in_, line_)) return false;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    ++number_;
    at_ = 0;
    return true;
  }
  /// The next line, which must exist (within section).
  void require(const char* section) {
    if (!next()) fail(where(), "the file ends inside ", section);
  }
  const std::string& line() const { return line_; }
  std::string where() const {
    return "Gmsh mesh '" + name_ + "', line " + std::to_string(number_) + ": ";
  }

  /// The line's next integer.
  long long integer(const char* what) {
    skip();
    const char* start = line_.c_str() + at_;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(start, &end, 10);
    if (end == start || errno != 0 || (*end != '\0' && *end != ' ' && *end != '\t'))
      fail(where(), "expected ", what, ", got '", token(), "'");
    at_ += std::size_t(end - start);
    return value;
  }
  /// The line's next integer, in [low, high].
  int integer(const char* what, long long low, long long high) {
    const long long value = integer(what);
    if (value < low || value > high)
      fail(where(), what, " ", value, " is outside [", low, ", ", high, "]");
    return int(value);
  }
  /// The line's next real number.
  double real(const char* what) {
    skip();
    const char* start = line_.c_str() + at_;
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(start, &end);
    if (end == start || errno == ERANGE)
      fail(where(), "expected ", what, ", got '", token(), "'");
    at_ += std::size_t(end - start);
    return value;
  }
  /// count values of T stored in binary after the current line (a binary MSH file).
  template <class T>
  void binary(T* out, std::size_t count, const char* what) {
    const auto bytes = std::streamsize(sizeof(T) * count);
    in_.read(reinterpret_cast<char*>(out), bytes);
    if (in_.gcount() != bytes) fail(where(), "the file ends inside the binary ", what);
  }
  template <class T>
  T binary(const char* what) {
    T value{};
    binary(&value, 1, what);
    return value;
  }
  /// A count read in binary, checked against maxCount.
  int binaryCount(std::size_t value, const char* what) {
    if (value > std::size_t(std::numeric_limits<Ordinal>::max()))
      fail(where(), what, " ", value, " is too large");
    return int(value);
  }

  /// The rest of the line, quotes taken off.
  std::string rest() {
    skip();
    std::string s = line_.substr(at_);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
      s = s.substr(1, s.size() - 2);
    at_ = line_.size();
    return s;
  }

 private:
  void skip() {
    while (at_ < line_.size() && (line_[at_] == ' ' || line_[at_] == '\t')) ++at_;
  }
  std::string token() {
    skip();
    const auto end = line_.find_first_of(" \t", at_);
    return line_.substr(at_, end == std::string::npos ? std::string::npos : end - at_);
  }

  std::istream& in_;
  std::string name_, line_;
  long long number_ = 0;
  std::size_t at_ = 0;
};

/// Reads the lines up to "$End<section>".
void expectEnd(Lines& lines, const std::string& section);
/// The end of a binary section: the newline after its data, then "$End<section>".
void expectBinaryEnd(Lines& lines, const std::string& section);
/// A physical group seen on an element or entity, added (without a name) when the file
/// named none.
void notePhysical(GmshFile& mesh, int dimension, int tag);
/// A node's index from its tag.
Ordinal nodeIndex(Lines& lines, const NodeIndex& index, long long tag);
/// type, checked to be a first-order element kfvm reads.
int checkedType(Lines& lines, long long type);

/// The binary sections (kfvm_GmshBinary.cpp): MSH 2.2 $Nodes or $Elements, MSH 4.1
/// $Entities, $Nodes and $Elements.
void readVersion2Binary(Lines& lines, GmshFile& mesh, NodeIndex& index,
                        const std::string& section);
void readEntities4Binary(Lines& lines, GmshFile& mesh, EntityPhysicals& physicals);
void readNodes4Binary(Lines& lines, GmshFile& mesh, NodeIndex& index);
void readElements4Binary(Lines& lines, GmshFile& mesh, const NodeIndex& index,
                         const EntityPhysicals& physicals);

}  // namespace kfvm::Details::Gmsh

#endif
