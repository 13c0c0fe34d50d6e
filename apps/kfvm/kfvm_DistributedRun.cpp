// `mpirun -np N kfvm run DECK`: a deck's run across MPI ranks. Each rank steps its block
// of the grid (DistributedSystem for one [equation], DistributedCoupledSystem for
// [[equation]] tables); the output is the one-process run's: a parallel VTK file set per
// output step in the .pvd series, series.csv and probes.csv written by rank 0 from
// reductions over every rank, and the same [check].
#include "kfvm_DistributedRun.hpp"
#include "kfvm_CommandContext.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_InitialFile.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_DistributedCoupledSystem.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_ParallelVtk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

/// One [equation] on this rank's block.
class DistributedScalarProblem : public DeckProblem {
 public:
  DistributedScalarProblem(const Deck& deck, const CartesianGrid& grid,
                           const Decomposition& decomposition, MPI_Comm comm)
      : system_(grid, decomposition, comm, GpuAwareMpi::Auto, ghostLayers(deck)),
        equation_(system_.localMesh()) {
    buildEquation(deck, system_.localMesh(), cellCentres(system_.localMesh().grid()),
                  equation_, [this](Patch p) { return system_.isPhysical(p); });
    system_.setEquation(equation_);
    system_.setSolver(makeLinearSolver<Space>(deck.solver, deck.solverParameters));
    system_.stepper().setSweeps(deck.maxSweeps, Real(deck.sweepTolerance),
                                Real(deck.relaxation));
    if (deck.matrixFree) system_.setMatrixFree(true);
  }
  StepReport step(std::vector<CellField<Space>>& fields, double dt,
                  TimeScheme scheme) override {
    return system_.step(fields[0], Real(dt), scheme);
  }
  StepReport solveSteady() override { return system_.solveSteady(fields_[0]); }
  StepReport stepExplicit(double, const std::string& scheme) override {
    fail("deck: explicit scheme ", scheme, " across ranks (refused before the run)");
  }
  const Mesh<Space>& mesh() const { return system_.localMesh(); }
  const HaloExchange<Space>& halo() { return system_.halo(); }
  std::vector<long long> globalIds() const { return system_.localGlobalIds(); }

 private:
  /// TVD convection and the fourth-order term reach two cells away.
  static int ghostLayers(const Deck& deck) {
    const bool tvd = deck.hasConvection && isTvd(convectionSchemeFromName(deck.scheme));
    return deck.hasHigherOrder || tvd ? 2 : 1;
  }

  DistributedSystem<Space> system_;
  Equation<Space> equation_;
};

/// The [[equation]] tables of a coupled deck on this rank's block.
class DistributedCoupledProblem : public DeckProblem {
 public:
  DistributedCoupledProblem(const Deck& deck, const CartesianGrid& grid,
                            const Decomposition& decomposition, MPI_Comm comm)
      : system_(grid, decomposition, comm, deck.numVariables()) {
    CoupledSystem<Space> part(system_.localMesh(), deck.numVariables());
    buildCoupledSystem(deck, part, [this](Patch p) { return system_.isPhysical(p); });
    system_.setSystem(part, makeLinearSolver<Space>(deck.solver, deck.solverParameters));
    system_.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance));
  }
  StepReport step(std::vector<CellField<Space>>& fields, double dt,
                  TimeScheme scheme) override {
    return system_.step(fields, Real(dt), scheme);
  }
  StepReport solveSteady() override { return system_.solveSteady(fields_); }
  StepReport stepExplicit(double, const std::string& scheme) override {
    fail("deck: explicit scheme ", scheme, " in a coupled deck (refused before the run)");
  }
  const Mesh<Space>& mesh() const { return system_.localMesh(); }
  const HaloExchange<Space>& halo() const { return system_.halo(); }
  std::vector<long long> globalIds() const { return system_.localGlobalIds(); }

 private:
  DistributedCoupledSystem<Space> system_;
};

/// What a distributed run cannot do yet: refused before it starts, the same on every
/// rank.
void refuseUnsupported(const Deck& deck, const RunOptions& options) {
  const char* what = nullptr;
  if (deck.adaptive) what = "[time] adaptive";
  if (deck.hasExplicitSteps()) what = "explicit schemes ([time] scheme or schedule)";
  if (deck.png) what = "[output] png";
  if (deck.checkpointEvery > 0) what = "[output] checkpoint_every";
  if (!options.restart.empty()) what = "--restart";
  if (what)
    fail(deck.path, ": ", what,
         " is not available in a run across MPI ranks yet; run it on one process");
}

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

/// Sums or maxima over the ranks, in place.
void reduceOverRanks(double* values, int count, bool max) {
  const int status = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE,
                                   max ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
  require(status == MPI_SUCCESS, "kfvm run: MPI_Allreduce failed");
}

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

int mpiWorldSize() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return 1;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

template <class Problem>
int runOnRanks(const Deck& deck, const RunOptions& options, Problem& problem,
               const CartesianGrid& grid, int rank, int size);

void checkAcrossRanks(const Deck& deck) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  refuseUnsupported(deck, RunOptions{});
  (void)decompositionOf(deck, size);
}

