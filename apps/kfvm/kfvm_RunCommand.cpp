// `kfvm run DECK` and `kfvm check DECK`: a whole run from a TOML deck (kfvm_Deck.hpp).
#include "kfvm_Deck.hpp"
#include "kfvm_Expression.hpp"
#include "kfvm_ProblemCommands.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_SystemInfo.hpp>
#include <kfvm_VtkWriter.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

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

void buildEquation(const Deck& deck, Equation<Space>& equation) {
  if (deck.transient) equation.transient(Real(deck.rho));
  if (deck.hasDiffusion) equation.diffusion(Real(deck.diffusion));
  if (!deck.diffusionPolynomial.empty())
    equation.diffusion(polynomialOf(deck.diffusionPolynomial));
  if (deck.hasConvection)
    equation.convection(Real(deck.velocity[0]), Real(deck.velocity[1]),
                        Real(deck.velocity[2]), convectionSchemeFromName(deck.scheme));
  if (deck.implicitSource != 0) equation.implicitSource(Real(deck.implicitSource));
  if (deck.source != 0) equation.source(Real(deck.source));
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

int runDeck(const Deck& deck, const std::string& outputOverride) {
  const std::string directory = outputOverride.empty() ? deck.directory : outputOverride;
  std::printf("kfvm run %s: %dD, %d cells, backend %s\n", deck.path.c_str(),
              deck.dimension, deck.numCells(), Space::name());
  reportMemory(deck, true);
  const CartesianGrid grid = gridOf(deck);
  Mesh<Space> mesh(grid);
  const auto centres = cellCentres(grid);
  CellField<Space> phi(mesh, deck.variable);
  phi.fromHost(initialValues(deck, centres));
  Equation<Space> equation(mesh);
  buildEquation(deck, equation);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(deck.solver, deck.solverParameters));
  stepper.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance), Real(deck.relaxation));
  std::filesystem::create_directories(directory);
  VtkTimeSeries series(directory + "/" + deck.variable + ".pvd");
  int written = 0;
  auto writeVtk = [&](double time) {
    if (!deck.vtk) return;
    char name[64];
    std::snprintf(name, sizeof(name), "%s_%06d.vtr", deck.variable.c_str(), written++);
    writeVtkRectilinear<Space>(directory + "/" + name, mesh, {&phi}, time);
    series.add(time, name);
  };
  std::ofstream csv;
  if (deck.csv) {
    csv.open(directory + "/series.csv");
    require(bool(csv), "cannot write ", directory, "/series.csv");
    csv << "step,time,dt,sweeps,iterations,residual,min,max,integral\n";
    csv.precision(12);
  }
  const auto start = std::chrono::steady_clock::now();
  auto record = [&](int step, double time, double dt, const StepReport& report) {
    const auto s = statisticsOf(phi, mesh);
    if (csv.is_open())
      csv << step << ',' << time << ',' << dt << ',' << report.sweeps << ','
          << report.totalIterations << ',' << report.finalResidual << ',' << s.minimum
          << ',' << s.maximum << ',' << s.integral << '\n';
    if (step % deck.progressEvery == 0 || step == 0) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf(
          "step %6d  t = %-10.4g dt = %-9.3g sweeps %2d  iterations %5d  residual "
          "%.2e  min %.4g max %.4g  %.1f s\n",
          step, time, dt, report.sweeps, report.totalIterations, report.finalResidual,
          s.minimum, s.maximum, elapsed);
    }
  };
  writeVtk(0);
  double time = 0;
  if (deck.steady) {
    const auto report = stepper.solveSteady(phi);
    if (!report.converged) {
      std::fprintf(stderr, "kfvm run: steady solve failed: %s\n", report.reason.c_str());
      return 2;
    }
    record(0, 0, 0, report);
  } else {
    const auto scheme = timeSchemeFromName(deck.timeScheme);
    double dt = deck.dt;
    for (int step = 1;
         deck.steps > 0 ? step <= deck.steps : time < deck.end * (1 - 1e-12); ++step) {
      const double thisDt = deck.steps > 0 ? dt : std::min(dt, deck.end - time);
      const auto report = stepper.step(phi, Real(thisDt), scheme);
      if (!report.converged) {
        std::fprintf(stderr, "kfvm run: step %d failed: %s\n", step,
                     report.reason.c_str());
        return 2;
      }
      time += thisDt;
      record(step, time, thisDt, report);
      if (deck.vtkEvery > 0 && step % deck.vtkEvery == 0) writeVtk(time);
      dt = std::min(dt * deck.dtGrowth, deck.dtMax);
    }
  }
  if (deck.vtkEvery == 0 || !deck.vtk) writeVtk(time);
  std::printf("output            %s (%d VTK files, %s)\n", directory.c_str(), written,
              deck.csv ? "series.csv" : "no CSV");
  if (!deck.hasCheck) return 0;
  const Expression exact(deck.exact);
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  double worst = 0;
  for (std::size_t c = 0; c < centres.size(); ++c) {
    const auto& p = centres[c];
    worst = std::max(worst, std::abs(double(values(c)) - exact(p[0], p[1], p[2], time)));
  }
  const bool ok = worst <= deck.checkTolerance;
  std::printf("check             max |%s - exact| = %.3e, tolerance %.3e: %s\n",
              deck.variable.c_str(), worst, deck.checkTolerance, ok ? "ok" : "FAILED");
  return ok ? 0 : 4;
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
  auto output = std::make_shared<std::string>();
  auto cells = std::make_shared<int>(0);
  auto* run = app.add_subcommand("run", "Run the problem a TOML deck describes");
  run->add_option("deck", *deckPath, "Deck file (see apps/decks/README.md)")->required();
  run->add_option("--output", *output, "Output folder (overrides [output] directory)");
  run->add_option("--cells", *cells,
                  "Cells per direction, replacing the deck's (a small "
                  "run of a large deck)")
      ->check(CLI::Range(1, 100000));
  run->callback([deckPath, output, cells, &context] {
    Deck deck = readDeck(*deckPath);  // a bad deck fails before Kokkos starts
    for (int a = 0; a<deck.dimension&& * cells> 0; ++a) deck.cells[a] = *cells;
    context.runWithKokkos([&] { return runDeck(deck, *output); });
  });
  auto checkPath = std::make_shared<std::string>();
  auto* check = app.add_subcommand("check", "Validate a deck without running it");
  check->add_option("deck", *checkPath, "Deck file")->required();
  check->callback([checkPath, &context] {
    const Deck deck = readDeck(*checkPath);
    context.runWithKokkos([&] { return checkDeck(deck); });
  });
}

}  // namespace kfvm::app
