#ifndef KFVM_APPS_DECK_RUN_HPP
#define KFVM_APPS_DECK_RUN_HPP

// A whole run of a deck, as `kfvm run` and `kfvm check` make it (kfvm_RunCommand.cpp),
// callable in-process (the Python module's kfvm.run_deck). Kokkos must be running.

#include "kfvm_Deck.hpp"

#include <string>

namespace kfvm::app {

/// What `kfvm run`'s options change.
struct RunOptions {
  std::string output, restart;
  int cells = 0;
  long long maxSteps = 0;  // > 0: stop after that many steps (a short run)
  bool quiet = false, verbose = false;
};

/// Runs the deck; returns the exit status of `kfvm run` (kfvm_ExitStatus.hpp:
/// exitOk, exitSolveFailed, exitCheckFailed). Errors (a bad deck, a failed write, a
/// damaged checkpoint) throw kfvm::Error.
int runDeck(const Deck& deck, const RunOptions& options);

/// `kfvm check`: every check runDeck makes before its first step; prints the summary.
int checkDeck(const Deck& deck);

}  // namespace kfvm::app

#endif
