#ifndef KFVM_APPS_COMMAND_CONTEXT_HPP
#define KFVM_APPS_COMMAND_CONTEXT_HPP

#include "kfvm_ExitStatus.hpp"

#include <kfvm_Error.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <exception>

namespace kfvm::app {

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
