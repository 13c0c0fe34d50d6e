#include <kfvm_Expression.hpp>

#include <kfvm_Error.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace kfvm {

namespace {

const char* const unaryNames[] = {"exp", "log", "sqrt", "abs", "sin",
                                  "cos", "tan", "tanh", "erf", "erfc"};
double (*const unaryFunctions[])(double) = {[](double v) { return std::exp(v); },
                                            [](double v) { return std::log(v); },
                                            [](double v) { return std::sqrt(v); },
                                            [](double v) { return std::abs(v); },
                                            [](double v) { return std::sin(v); },
                                            [](double v) { return std::cos(v); },
                                            [](double v) { return std::tan(v); },
                                            [](double v) { return std::tanh(v); },
                                            [](double v) { return std::erf(v); },
                                            [](double v) {
                                              return std::erfc(v);
                                            }};
constexpr int numUnary = sizeof(unaryNames) / sizeof(unaryNames[0]);
const char* const binaryNames[] = {"min", "max"};

}  // namespace

/// Recursive descent: sum := product (('+' | '-') product)*; product := unary (('*' |
/// '/') unary)*; unary := '-' unary | power; power := atom ('^' unary)?; atom := number
/// | name | name '(' sum (',' sum)? ')' | '(' sum ')'.
class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, std::vector<Expression::Token>& program)
      : text_(text), program_(program) {}

  void parse() {
    if (text_.size() > Expression::maxLength) {
      position_ = Expression::maxLength;
      error("longer than " + std::to_string(Expression::maxLength) + " characters");
    }
    sum();
    skipSpace();
    if (position_ < text_.size())
      error("unexpected '" + std::string(1, text_[position_]) + "'");
  }

 private:
  using Op = Expression::Op;

  [[noreturn]] void error(const std::string& what) const {
    fail("expression '", text_, "': ", what, " at character ", position_ + 1);
  }
  void skipSpace() {
    while (position_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }
  bool accept(char c) {
    skipSpace();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void emit(Op op, double value = 0, int function = 0) {
    program_.push_back({op, value, function});
    if (op == Op::Number || op == Op::X || op == Op::Y || op == Op::Z || op == Op::T)
      ++stack_;
    else if (op != Op::Neg && op != Op::Func1)
      --stack_;  // a binary operation: two values in, one out
    if (stack_ > Expression::maxDepth) error("needs too deep an evaluation stack");
  }
  /// One more level of nesting: parentheses, a function's argument, a unary minus, a
  /// power's exponent.
  struct Level {
    ExpressionParser& parser;
    explicit Level(ExpressionParser& p) : parser(p) {
      if (++parser.depth_ > Expression::maxDepth)
        parser.error("nests deeper than " + std::to_string(Expression::maxDepth) +
                     " levels");
    }
    ~Level() { --parser.depth_; }
  };

  void sum() {
    product();
    for (;;) {
      if (accept('+')) {
        product();
        emit(Op::Add);
      } else if (accept('-')) {
        product();
        emit(Op::Sub);
      } else {
        return;
      }
    }
  }
  void product() {
    unary();
    for (;;) {
      if (accept('*')) {
        unary();
        emit(Op::Mul);
      } else if (accept('/')) {
        unary();
        emit(Op::Div);
      } else {
        return;
      }
    }
  }
  void unary() {
    if (accept('-')) {
      const Level level(*this);
      unary();
      emit(Op::Neg);
    } else {
      power();
    }
  }
  void power() {
    atom();
    if (accept('^')) {
      const Level level(*this);
      unary();
      emit(Op::Pow);
    }
  }
  void atom() {
    skipSpace();
    if (position_ >= text_.size()) error("unexpected end");
    const char c = text_[position_];
    if (accept('(')) {
      const Level level(*this);
      sum();
      if (!accept(')')) error("missing ')'");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      const double value = std::strtod(text_.c_str() + position_, &end);
      if (end == text_.c_str() + position_) error("bad number");
      position_ = std::size_t(end - text_.c_str());
      emit(Op::Number, value);
      return;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)))
      error("unexpected '" + std::string(1, c) + "'");
    std::string name;
    while (position_ < text_.size() &&
           std::isalnum(static_cast<unsigned char>(text_[position_])))
      name += text_[position_++];
    if (name == "x") return emit(Op::X);
    if (name == "y") return emit(Op::Y);
    if (name == "z") return emit(Op::Z);
    if (name == "t") {
      usesTime_ = true;
      return emit(Op::T);
    }
    if (name == "pi") return emit(Op::Number, 3.14159265358979323846);
    for (int f = 0; f < numUnary; ++f) {
      if (name != unaryNames[f]) continue;
      if (!accept('(')) error("'" + name + "' needs '('");
      const Level level(*this);
      sum();
      if (!accept(')')) error("missing ')' after the argument of '" + name + "'");
      return emit(Op::Func1, 0, f);
    }
    for (int f = 0; f < 2; ++f) {
      if (name != binaryNames[f]) continue;
      if (!accept('(')) error("'" + name + "' needs '('");
      const Level level(*this);
      sum();
      if (!accept(',')) error("'" + name + "' takes two arguments");
      sum();
      if (!accept(')')) error("missing ')' after the arguments of '" + name + "'");
      return emit(Op::Func2, 0, f);
    }
    position_ -= name.size();
    error("unknown name '" + name +
          "' (known: x, y, z, t, pi, exp, log, sqrt, abs, sin, cos, "
          "tan, tanh, erf, erfc, min, max)");
  }

  const std::string& text_;
  std::vector<Expression::Token>& program_;
  std::size_t position_ = 0;
  int depth_ = 0, stack_ = 0;

 public:
  bool usesTime_ = false;
};

Expression::Expression(const std::string& text) : text_(text) {
  ExpressionParser parser(text_, program_);
  parser.parse();
  usesTime_ = parser.usesTime_;
}

double Expression::operator()(double x, double y, double z, double t) const {
  double stack[maxDepth + 1];  // the parser keeps the depth within maxDepth
  int top = 0;
  for (const Token& token : program_) {
    switch (token.op) {
      case Op::Number:
        stack[top++] = token.value;
        break;
      case Op::X:
        stack[top++] = x;
        break;
      case Op::Y:
        stack[top++] = y;
        break;
      case Op::Z:
        stack[top++] = z;
        break;
      case Op::T:
        stack[top++] = t;
        break;
      case Op::Neg:
        stack[top - 1] = -stack[top - 1];
        break;
      case Op::Func1:
        stack[top - 1] = unaryFunctions[token.function](stack[top - 1]);
        break;
      default: {
        const double b = stack[--top], a = stack[top - 1];
        double r = 0;
        switch (token.op) {
          case Op::Add:
            r = a + b;
            break;
          case Op::Sub:
            r = a - b;
            break;
          case Op::Mul:
            r = a * b;
            break;
          case Op::Div:
            r = a / b;
            break;
          case Op::Pow:
            r = std::pow(a, b);
            break;
          default:
            r = token.function == 0 ? std::min(a, b) : std::max(a, b);
            break;
        }
        stack[top - 1] = r;
      }
    }
  }
  return stack[0];
}

}  // namespace kfvm
