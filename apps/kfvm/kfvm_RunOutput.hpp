#ifndef KFVM_APPS_RUN_OUTPUT_HPP
#define KFVM_APPS_RUN_OUTPUT_HPP

#include "kfvm_Deck.hpp"

#include <kfvm_Field.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_VtkWriter.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace kfvm::app {

using DeckSpace = Kokkos::DefaultExecutionSpace;

/// How much a run prints: quiet (the summary), normal (a progress line every
/// progress_every steps; one line rewritten in place on a terminal), verbose (every
/// step).
enum class Verbosity { Quiet, Normal, Verbose };

struct Statistics {
  double minimum, maximum, integral;
};

/// Minimum, maximum and integral of a field (three reductions).
Statistics statisticsOf(const CellField<DeckSpace>& phi, const Mesh<DeckSpace>& mesh);

/// Everything a run writes: VTK files and their .pvd, series.csv, probes.csv, PNG
/// snapshots, and the progress lines. Files are named by step, so that a restarted run
/// writes the same names.
class RunOutput {
 public:
  /// restartTime >= 0: a restarted run, which appends to the CSV files and keeps the
  /// collection's entries up to that time.
  RunOutput(const Deck& deck, const std::string& directory, const Mesh<DeckSpace>& mesh,
            const CellField<DeckSpace>& phi, Verbosity verbosity, double restartTime);

  void writeVtk(int step, double time);
  /// A PNG snapshot (2D field, or the middle z slice of a 3D one) when the deck asks.
  void writePng(int step);
  /// One step's figures into the CSV files and, when due, a progress line; total is the
  /// number of steps when known (for the ETA), else 0 (progress in time towards end).
  Statistics record(int step, double time, double dt, const StepReport& report,
                    int total);
  /// The closing line: what was written where, and the wall time.
  void finish();

 private:
  const Deck& deck_;
  std::string directory_;
  const Mesh<DeckSpace>& mesh_;
  const CellField<DeckSpace>& phi_;
  Verbosity verbosity_;
  bool terminal_;
  VtkTimeSeries series_;
  std::chrono::steady_clock::time_point start_;
  std::ofstream csv_, probes_;
  std::vector<Ordinal> probeCells_;
  int written_ = 0, pngs_ = 0;
};

}  // namespace kfvm::app

#endif
