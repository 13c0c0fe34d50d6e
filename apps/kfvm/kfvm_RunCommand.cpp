// `kfvm run DECK` and `kfvm check DECK`: a whole run from a TOML deck (kfvm_Deck.hpp).
#include "kfvm_Checkpoint.hpp"
#include "kfvm_Deck.hpp"
#include "kfvm_Expression.hpp"
#ifdef KFVM_HAVE_PNG
#include "kfvm_PngWriter.hpp"
#endif
#include "kfvm_ProblemCommands.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_SystemInfo.hpp>
#include <kfvm_VtkWriter.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include <unistd.h>

namespace kfvm::app {

namespace {

using Space = Kokkos::DefaultExecutionSpace;

CartesianGrid gridOf(const Deck& deck) {
  const auto& n = deck.cells;
  const auto& l = deck.length;
  if (deck.dimension == 1) return CartesianGrid::uniform1D(n[0], l[0]);
  if (deck.dimension == 2) return CartesianGrid::uniform2D(n[0], n[1], l[0], l[1]);
  return CartesianGrid::uniform3D(n[0], n[1], n[2], l[0], l[1], l[2]);
}

/// Cell centres on the host, x fastest (the mesh's cell order).
std::vector<std::array<double, 3>> cellCentres(const CartesianGrid& grid) {
  std::vector<std::array<double, 3>> centres;
  centres.reserve(std::size_t(grid.numCells()));
  auto middle = [&](int axis, int i) {
    if (axis >= grid.dimension()) return 0.0;
    return 0.5 * (grid.vertices(axis)[i] + grid.vertices(axis)[i + 1]);
  };
  for (int k = 0; k < grid.cells(2); ++k)
    for (int j = 0; j < grid.cells(1); ++j)
      for (int i = 0; i < grid.cells(0); ++i)
        centres.push_back({middle(0, i), middle(1, j), middle(2, k)});
  return centres;
}

std::vector<double> initialValues(const Deck& deck,
                                  const std::vector<std::array<double, 3>>& centres) {
  const InitialCondition& ic = deck.initial;
  std::vector<double> values(centres.size(), ic.value);
  std::mt19937 random(ic.seed);
  std::uniform_real_distribution<double> noise(-ic.amplitude, ic.amplitude);
  std::unique_ptr<Expression> expression;
  if (ic.type == "expression") expression = std::make_unique<Expression>(ic.expression);
  for (std::size_t c = 0; c < centres.size(); ++c) {
    const auto& p = centres[c];
    if (ic.type == "box") {
      bool inside = true;
      for (int a = 0; a < deck.dimension; ++a)
        inside = inside && p[a] >= ic.lower[a] && p[a] <= ic.upper[a];
      values[c] = inside ? ic.inside : ic.outside;
    } else if (ic.type == "sphere") {
      double r2 = 0;
      for (int a = 0; a < deck.dimension; ++a)
        r2 += (p[a] - ic.centre[a]) * (p[a] - ic.centre[a]);
      values[c] = r2 <= ic.radius * ic.radius ? ic.inside : ic.outside;
    } else if (ic.type == "random") {
      values[c] = ic.mean + noise(random);
    } else if (expression) {
      values[c] = (*expression)(p[0], p[1], p[2], 0);
    }
  }
  return values;
}

Polynomial polynomialOf(const std::vector<double>& c) {
  Polynomial p;
  for (double v : c) p.coefficients[p.terms++] = Real(v);
  return p;
}

BoundaryCondition conditionOf(const BoundarySpec& spec) {
  if (spec.type == "dirichlet") return BoundaryCondition::dirichlet(spec.value);
  if (spec.type == "neumann") return BoundaryCondition::neumann(spec.value);
  return BoundaryCondition::robin(spec.a, spec.b, spec.value);
}

/// A per-cell field of expression values at the cell centres (set up once, on the host).
CellField<Space> fieldOf(const std::string& text, const Mesh<Space>& mesh,
                         const std::vector<std::array<double, 3>>& centres,
                         const std::string& name) {
  const Expression expression(text);
  std::vector<double> values(centres.size());
  for (std::size_t c = 0; c < centres.size(); ++c)
    values[c] = expression(centres[c][0], centres[c][1], centres[c][2]);
  CellField<Space> field(mesh, name);
  field.fromHost(values);
  return field;
}

void buildEquation(const Deck& deck, const Mesh<Space>& mesh,
                   const std::vector<std::array<double, 3>>& centres,
                   Equation<Space>& equation) {
  auto field = [&](const DeckCoefficient& c, const char* name) {
    return fieldOf(c.expression, mesh, centres, name);
  };
  if (deck.transient) {
    if (deck.rho.isExpression())
      equation.transient(field(deck.rho, "kfvm::deck::rho"));
    else
      equation.transient(Real(deck.rho.value));
  }
  if (deck.hasDiffusion) {
    if (deck.diffusion.isExpression())
      equation.diffusion(field(deck.diffusion, "kfvm::deck::diffusion"));
    else
      equation.diffusion(Real(deck.diffusion.value));
  }
  if (!deck.diffusionPolynomial.empty())
    equation.diffusion(polynomialOf(deck.diffusionPolynomial));
  if (deck.hasConvection)
    equation.convection(Real(deck.velocity[0]), Real(deck.velocity[1]),
                        Real(deck.velocity[2]), convectionSchemeFromName(deck.scheme));
  if (deck.implicitSource.isExpression())
    equation.implicitSource(field(deck.implicitSource, "kfvm::deck::implicitSource"));
  else if (deck.implicitSource.value != 0)
    equation.implicitSource(Real(deck.implicitSource.value));
  if (deck.source.isExpression())
    equation.source(field(deck.source, "kfvm::deck::source"));
  else if (deck.source.value != 0)
    equation.source(Real(deck.source.value));
  if (!deck.sourcePolynomial.empty())
    equation.source(polynomialOf(deck.sourcePolynomial));
  if (deck.hasHigherOrder)
    equation.higherOrderDiffusion(Real(deck.mobility), Real(deck.kappa),
                                  polynomialOf(deck.potential));
  for (const auto& spec : deck.boundaries) {
    if (spec.onPotential)
      equation.higherOrderBoundary(spec.patch, conditionOf(spec));
    else
      equation.boundary(spec.patch, conditionOf(spec));
  }
}

/// Bytes the run will hold on the device, from what kfvm allocates per cell: the mesh
/// (cell and face geometry and connectivity), the matrix (one row per cell, 1 + 2d
/// entries, 1 + 2d + 2d^2 with the fourth-order term; twice for ILU(0) factors), the
/// fields and the solver's vectors.
std::size_t estimateBytes(const Deck& deck) {
  const double cells = deck.numCells(), d = deck.dimension, real = sizeof(Real);
  const double faces = d * cells + cells;  // close enough: (n + 1) per axis line
  const double mesh = cells * (real * 4 + 8 + 4 * 2 * d) + faces * (4 * 2 + real * 8);
  const double row = deck.hasHigherOrder ? 1 + 2 * d + 2 * d * d : 1 + 2 * d;
  const bool ilu = deck.solverParameters.getString("preconditioner", "jacobi") == "ilu0";
  const double matrix = cells * row * (real + 4) * (ilu ? 1.6 : 1) + cells * 8 * 2;
  int vectors = 8;  // phi, previous, rhs, diagonal, sweep work, nonlinear coefficients
  if (deck.solver == "gmres")
    vectors += deck.solverParameters.getInt("restart", 30) + 3;
  else
    vectors += 8;
  return std::size_t(mesh + matrix + cells * real * vectors);
}

void reportMemory(const Deck& deck, bool refuse) {
  const double needed = double(estimateBytes(deck));
  const auto info = systemInfo();
  const MemoryInfo* memory = nullptr;
  for (const auto& m : info.memories)
    if (m.backend == Space::name() || (!memory && m.where == "host")) memory = &m;
  std::printf("memory estimate   %.3f GiB on %s", needed / (1 << 30),
              memory ? memory->where.c_str() : "host");
  if (memory && memory->freeBytes > 0) {
    std::printf(" (%.3f GiB free)\n", double(memory->freeBytes) / (1 << 30));
    require(!refuse || needed < 0.9 * double(memory->freeBytes), deck.path,
            ": the run needs about ", needed / (1 << 30), " GiB, more than 90% of the ",
            double(memory->freeBytes) / (1 << 30), " GiB free on ", memory->where);
  } else {
    std::printf("\n");
  }
}

struct Statistics {
  double minimum, maximum, integral;
};

Statistics statisticsOf(const CellField<Space>& phi, const Mesh<Space>& mesh) {
  Kokkos::MinMaxScalar<Real> range;
  auto values = phi.values();
  Kokkos::parallel_reduce(
      "kfvm::app::run::minMax", indexRange(Space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, Kokkos::MinMaxScalar<Real> & r) {
        if (values(c) < r.min_val) r.min_val = values(c);
        if (values(c) > r.max_val) r.max_val = values(c);
      },
      Kokkos::MinMax<Real>(range));
  return {double(range.min_val), double(range.max_val), double(integrate(phi, mesh))};
}

/// How much a run prints: quiet (the summary), normal (a progress line every
/// progress_every steps; one line rewritten in place on a terminal), verbose (every
/// step).
enum class Verbosity { Quiet, Normal, Verbose };

struct RunOptions {
  std::string output, restart;
  int cells = 0;
  bool quiet = false, verbose = false;
};

/// Everything a run writes: VTK files and their .pvd, series.csv, probes.csv, progress.
class RunOutput {
 public:
  /// restartTime >= 0: a restarted run, which appends to the CSV files and keeps the
  /// collection's entries up to that time.
  RunOutput(const Deck& deck, const std::string& directory, const Mesh<Space>& mesh,
            const CellField<Space>& phi, Verbosity verbosity, double restartTime)
      : deck_(deck),
        directory_(directory),
        mesh_(mesh),
        phi_(phi),
        verbosity_(verbosity),
        terminal_(isatty(fileno(stdout)) != 0),
        series_(directory + "/" + deck.variable + ".pvd"),
        start_(std::chrono::steady_clock::now()) {
    std::filesystem::create_directories(directory);
    const bool resumed = restartTime >= 0;
    if (resumed) series_.resumeUpTo(restartTime);
    const auto mode = resumed ? std::ios::app : std::ios::trunc;
    if (deck.csv) {
      csv_.open(directory + "/series.csv", std::ios::out | mode);
      require(bool(csv_), "cannot write ", directory, "/series.csv");
      if (!resumed) csv_ << "step,time,dt,sweeps,iterations,residual,min,max,integral\n";
      csv_.precision(12);
    }
    const auto& grid = mesh.grid();
    for (const auto& point : deck.probes) {
      int index[3] = {0, 0, 0};
      for (int a = 0; a < grid.dimension(); ++a) {
        const auto& v = grid.vertices(a);
        const auto above = std::upper_bound(v.begin(), v.end(), point[a]);
        index[a] = std::min(int(above - v.begin()) - 1, grid.cells(a) - 1);
      }
      probeCells_.push_back(index[0] +
                            grid.cells(0) * (index[1] + grid.cells(1) * index[2]));
    }
    if (!probeCells_.empty()) {
      probes_.open(directory + "/probes.csv", std::ios::out | mode);
      require(bool(probes_), "cannot write ", directory, "/probes.csv");
      if (!resumed) {
        probes_ << "step,time";
        for (const auto& p : deck.probes)
          probes_ << ",\"(" << p[0] << " " << p[1] << " " << p[2] << ")\"";
        probes_ << '\n';
      }
      probes_.precision(12);
    }
  }

