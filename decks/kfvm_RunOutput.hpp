#ifndef KFVM_APPS_RUN_OUTPUT_HPP
#define KFVM_APPS_RUN_OUTPUT_HPP

#include <kfvm_Checkpoint.hpp>
#include "kfvm_Deck.hpp"
#include "kfvm_Log.hpp"

#include <kfvm_DurableFile.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_VtkWriter.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace kfvm::app {

using DeckSpace = Kokkos::DefaultExecutionSpace;

struct Statistics {
  double minimum, maximum, integral;
};

/// Minimum, maximum and integral of a field (three reductions). The integral is not
/// finite when a value is not (NaN or inf), which is what the run checks every step.
Statistics statisticsOf(const CellField<DeckSpace>& phi, const Mesh<DeckSpace>& mesh);

/// The first cell whose value is NaN or inf, and that value; cell -1 when every value
/// is finite (one reduction).
struct NonFinite {
  Ordinal cell = -1;
  double value = 0;
};
NonFinite firstNonFinite(const CellField<DeckSpace>& phi);

/// Where a restarted run's output goes on from: the checkpoint's time, and the bytes its
/// CSV files held then (-1: the file was not written).
struct OutputResume {
  double time = -1;
  long long seriesBytes = -1, probesBytes = -1;
};

/// The CSV files' sizes once flushed and fsync'ed (RunOutput::sync), for a checkpoint.
struct OutputSizes {
  long long seriesBytes = -1, probesBytes = -1;
};

/// What RunOutput needs of a run across MPI ranks (kfvm_DistributedRun.cpp): the fields
/// are one rank's cells with their ghosts; rank 0 writes the CSV files and prints.
struct RunRanks {
  int rank = 0;
  /// The whole grid (the fields are a block of it).
  const CartesianGrid* grid = nullptr;
  /// Combines values over the ranks in place: sums, or maxima (max = true).
  std::function<void(double* values, int count, bool max)> reduce;
  /// 1 on this rank's owned cells, 0 on ghosts.
  Vector<DeckSpace> owned;
  /// Per deck probe: the local cell holding it when this rank owns it, else -1.
  std::vector<Ordinal> probeCells;
  /// Writes the step's fields as a parallel VTK piece set named stem (collective), whose
  /// collection file (stem + collectionExtension) goes into the .pvd series.
  std::function<void(const std::string& stem, double time)> writeVtk;
  std::string collectionExtension = ".pvtr";
  /// A general mesh's cells as polygons (rank 0, 2D meshes): PNG snapshots of the
  /// gathered fields; null on a grid (the whole grid is `grid`).
  const std::vector<std::vector<std::array<double, 2>>>* polygons = nullptr;
  /// The whole grid's values of a field of this rank's block (the global cell order) on
  /// rank 0, empty on the others (collective): PNG snapshots.
  std::function<std::vector<double>(const CellField<DeckSpace>& field)> gather;
  /// Writes the run's checkpoint at path: state's attributes (not its values) and every
  /// rank's block of the fields, with parallel HDF5 (collective).
  std::function<void(const std::string& path, const CheckpointState& state)>
      writeCheckpoint;
  /// Reads a checkpoint, written across any number of ranks or by one process, into the
  /// fields (ghosts too); returns its attributes, without values (collective).
  std::function<CheckpointState(const std::string& path)> readCheckpoint;
  /// Every rank calls it with its failure ("" when it succeeded); unless all succeeded,
  /// every rank throws kfvm::Error (the others naming the failing rank's message), so
  /// that no rank waits alone in the next collective call.
  std::function<void(const std::string& failure)> agree;
};

/// Runs body; across ranks (ranks given) every rank learns whether it failed anywhere
/// and throws alike (RunRanks::agree). On one process, body's own exception.
template <class Body>
void onEveryRank(const RunRanks* ranks, Body&& body) {
  if (!ranks) {
    body();
    return;
  }
  std::string failure;
  try {
    body();
  } catch (const std::exception& error) {
    failure = error.what();
    if (failure.rfind("kfvm: ", 0) == 0) failure.erase(0, 6);
  }
  ranks->agree(failure);
}

/// The deck's [check] of field (the checked variable) at time: the largest difference
/// from the exact expression at the cell centres, and the drift of the integral per
/// unit volume; prints a line for each and returns exitOk or exitCheckFailed. NaN
/// anywhere fails it. Across ranks (ranks given): over every rank's owned cells, printed
/// by rank 0, the same result on every rank.
int checkResult(const Deck& deck, const CellField<DeckSpace>& field,
                const std::vector<std::array<double, 3>>& centres, double time,
                double integral0, double integral, const RunRanks* ranks = nullptr);

/// Everything a run writes: VTK files and their .pvd, series.csv, probes.csv, PNG
/// snapshots, and the progress lines (kfvm_Log.hpp's levels: none when quiet; every
/// progress_every steps, rewritten in place on a terminal; every step when verbose).
/// Files are named by step, so that a restarted run writes the same names. Every write
/// is checked (kfvm_DurableFile.hpp): a failure is a kfvm::Error naming the file.
class RunOutput {
 public:
  /// resume.time >= 0: a restarted run, which cuts the CSV files to the sizes the
  /// checkpoint recorded (starting one that is missing with its header, with a warning),
  /// appends to them, and keeps the collection's entries up to that time.
  /// fields: one per variable of the deck, in its order.
  RunOutput(const Deck& deck, const std::string& directory, const Mesh<DeckSpace>& mesh,
            const std::vector<CellField<DeckSpace>>& fields, const OutputResume& resume,
            const RunRanks* ranks = nullptr);

  void writeVtk(int step, double time);
  /// A PNG snapshot per variable (2D field, or the middle z slice of a 3D one) when the
  /// deck asks.
  void writePng(int step);
  /// One step's figures into the CSV files and, when due, a progress line; total is the
  /// number of steps when known (for the ETA), else 0 (progress in time towards end).
  /// Returns the statistics of every variable.
  std::vector<Statistics> record(int step, double time, double dt,
                                 const StepReport& report, int total);
  /// Writes the CSV files out and fsyncs them; their sizes, for a checkpoint.
  OutputSizes sync();
  /// Closes the CSV files (checked) and prints the closing line: what was written where,
  /// and the wall time.
  void finish();
  /// True when progress is one line rewritten in place (a terminal, normal level).
  bool rewritesInPlace() const { return terminal_; }
  /// Statistics of every field: over the owned cells of every rank when distributed
  /// (collective).
  std::vector<Statistics> statistics() const;

 private:
  const Deck& deck_;
  const RunRanks* ranks_;  // nullptr: one process
  bool writes_ = true;     // this process writes the files (rank 0)
  std::string directory_;
  const Mesh<DeckSpace>& mesh_;
  const std::vector<CellField<DeckSpace>>& fields_;
  bool terminal_;
  VtkTimeSeries series_;
  std::chrono::steady_clock::time_point start_;
  AppendFile csv_, probes_;
  std::ostringstream row_;  // one CSV row at a time
  std::vector<Ordinal> probeCells_;
  std::vector<std::vector<std::array<double, 2>>> polygons_;  // a Gmsh mesh's, for PNGs
  int written_ = 0, pngs_ = 0, records_ = 0, killAtRecord_ = 0;
};

}  // namespace kfvm::app

#endif