int runDeckAcrossRanks(const Deck& deck, const RunOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  log::setLevel(options.quiet || rank != 0 ? log::Level::Quiet
                : options.verbose          ? log::Level::Verbose
                                           : log::Level::Normal);
  refuseUnsupported(deck, options);
  const CartesianGrid grid = gridOf(deck);
  const Decomposition decomposition = decompositionOf(deck, size);
  log::info(
      "kfvm run %s: %dD, %lld cells, %d variable%s, backend %s, %d MPI ranks (%d x "
      "%d x %d)",
      deck.path.c_str(), deck.dimension, deck.numCells(), deck.numVariables(),
      deck.numVariables() > 1 ? "s (coupled)" : "", Space::name(), size,
      decomposition.processGrid()[0], decomposition.processGrid()[1],
      decomposition.processGrid()[2]);
  log::info("%s", validateDeck(deck).c_str());
  if (deck.isCoupled()) {
    DistributedCoupledProblem problem(deck, grid, decomposition, MPI_COMM_WORLD);
    return runOnRanks(deck, options, problem, grid, rank, size);
  }
  DistributedScalarProblem problem(deck, grid, decomposition, MPI_COMM_WORLD);
  return runOnRanks(deck, options, problem, grid, rank, size);
}

template <class Problem>
int runOnRanks(const Deck& deck, const RunOptions& options, Problem& problem,
               const CartesianGrid& grid, int rank, int size) {
  (void)size;
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  const Mesh<Space>& mesh = problem.mesh();
  const auto centres = cellCentres(mesh.grid());
  const GhostedBlock& layout = problem.halo().layout();
  auto& fields = problem.fields();
  const std::vector<long long> globalIds = problem.globalIds();
  for (const auto& variable : deck.variables) {
    fields.emplace_back(mesh, variable.name);
    const std::string& type = variable.initial.type;
    if (type != "random" && type != "file") {  // a function of position: local cells
      fields.back().fromHost(initialValues(variable.initial, deck.dimension, centres));
      continue;
    }
    // Random values are drawn in the global cell order and files hold the whole grid:
    // the same values as one process, whatever the split.
    const std::vector<double> whole =
        type == "file"
            ? readInitialFile(deck, variable)
            : initialValues(variable.initial, deck.dimension, cellCentres(grid));
    std::vector<double> local(globalIds.size());
    for (std::size_t c = 0; c < local.size(); ++c)
      local[c] = whole[std::size_t(globalIds[c])];
    fields.back().fromHost(local);
  }
  RunRanks ranks;
  ranks.rank = rank;
  ranks.reduce = reduceOverRanks;
  std::vector<Real> owned(centres.size());
  for (std::size_t c = 0; c < owned.size(); ++c)
    owned[c] = layout.isOwned(Ordinal(c)) ? Real(1) : Real(0);
  ranks.owned = copyToDevice<Real, Space>(owned, "kfvm::deck::owned");
  ranks.probeCells = probeCellsOf(deck, grid, globalIds, layout);
  const auto& halo = problem.halo();
  ranks.writeVtk = [&](const std::string& stem, double time) {
    std::vector<const CellField<Space>*> pointers;
    for (const auto& field : fields) pointers.push_back(&field);
    writeParallelVtk<Space>(stem, grid, halo, pointers, time);
  };
  RunOutput output(deck, directory, mesh, fields, OutputResume{}, &ranks);
  const auto& checked = fields[std::size_t(deck.checkVariable)];
  const double integral0 = double(integrate(checked, mesh, ranks.owned));
  double integral0All = integral0;
  reduceOverRanks(&integral0All, 1, false);
  double integral = integral0All, now = 0;
  output.writeVtk(0, 0);
  int lastStep = 0;
  bool cut = false;
  const auto failed = [&](int step, double time, const std::string& reason) {
    log::error("kfvm run: step %d (t = %.10g) failed: %s", step, time, reason.c_str());
    return exitSolveFailed;
  };
  if (deck.steady) {
    const auto report = problem.solveSteady();
    if (!report.converged) return failed(0, 0, "steady solve: " + report.reason);
    integral =
        output.record(0, 0, 0, report, 1)[std::size_t(deck.checkVariable)].integral;
  } else {
    TimeSchedule schedule(deck);
    for (int step = 1; !schedule.finished(step); ++step) {
      if (options.maxSteps > 0 && step > options.maxSteps) {
        cut = true;
        break;
      }
      const double dt = schedule.stepDt();
      DeckProblem& base = problem;  // its step by the scheme's name
      const StepReport report = base.step(dt, deck.schemeOf(step));
      if (!report.converged) return failed(step, schedule.time() + dt, report.reason);
      schedule.advance();
      now = schedule.time();
      const auto statistics = output.record(step, now, dt, report, int(deck.totalSteps));
      for (const auto& s : statistics)
        if (!std::isfinite(s.integral))
          return failed(step, now, "a field is no longer finite");
      integral = statistics[std::size_t(deck.checkVariable)].integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, now);
      lastStep = step;
    }
  }
  if (deck.vtkEvery == 0 || lastStep % deck.vtkEvery != 0) output.writeVtk(lastStep, now);
  output.finish();
  if (cut) {
    if (rank == 0)
      std::printf(
          "stopped           after %lld steps (--max-steps), t = %.10g; no "
          "[check] before the run's end\n",
          options.maxSteps, now);
    return exitOk;
  }
  return checkResult(deck, checked, centres, now, integral0All, integral, &ranks);
}

}  // namespace kfvm::app
