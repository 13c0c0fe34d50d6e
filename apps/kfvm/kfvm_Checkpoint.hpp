#ifndef KFVM_APPS_CHECKPOINT_HPP
#define KFVM_APPS_CHECKPOINT_HPP

#include <array>
#include <string>
#include <vector>

namespace kfvm::app {

/// What a run needs to go on exactly where it stopped: the cell values of every
/// variable and the step, time and next dt.
struct CheckpointState {
  int step = 0;
  double time = 0, dt = 0;
  std::array<int, 3> cells{1, 1, 1};
  std::vector<std::string> variables;
  std::vector<std::vector<double>> values;  // per variable
};

/// Writes an HDF5 checkpoint: one dataset per variable, named after it; attributes
/// step, time, dt, cells and variables (the names, comma-separated). The file is written
/// as path + ".tmp" and renamed over path only when complete, so a run killed while
/// writing leaves the previous checkpoint whole. Throws kfvm::Error naming the file when
/// HDF5 fails.
///
/// For the test that kills a run mid-write: when the environment variable
/// KFVM_KILL_DURING_CHECKPOINT is N, the N-th call of this process writes half of the
/// first variable into the temporary file and ends the process at once (_Exit(137), as a
/// SIGKILL would).
void writeCheckpoint(const std::string& path, const CheckpointState& state);

/// Reads a checkpoint; throws kfvm::Error naming the file and what is missing or wrong.
CheckpointState readCheckpoint(const std::string& path);

}  // namespace kfvm::app

#endif
