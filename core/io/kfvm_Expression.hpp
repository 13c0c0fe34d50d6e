#ifndef KFVM_EXPRESSION_HPP
#define KFVM_EXPRESSION_HPP

#include <string>
#include <vector>

namespace kfvm {

/// A small arithmetic expression in x, y, z and t, as decks write initial values and
/// exact solutions: numbers, + - * / ^ (right-associative), unary minus, parentheses,
/// the constant pi, and exp, log, sqrt, abs, sin, cos, tan, tanh, erf, erfc, min(a, b),
/// max(a, b).
/// Parsed once into postfix form; evaluated on the host. An expression is at most
/// maxLength characters long and nests at most maxDepth levels (parentheses, function
/// arguments, unary minus signs, powers), so that neither the parser's recursion nor the
/// evaluator's stack can overflow.
class Expression {
 public:
  static constexpr std::size_t maxLength = 10000;
  static constexpr int maxDepth = 64;

  /// Throws kfvm::Error naming the text and the position of the first thing it cannot
  /// read, or the limit it passes.
  explicit Expression(const std::string& text);

  double operator()(double x, double y, double z, double t = 0) const;
  const std::string& text() const { return text_; }
  /// True when the expression reads t.
  bool usesTime() const { return usesTime_; }

 private:
  enum class Op { Number, X, Y, Z, T, Add, Sub, Mul, Div, Pow, Neg, Func1, Func2 };
  struct Token {
    Op op;
    double value;  // Number
    int function;  // Func1 / Func2: index into the function tables
  };
  std::string text_;
  std::vector<Token> program_;
  bool usesTime_ = false;

  friend class ExpressionParser;
};

}  // namespace kfvm

#endif