  /// Files are named by step, so that a restarted run writes the same names.
  void writeVtk(int step, double time) {
    if (!deck_.vtk) return;
    char name[80];
    std::snprintf(name, sizeof(name), "%s_%06d.vtr", deck_.variable.c_str(), step);
    ++written_;
    writeVtkRectilinear<Space>(directory_ + "/" + name, mesh_, {&phi_}, time);
    series_.add(time, name);
  }

  /// A PNG snapshot (2D field, or the middle z slice of a 3D one) when the deck asks.
  void writePng(int step) {
    if (!deck_.png) return;
#ifdef KFVM_HAVE_PNG
    char name[80];
    std::snprintf(name, sizeof(name), "%s_%06d.png", deck_.variable.c_str(), step);
    ++pngs_;
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi_.values());
    writeFieldPng(directory_ + "/" + name, mesh_.grid(),
                  std::vector<double>(values.data(), values.data() + values.extent(0)));
#else
    fail(deck_.path, ": [output] png = true, but this kfvm was built without stb");
#endif
  }

  /// One step's figures; total is the number of steps when known (ETA), else 0 with
  /// progress measured in time towards end.
  Statistics record(int step, double time, double dt, const StepReport& report,
                    int total) {
    const auto s = statisticsOf(phi_, mesh_);
    if (csv_.is_open())
      csv_ << step << ',' << time << ',' << dt << ',' << report.sweeps << ','
           << report.totalIterations << ',' << report.finalResidual << ',' << s.minimum
           << ',' << s.maximum << ',' << s.integral << '\n';
    if (probes_.is_open()) {
      probes_ << step << ',' << time;
      for (Ordinal cell : probeCells_) {
        Real value = 0;
        Kokkos::deep_copy(value, Kokkos::subview(phi_.values(), cell));
        probes_ << ',' << double(value);
      }
      probes_ << '\n';
    }
    const bool due = verbosity_ == Verbosity::Verbose ||
                     (verbosity_ == Verbosity::Normal && step % deck_.progressEvery == 0);
    if (!due) return s;
    const double elapsed = secondsSince(start_);
    const double done =
        total > 0 ? double(step) / total : (deck_.end > 0 ? time / deck_.end : 1);
    const double eta = done > 0 ? elapsed * (1 - done) / done : 0;
    std::printf(
        "%sstep %6d  t = %-10.4g dt = %-9.3g sweeps %2d  iterations %5d  residual "
        "%.2e  min %.4g max %.4g  elapsed %.1f s  ETA %.1f s%s",
        terminal_ ? "\r" : "", step, time, dt, report.sweeps, report.totalIterations,
        report.finalResidual, s.minimum, s.maximum, elapsed, eta,
        terminal_ ? "   " : "\n");
    std::fflush(stdout);
    return s;
  }

