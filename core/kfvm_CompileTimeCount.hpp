#ifndef KFVM_COMPILE_TIME_COUNT_HPP
#define KFVM_COMPILE_TIME_COUNT_HPP

// A count known at run time handed to code that fixes it at compile time (kernels whose
// loops over a few vectors unroll and keep their sums in registers).

#include <kfvm_Error.hpp>

#include <type_traits>
#include <utility>

namespace kfvm {

namespace Details {
template <class Function, int... Counts>
void withCompileTimeCount(int count, Function& function,
                          std::integer_sequence<int, Counts...>) {
  ((count == Counts ? function(std::integral_constant<int, Counts>()) : void()), ...);
}
}  // namespace Details

/// Calls function(std::integral_constant<int, count>()) for 0 <= count <= Max: one
/// instantiation of function per possible count. A count outside is an error naming it.
template <int Max, class Function>
void withCompileTimeCount(int count, Function&& function) {
  static_assert(Max >= 0, "withCompileTimeCount: Max must be >= 0");
  require(count >= 0 && count <= Max, "withCompileTimeCount: count ", count,
          " is outside 0 to ", Max);
  Details::withCompileTimeCount(count, function,
                                std::make_integer_sequence<int, Max + 1>());
}

}  // namespace kfvm

#endif
