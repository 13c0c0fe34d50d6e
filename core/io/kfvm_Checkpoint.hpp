#ifndef KFVM_CHECKPOINT_HPP
#define KFVM_CHECKPOINT_HPP

#include <array>
#include <string>
#include <vector>

namespace kfvm {

/// What a run needs to go on exactly where it stopped: the cell values of every
/// variable, the step, time and next dt, the deck it belongs to, and how long its CSV
/// files were.
struct CheckpointState {
  int step = 0;
  double time = 0, dt = 0;  ///< dt: the next step's (an adaptive run's proposal)
  /// An adaptive run's controller history (e_(n-1), e_(n-2)); 1, 1 otherwise.
  std::array<double, 2> errorHistory{1, 1};
  std::array<int, 3> cells{1, 1, 1};
  std::vector<std::string> variables;
  std::vector<std::vector<double>> values;  // per variable
  /// The deck's mesh and variables (deckFingerprint in kfvm_RunCommand.cpp), compared
  /// on restart.
  std::string fingerprint;
  /// Bytes of series.csv and probes.csv when the checkpoint was written (flushed and
  /// fsync'ed first); -1 where the run writes no such file. A restart cuts them there.
  long long seriesBytes = -1, probesBytes = -1;
};

/// Writes an HDF5 checkpoint: one dataset per variable, named after it; attributes
/// format, step, time, dt, error_history, cells, variables (the names, comma-separated),
/// fingerprint, series_bytes and probes_bytes. The file is written as path + ".tmp" with
/// every HDF5 call checked (the closes too), sealed (kfvm_DurableFile.hpp: its length and
/// XXH64 checksum in the HDF5 user block), read back and compared with state, and only
/// then fsync'ed and renamed over path. Otherwise the temporary is removed, the previous
/// checkpoint stays as it was, and kfvm::Error names the file and what failed.
///
/// For the test that kills a run mid-write: when the environment variable
/// KFVM_KILL_DURING_CHECKPOINT is N, the N-th call of this process writes half of the
/// first variable into the temporary file and ends the process at once (_Exit(137), as a
/// SIGKILL would).
void writeCheckpoint(const std::string& path, const CheckpointState& state);

/// Reads a checkpoint: the seal is verified before HDF5 reads the file, then every
/// attribute is checked (finite time >= 0, dt > 0, step >= 0, cells >= 1, the datasets'
/// sizes); throws kfvm::Error naming the file and what is missing, damaged or wrong.
/// Reads those a run across ranks wrote too (writtenAcrossRanks): the same attributes,
/// each variable shaped like the grid (read here in the same cell order). Given cells
/// (global cell indices), only those cells' values are read, in that order (a rank's
/// cells of a one-process checkpoint); a cell outside the grid is an error.
CheckpointState readCheckpoint(const std::string& path,
                               const std::vector<long long>* cells = nullptr);

/// True when the ranks of a run wrote the checkpoint together (parallel HDF5: a
/// distributed checkpoint of kfvm_DistributedCheckpoint.hpp with the attributes above),
/// false for one process's; the seal is verified first.
bool writtenAcrossRanks(const std::string& path);

}  // namespace kfvm

#endif
