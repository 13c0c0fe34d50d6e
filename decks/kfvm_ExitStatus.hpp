#ifndef KFVM_DECKS_EXIT_STATUS_HPP
#define KFVM_DECKS_EXIT_STATUS_HPP

// The exit statuses of every kfvm command and deck run (README: "What kfvm guarantees"),
// and how they print an error.

#include <kfvm_Error.hpp>

#include <chrono>
#include <cstdio>
#include <exception>

namespace kfvm::app {

/// Wall seconds since start.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

enum ExitStatus : int {
  exitOk = 0,
  exitError = 1,        // an error: bad input, a failed write, a damaged checkpoint
  exitSolveFailed = 2,  // a solve did not converge, or a field became NaN or inf
  exitCheckFailed = 4,  // the result does not meet the deck's [check]
  exitUsage = 64,       // a command line kfvm cannot parse (EX_USAGE)
};

/// Prints an error as every kfvm command does: "kfvm error: MESSAGE" on stderr.
inline void printError(const std::exception& error) {
  const auto* own = dynamic_cast<const Error*>(&error);
  std::fprintf(stderr, "kfvm error: %s\n", own ? own->message().c_str() : error.what());
}

}  // namespace kfvm::app

#endif
