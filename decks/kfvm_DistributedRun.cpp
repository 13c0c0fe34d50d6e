// `mpirun -np N kfvm run DECK`: a deck's run across MPI ranks. Each rank steps its block
// of the grid (DistributedSystem, for one [equation] or [[equation]] tables) in the
// one-process run's loop (kfvm_RunLoop.cpp), which gets from here what differs across
// ranks: reductions over the ranks, the parallel VTK file set and checkpoints, the fields
// gathered to rank 0 (PNG snapshots) or taken from the whole grid's values (initial
// values; from a one-process checkpoint each rank reads its own cells only).
#include "kfvm_DistributedRun.hpp"
#include <kfvm_Checkpoint.hpp>
#include "kfvm_AcrossRanks.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_ExitStatus.hpp"
#include "kfvm_InitialFile.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_RunLoop.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedCheckpoint.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_ParallelVtk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

/// The deck's process grid ([parallel] ranks) or a balanced one.
Decomposition decompositionOf(const Deck& deck, int size) {
  if (deck.ranks[0] == 0)
    return Decomposition::balanced(deck.dimension, deck.cells, size);
  const long long product =
      1LL * deck.ranks[0] * std::max(1, deck.ranks[1]) * std::max(1, deck.ranks[2]);
  if (product != size)
    deckError(deck, deck.ranksAt, "a process grid of ", product, " ranks, the run has ",
              size, " (mpirun -np)");
  std::array<int, 3> grid{deck.ranks[0], std::max(1, deck.ranks[1]),
                          std::max(1, deck.ranks[2])};
  try {
    return Decomposition::withProcessGrid(deck.dimension, deck.cells, size, grid);
  } catch (const Error& error) {
    deckError(deck, deck.ranksAt, error.message());
  }
}

