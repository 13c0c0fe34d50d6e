#ifndef KFVM_APPS_RUN_LOOP_HPP
#define KFVM_APPS_RUN_LOOP_HPP

// The steps of a deck's run and what they write, one loop for one process and for MPI
// ranks: a restart, the steady solve or the time steps (a schedule of schemes, implicit
// or explicit, or adaptive steps), the output, checkpoints and the [check].

#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_RunOutput.hpp"

#include <array>
#include <string>
#include <vector>

namespace kfvm::app {

/// What a run steps: the problem, its fields at their initial values, on mesh (this
/// process's cells: across ranks a rank's block with its ghosts) whose cell centres are
/// centres; ranks is nullptr on one process.
struct RunParts {
  DeckProblem& problem;
  const Mesh<DeckSpace>& mesh;
  const std::vector<std::array<double, 3>>& centres;
  const RunRanks* ranks = nullptr;
};

/// The run, from the fields' initial values or from options.restart; returns the exit
/// status of `kfvm run` (kfvm_ExitStatus.hpp). Across ranks every rank calls it; a
/// failure anywhere (a damaged checkpoint, a failed write) throws on every rank, and
/// rank 0 prints and writes the shared files.
///
/// Across ranks every rank writes its block of a checkpoint with parallel HDF5; one
/// process and any number of ranks restart from either kind of checkpoint.
int runProblem(const Deck& deck, const RunOptions& options, const RunParts& parts);

/// The deck's mesh and variables, as a checkpoint records them and a restart compares.
std::string deckFingerprint(const Deck& deck);

}  // namespace kfvm::app

#endif