  void finish() {
    if (terminal_ && verbosity_ != Verbosity::Quiet) std::printf("\n");
    std::printf("output            %s (%d VTK files, %d PNG%s%s), %.3f s\n",
                directory_.c_str(), written_, pngs_, deck_.csv ? ", series.csv" : "",
                probes_.is_open() ? ", probes.csv" : "", secondsSince(start_));
  }

 private:
  static double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
  }

  const Deck& deck_;
  std::string directory_;
  const Mesh<Space>& mesh_;
  const CellField<Space>& phi_;
  Verbosity verbosity_;
  bool terminal_;
  VtkTimeSeries series_;
  std::chrono::steady_clock::time_point start_;
  std::ofstream csv_, probes_;
  std::vector<Ordinal> probeCells_;
  int written_ = 0, pngs_ = 0;
};

/// The [check]: largest difference from the exact expression, and the integral's drift
/// per unit volume.
int checkResult(const Deck& deck, const CellField<Space>& phi,
                const std::vector<std::array<double, 3>>& centres, double time,
                double integral0, double integral) {
  if (!deck.hasCheck) return 0;
  bool ok = true;
  if (!deck.exact.empty()) {
    const Expression exact(deck.exact);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
    double worst = 0;
    for (std::size_t c = 0; c < centres.size(); ++c) {
      const auto& p = centres[c];
      worst =
          std::max(worst, std::abs(double(values(c)) - exact(p[0], p[1], p[2], time)));
    }
    const bool met = worst <= deck.checkTolerance;
    std::printf("check             max |%s - exact| = %.3e, tolerance %.3e: %s\n",
                deck.variable.c_str(), worst, deck.checkTolerance, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  if (deck.integralDrift >= 0) {
    double volume = 1;
    for (int a = 0; a < deck.dimension; ++a) volume *= deck.length[a];
    const double drift = std::abs(integral - integral0) / volume;
    const bool met = drift <= deck.integralDrift;
    std::printf(
        "check             integral drift %.3e per unit volume, tolerance %.3e: %s\n",
        drift, deck.integralDrift, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  return ok ? 0 : 4;
}

CheckpointState checkpointOf(const Deck& deck, const CellField<Space>& phi, int step,
                             double time, double nextDt) {
  CheckpointState state;
  state.step = step;
  state.time = time;
  state.dt = nextDt;
  state.cells = deck.cells;
  state.variable = deck.variable;
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  state.values.assign(values.data(), values.data() + values.extent(0));
  return state;
}

int runDeck(const Deck& deck, const RunOptions& options) {
  const std::string directory = options.output.empty() ? deck.directory : options.output;
  const Verbosity verbosity = options.quiet     ? Verbosity::Quiet
                              : options.verbose ? Verbosity::Verbose
                                                : Verbosity::Normal;
  std::printf("kfvm run %s: %dD, %d cells, backend %s\n", deck.path.c_str(),
              deck.dimension, deck.numCells(), Space::name());
  reportMemory(deck, true);
  const CartesianGrid grid = gridOf(deck);
  Mesh<Space> mesh(grid);
  const auto centres = cellCentres(grid);
  CellField<Space> phi(mesh, deck.variable);
  phi.fromHost(initialValues(deck, centres));
  Equation<Space> equation(mesh);
  buildEquation(deck, mesh, centres, equation);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(deck.solver, deck.solverParameters));
  stepper.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance), Real(deck.relaxation));
  double time = 0, dt = deck.dt;
  int firstStep = 1;
  if (!options.restart.empty()) {
    require(!deck.steady, deck.path, ": a steady run has no steps to restart");
    const CheckpointState state = readCheckpoint(options.restart);
    require(state.cells == deck.cells, "checkpoint '", options.restart, "' holds ",
            state.cells[0], " x ", state.cells[1], " x ", state.cells[2],
            " cells, the deck's mesh ", deck.cells[0], " x ", deck.cells[1], " x ",
            deck.cells[2]);
    require(state.variable == deck.variable, "checkpoint '", options.restart,
            "' holds variable '", state.variable, "', the deck's is '", deck.variable,
            "'");
    phi.fromHost(state.values);
    time = state.time;
    dt = state.dt;
    firstStep = state.step + 1;
    std::printf("restart           from %s: step %d, t = %.10g\n",
                options.restart.c_str(), state.step, time);
  }
  const bool restarted = firstStep > 1;
  RunOutput output(deck, directory, mesh, phi, verbosity, restarted ? time : -1.0);
  const double integral0 = double(integrate(phi, mesh));
  double integral = integral0;
  int lastStep = firstStep - 1;
  if (!restarted) {
    output.writeVtk(0, 0);
    output.writePng(0);
  }
  if (deck.steady) {
    const auto report = stepper.solveSteady(phi);
    if (!report.converged) {
      std::fprintf(stderr, "kfvm run: steady solve failed: %s\n", report.reason.c_str());
      return 2;
    }
    integral = output.record(0, 0, 0, report, 1).integral;
  } else {
    const auto scheme = timeSchemeFromName(deck.timeScheme);
    for (int step = firstStep;
         deck.steps > 0 ? step <= deck.steps : time < deck.end * (1 - 1e-12); ++step) {
      const double thisDt = deck.steps > 0 ? dt : std::min(dt, deck.end - time);
      const auto report = stepper.step(phi, Real(thisDt), scheme);
      if (!report.converged) {
        std::fprintf(stderr, "\nkfvm run: step %d failed: %s\n", step,
                     report.reason.c_str());
        return 2;
      }
      time += thisDt;
      integral = output.record(step, time, thisDt, report, deck.steps).integral;
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) output.writeVtk(step, time);
      if (deck.pngEvery > 0 && step % deck.pngEvery == 0) output.writePng(step);
      dt = std::min(dt * deck.dtGrowth, deck.dtMax);
      lastStep = step;
      if (deck.checkpointEvery > 0 && step % deck.checkpointEvery == 0)
        writeCheckpoint(directory + "/checkpoint.h5",
                        checkpointOf(deck, phi, step, time, dt));
    }
  }
  if (deck.vtkEvery == 0 || lastStep % deck.vtkEvery != 0)
    output.writeVtk(lastStep, time);
  if (deck.pngEvery == 0 || lastStep % deck.pngEvery != 0) output.writePng(lastStep);
  output.finish();
  return checkResult(deck, phi, centres, time, integral0, integral);
}

