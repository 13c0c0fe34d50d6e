#ifndef KFVM_APPS_COMMAND_CONTEXT_HPP
#define KFVM_APPS_COMMAND_CONTEXT_HPP

#include <kfvm_Error.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <exception>

namespace kfvm::app {

/// Wall seconds since start.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The exit statuses of every kfvm command (README: "What kfvm guarantees").
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

/// What every subcommand shares: the original arguments (Kokkos reads its own from them)
/// and the exit status the subcommand leaves.
struct CommandContext {
  int argc = 0;
  char** argv = nullptr;
  int exitCode = 0;

  /// Runs body() between Kokkos::initialize and Kokkos::finalize; an exception becomes
  /// a message on stderr (printError) and exit status 1.
  template <class Body>
  void runWithKokkos(const Body& body) {
    Kokkos::initialize(argc, argv);
    try {
      exitCode = body();
    } catch (const std::exception& error) {
      printError(error);
      exitCode = exitError;
    }
    Kokkos::finalize();
  }
};

}  // namespace kfvm::app

#endif