/// The owned cells of every rank gathered to rank 0 in the global cell order: PNG
/// snapshots of a run across ranks. Which global cells each rank owns is
/// sent once; then each gather sends only values.
class CellGather {
 public:
  CellGather(const std::vector<long long>& ownedIds, long long numCells, int size)
      : numCells_(numCells), counts_(std::size_t(size)), offsets_(std::size_t(size)) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    const int mine = int(ownedIds.size());
    check(MPI_Gather(&mine, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
    int total = 0;
    for (std::size_t r = 0; r < counts_.size(); ++r) {
      offsets_[r] = total;
      total += counts_[r];
    }
    if (rank_ == 0) {
      require(total == numCells, "kfvm run: the ranks own ", total,
              " cells, the grid has ", numCells);
      ids_.resize(std::size_t(total));
    }
    check(MPI_Gatherv(ownedIds.data(), mine, MPI_LONG_LONG, ids_.data(), counts_.data(),
                      offsets_.data(), MPI_LONG_LONG, 0, MPI_COMM_WORLD));
  }

  /// The whole grid's values on rank 0 from each rank's owned values (in the order of
  /// its ownedIds); empty on the other ranks.
  std::vector<double> toRank0(const std::vector<double>& mine) const {
    std::vector<double> received(rank_ == 0 ? ids_.size() : 0);
    check(MPI_Gatherv(mine.data(), int(mine.size()), MPI_DOUBLE, received.data(),
                      counts_.data(), offsets_.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (rank_ != 0) return {};
    std::vector<double> whole(static_cast<std::size_t>(numCells_));
    for (std::size_t m = 0; m < ids_.size(); ++m)
      whole[std::size_t(ids_[m])] = received[m];
    return whole;
  }

 private:
  static void check(int status) {
    require(status == MPI_SUCCESS,
            "kfvm run: gathering the fields to rank 0 failed (MPI)");
  }

  long long numCells_;
  int rank_ = 0;
  std::vector<int> counts_, offsets_;
  std::vector<long long> ids_;  // rank 0: the global cell of each received value
};

#ifdef KFVM_HAVE_PARALLEL_HDF5
/// A deck checkpoint's attributes as a distributed checkpoint's (kfvm_Checkpoint.hpp
/// reads them back on one process too). The CSV sizes are rank 0's, who writes the
/// files: the same numbers on every rank, as parallel HDF5 needs.
DistributedCheckpointInfo infoOf(const CheckpointState& state) {
  DistributedCheckpointInfo info{state.step, state.time, state.cells};
  double sizes[2] = {double(state.seriesBytes), double(state.probesBytes)};
  reduceOverRanks(sizes, 2, true);  // -1 on the other ranks
  info.numbers["dt"] = {state.dt};
  info.numbers["error_history"] = {state.errorHistory[0], state.errorHistory[1]};
  info.numbers["series_bytes"] = {sizes[0]};
  info.numbers["probes_bytes"] = {sizes[1]};
  std::string names;
  for (const auto& name : state.variables) names += (names.empty() ? "" : ",") + name;
  info.texts["variables"] = names;
  info.texts["fingerprint"] = state.fingerprint;
  return info;
}

/// A distributed checkpoint's attributes as a deck checkpoint's (its values are in the
/// fields already); throws naming the file when one is missing or out of range.
CheckpointState stateOf(const DistributedCheckpointInfo& info, const std::string& path) {
  const auto number = [&](const char* name, std::size_t count) {
    const auto found = info.numbers.find(name);
    require(found != info.numbers.end() && found->second.size() == count, "checkpoint '",
            path, "' has no attribute ", name, " of ", count, " numbers");
    return found->second;
  };
  const auto text = [&](const char* name) {
    const auto found = info.texts.find(name);
    require(found != info.texts.end(), "checkpoint '", path, "' has no attribute ", name);
    return found->second;
  };
  CheckpointState state;
  require(info.step <= 2147483647LL, "checkpoint '", path, "': step ", info.step,
          " is out of range");
  state.step = int(info.step);
  state.time = info.time;
  state.cells = info.cells;
  state.dt = number("dt", 1)[0];
  const auto history = number("error_history", 2);
  state.errorHistory = {history[0], history[1]};
  state.seriesBytes = (long long)number("series_bytes", 1)[0];
  state.probesBytes = (long long)number("probes_bytes", 1)[0];
  require(std::isfinite(state.dt) && state.dt > 0 && state.seriesBytes >= -1 &&
              state.probesBytes >= -1 && history[0] > 0 && history[1] > 0,
          "checkpoint '", path, "': dt ", state.dt, ", error history ", history[0], ", ",
          history[1], " or CSV sizes ", state.seriesBytes, ", ", state.probesBytes,
          " out of range");
  state.fingerprint = text("fingerprint");
  const std::string names = text("variables");
  for (std::size_t begin = 0; begin <= names.size();) {
    const std::size_t end = std::min(names.find(',', begin), names.size());
    state.variables.push_back(names.substr(begin, end - begin));
    begin = end + 1;
  }
  return state;
}
#endif

/// Per probe, the local cell holding it on the rank that owns that cell, else -1.
std::vector<Ordinal> probeCellsOf(const Deck& deck, const CartesianGrid& grid,
                                  const std::vector<long long>& globalIds,
                                  const GhostedBlock& layout) {
  std::vector<Ordinal> cells;
  for (const auto& point : deck.probes) {
    long long global = 0, stride = 1;
    for (int a = 0; a < grid.dimension(); ++a) {
      const auto& v = grid.vertices(a);
      const auto above = std::upper_bound(v.begin(), v.end(), point[std::size_t(a)]);
      const int index =
          std::max(0, std::min(int(above - v.begin()) - 1, grid.cells(a) - 1));
      global += stride * index;
      stride *= grid.cells(a);
    }
    Ordinal local = -1;
    for (std::size_t c = 0; c < globalIds.size(); ++c)
      if (globalIds[c] == global && layout.isOwned(Ordinal(c))) local = Ordinal(c);
    cells.push_back(local);
  }
  return cells;
}

}  // namespace

int runOnRanks(const Deck& deck, const RunOptions& options,
               DistributedDeckProblem& problem, const CartesianGrid& grid, int rank,
               int size);

void checkGridAcrossRanks(const Deck& deck) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  (void)decompositionOf(deck, size);
}

int runGridDeckAcrossRanks(const Deck& deck, const RunOptions& options) {
  const std::pair<int, int> started = startRunAcrossRanks(options);
  const int rank = started.first, size = started.second;
  const Decomposition decomposition = decompositionOf(deck, size);
  const CartesianGrid grid = gridOf(deck);
  log::info(
      "kfvm run %s: %dD, %lld cells, %d variable%s, backend %s, %d MPI ranks (%d x "
      "%d x %d)",
      deck.path.c_str(), deck.dimension, deck.numCells(), deck.numVariables(),
      deck.numVariables() > 1 ? "s (coupled)" : "", Space::name(), size,
      decomposition.processGrid()[0], decomposition.processGrid()[1],
      decomposition.processGrid()[2]);
  log::info("%s", validateDeck(deck).c_str());
  DistributedDeckProblem problem(deck, std::make_unique<DistributedSystem<Space>>(
                                           grid, decomposition, MPI_COMM_WORLD,
                                           GpuAwareMpi::Auto, ghostLayersOf(deck)));
  return runOnRanks(deck, options, problem, grid, rank, size);
}

int runOnRanks(const Deck& deck, const RunOptions& options,
               DistributedDeckProblem& problem, const CartesianGrid& grid, int rank,
               int size) {
  const Mesh<Space>& mesh = problem.system().localMesh();
  const auto centres = cellCentres(mesh.grid());
  HaloExchange<Space>& halo = problem.system().gridBlocks().halo();
  const GhostedBlock& layout = halo.layout();
  auto& fields = problem.fields();
  const std::vector<long long>& globalIds = problem.system().localGlobalIds();
  // This rank's cells, ghosts too, of values given for the whole grid.
  const auto scatter = [&globalIds](const std::vector<double>& whole) {
    std::vector<double> local(globalIds.size());
    for (std::size_t c = 0; c < local.size(); ++c)
      local[c] = whole[std::size_t(globalIds[c])];
    return local;
  };
  for (const auto& variable : deck.variables) {
    fields.emplace_back(mesh, variable.name);
    const std::string& type = variable.initial.type;
    if (type != "random" && type != "file") {  // a function of position: local cells
      fields.back().fromHost(initialValues(variable.initial, deck.dimension, centres));
      continue;
    }
    // Random values are drawn in the global cell order and files hold the whole grid:
    // the same values as one process, whatever the split.
    fields.back().fromHost(scatter(
        type == "file"
            ? readInitialFile(deck, variable)
            : initialValues(variable.initial, deck.dimension, cellCentres(grid))));
  }
  RunRanks ranks;
  ranks.rank = rank;
  ranks.grid = &grid;
  ranks.reduce = reduceOverRanks;
  std::vector<Real> owned(centres.size());
  std::vector<long long> ownedIds;  // the global cells this rank owns, in local order
  for (std::size_t c = 0; c < owned.size(); ++c) {
    owned[c] = layout.isOwned(Ordinal(c)) ? Real(1) : Real(0);
    if (layout.isOwned(Ordinal(c))) ownedIds.push_back(globalIds[c]);
  }
  ranks.owned = copyToDevice<Real, Space>(owned, "kfvm::deck::owned");
  ranks.probeCells = probeCellsOf(deck, grid, globalIds, layout);
  std::vector<const CellField<Space>*> pointers;
  std::vector<CellField<Space>*> writable;
  for (auto& field : fields) {
    pointers.push_back(&field);
    writable.push_back(&field);
  }
  ranks.writeVtk = [&](const std::string& stem, double time) {
    writeParallelVtk<Space>(stem, grid, halo, pointers, time);
  };
#ifdef KFVM_HAVE_PARALLEL_HDF5
  ranks.writeCheckpoint = [&](const std::string& path, const CheckpointState& state) {
    writeDistributedCheckpoint<Space>(path, halo, pointers, infoOf(state));
  };
#else
  ranks.writeCheckpoint = [](const std::string& path, const CheckpointState&) {
    fail("cannot write checkpoint '", path,
         "' across ranks: this kfvm was built without parallel HDF5 (Debian: "
         "libhdf5-openmpi-dev)");
  };
#endif
  ranks.readCheckpoint = [&](const std::string& path) {
    if (!writtenAcrossRanks(path))  // one process's: every rank reads its cells
      return readWholeCheckpoint(path, globalIds, fields);
#ifdef KFVM_HAVE_PARALLEL_HDF5
    return stateOf(readDistributedCheckpoint<Space>(path, halo, writable), path);
#else
    fail("cannot read checkpoint '", path,
         "' across ranks: this kfvm was built without parallel HDF5");
#endif
  };
  const CellGather gather(ownedIds, grid.numCells(), size);
  ranks.gather = [&](const CellField<Space>& field) {
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.values());
    std::vector<double> mine;
    mine.reserve(ownedIds.size());
    for (std::size_t c = 0; c < owned.size(); ++c)
      if (owned[c] > 0) mine.push_back(double(values(c)));
    return gather.toRank0(mine);
  };
  ranks.agree = [&deck](const std::string& failure) {
    Details::agreeOnFailure(MPI_COMM_WORLD, failure, deck.path);
  };
  return runProblem(deck, options, RunParts{problem, mesh, centres, &ranks});
}

}  // namespace kfvm::app