int checkDeck(const Deck& deck) {
  std::printf("%s: ok\n  mesh %dD, %d cells; %s; solver %s; %s\n", deck.path.c_str(),
              deck.dimension, deck.numCells(),
              deck.steady ? "steady" : ("time " + deck.timeScheme).c_str(),
              deck.solver.c_str(),
              deck.hasCheck ? "checked against an exact solution" : "no check");
  reportMemory(deck, false);
  return 0;
}

}  // namespace

void addDeckCommands(CLI::App& app, CommandContext& context) {
  auto deckPath = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run the problem a TOML deck describes");
  run->add_option("deck", *deckPath, "Deck file (see apps/decks/README.md)")->required();
  run->add_option("--output", options->output,
                  "Output folder (replaces [output] directory)");
  run->add_option("--restart", options->restart,
                  "Go on from a checkpoint ([output] checkpoint_every writes them)");
  run->add_option(
         "--cells", options->cells,
         "Cells per direction, replacing the deck's (a small run of a large deck)")
      ->check(CLI::Range(1, 100000));
  auto* quiet = run->add_flag("-q,--quiet", options->quiet, "Print the summary only");
  run->add_flag("-v,--verbose", options->verbose, "A progress line every step")
      ->excludes(quiet);
  run->callback([deckPath, options, &context] {
    Deck deck = readDeck(
        *deckPath, convectionSchemeNames());  // a bad deck fails before Kokkos starts
    for (int a = 0; a < deck.dimension && options->cells > 0; ++a)
      deck.cells[a] = options->cells;
    context.runWithKokkos([&] { return runDeck(deck, *options); });
  });
  auto checkPath = std::make_shared<std::string>();
  auto* check = app.add_subcommand("check", "Validate a deck without running it");
  check->add_option("deck", *checkPath, "Deck file")->required();
  check->callback([checkPath, &context] {
    const Deck deck = readDeck(*checkPath, convectionSchemeNames());
    context.runWithKokkos([&] { return checkDeck(deck); });
  });
}

}  // namespace kfvm::app
