#include "kfvm_Deck.hpp"

#include <kfvm_Expression.hpp>
#include "kfvm_DeckTableReader.hpp"

#include <kfvm_Error.hpp>
#include <kfvm_SchemeNames.hpp>
#include <kfvm_SparseLU.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace kfvm::app {

namespace {

void readMesh(TableReader& mesh, Deck& deck) {
  const bool file = mesh.find("file") != nullptr, geo = mesh.find("geo") != nullptr;
  if (file || geo) {  // a Gmsh mesh, read by loadDeckMesh
    if (file && geo)
      mesh.error(mesh.find("geo"), "geo",
                 "give file (a .msh mesh) or geo (a script), not both");
    const char* key = file ? "file" : "geo";
    for (const char* boxKey : {"cells", "length"})
      if (const toml::node* node = mesh.find(boxKey))
        mesh.error(node, boxKey, "a Gmsh mesh (", key, ") takes no ", boxKey);
    deck.meshFile = mesh.string(key, "", {}, true);
    deck.meshIsScript = geo;
    deck.meshFileAt = mesh.at(key);
    if (deck.meshFile.empty()) mesh.error(mesh.find(key), key, "is empty");
    deck.dimension = mesh.integer("dimension", 2, 2, 3, true);
    deck.periodicPairs = mesh.stringPairs("periodic");
    deck.periodicAt = mesh.at("periodic");
    mesh.finish();
    return;
  }
  if (const toml::node* node = mesh.find("periodic"))
    mesh.error(
        node, "periodic",
        "joins patches of a Gmsh mesh (file or geo); a uniform box is not periodic "
        "in decks");
  deck.dimension = mesh.integer("dimension", 1, 1, 3, true);
  const auto cells = mesh.numbers("cells", std::size_t(deck.dimension), 1, 1e5, true);
  deck.cellsAt = mesh.at("cells");
  const auto length =
      mesh.numbers("length", std::size_t(deck.dimension), 1e-300, huge, true);
  for (int a = 0; a < deck.dimension; ++a) {
    deck.cells[a] = int(cells[a]);
    if (cells[a] != deck.cells[a])
      mesh.error(mesh.find("cells"), "cells", "value ", cells[a],
                 " is not a whole number");
    deck.length[a] = length[a];
  }
  mesh.finish();
}

/// A convection table's `velocity`: one component per dimension, the rest 0.
std::array<double, 3> velocityOf(TableReader& reader, int dimension) {
  const auto given =
      reader.numbers("velocity", std::size_t(dimension), -huge, huge, true);
  std::array<double, 3> velocity{};
  for (int a = 0; a < dimension; ++a) velocity[a] = given[a];
  return velocity;
}

void readEquation(TableReader& equation, Deck& deck,
                  const std::vector<std::string>& convectionSchemes) {
  const toml::node* transient = equation.find("transient");
  if (transient) {
    deck.transient = true;
    deck.rho = equation.coefficient("transient", 1, 0, huge);
  }
  deck.diffusionSign =
      equation.string("diffusion_sign", "non-negative", {"non-negative", "either"});
  const bool eitherSign = deck.diffusionSign == "either";
  if (equation.find("diffusion")) {
    deck.hasDiffusion = true;
    deck.diffusion = equation.coefficient("diffusion", 0, eitherSign ? -huge : 0, huge);
    if (eitherSign && deck.diffusion.isExpression())
      equation.error(equation.find("diffusion"), "diffusion",
                     "diffusion_sign = \"either\" takes a number (kfvm averages a "
                     "coefficient per cell to faces harmonically, defined for D >= 0)");
  }
  deck.diffusionPolynomial = equation.numbers("diffusion_polynomial", 0, -huge, huge);
  deck.diffusionCorrection = equation.string("diffusion_correction",
                                             deck.isCartesian() ? "none" : "over-relaxed",
                                             {"over-relaxed", "none"});
  deck.correctionGradient =
      equation.string("correction_gradient", "least-squares", {"least-squares", "gauss"});
  const bool diffuses = deck.hasDiffusion || !deck.diffusionPolynomial.empty();
  if (const toml::node* node = equation.find("diffusion_correction"); node && !diffuses)
    equation.error(node, "diffusion_correction",
                   "corrects a diffusion term, which this equation does not have");
  if (!diffuses) deck.diffusionCorrection = "none";
  if (const auto* convection = equation.subtable("convection")) {
    TableReader reader(equation.path(), *convection, "equation.convection");
    deck.hasConvection = true;
    deck.velocity = velocityOf(reader, deck.dimension);
    deck.scheme = reader.string("scheme", "upwind", convectionSchemes);
    reader.finish();
  }
  if (const auto* convection = equation.subtable("explicit_convection")) {
    TableReader reader(equation.path(), *convection, "equation.explicit_convection");
    deck.hasExplicitConvection = true;
    deck.explicitVelocity = velocityOf(reader, deck.dimension);
    deck.explicitScheme =
        reader.string("scheme", "upwind", explicitConvectionSchemeNames());
    if (deck.explicitScheme == "upwind" && reader.find("gradient_boundary"))
      reader.error(reader.find("gradient_boundary"), "gradient_boundary",
                   "is read by scheme = \"van-leer\" only");
    deck.explicitGradientBoundary = reader.string("gradient_boundary", "cell-values",
                                                  explicitGradientBoundaryNames());
    reader.finish();
  }
  deck.implicitSource = equation.coefficient("implicit_source", 0, -huge, huge);
  deck.implicitSourceForm =
      equation.string("implicit_source_form", "matrix", {"matrix", "diagonal-only"});
  if (equation.find("explicit_diffusion")) {
    deck.hasExplicitDiffusion = true;
    deck.explicitDiffusion = equation.number("explicit_diffusion", 0, -huge, huge);
  }
  deck.explicitDiffusionBoundary = equation.string(
      "explicit_diffusion_boundary", "conditions", {"conditions", "zero-flux"});
  deck.source = equation.coefficient("source", 0, -huge, huge);
  deck.sourcePolynomial = equation.numbers("source_polynomial", 0, -huge, huge);
  if (const auto* higher = equation.subtable("higher_order")) {
    TableReader reader(equation.path(), *higher, "equation.higher_order");
    deck.hasHigherOrder = true;
    deck.mobility = reader.coefficient("mobility", 0, 0, huge, true);
    deck.kappa = reader.coefficient("kappa", 0, 0, huge, true);
    const auto potential = reader.numbers("potential", 0, -huge, huge);
    if (!potential.empty()) deck.potential = potential;
    reader.finish();
  }
  for (const auto* list :
       {&deck.diffusionPolynomial, &deck.sourcePolynomial, &deck.potential})
    if (list->size() > 8)
      equation.error(nullptr, "polynomial", "at most 8 coefficients, got ", list->size());
  if (deck.hasExplicitConvection && !deck.transient)
    equation.error(nullptr, "explicit_convection",
                   "needs a transient term (FiPy's explicit convection steps in time)");
  if (!deck.transient && !deck.hasDiffusion && !deck.hasConvection &&
      !deck.hasHigherOrder && deck.diffusionPolynomial.empty())
    equation.error(nullptr, "equation",
                   "has no transient, diffusion, convection or "
                   "higher-order term");
  equation.finish();
}

void readBoundary(TableReader& boundary, Deck& deck) {
  BoundarySpec spec;
  const toml::node* patchNode = boundary.find("patch");
  const std::string patch = boundary.string("patch", "", {}, true);
  spec.patchName = patch;
  spec.patchAt = boundary.at("patch");
  if (deck.isCartesian()) {  // a Gmsh mesh's patches are checked once it is read
    try {
      spec.patch = patchFromName(patch);
    } catch (const Error& error) {
      boundary.error(patchNode, "patch", error.message());
    }
    if (int(spec.patch) / 2 >= deck.dimension)
      boundary.error(patchNode, "patch", "\"", patch, "\" is not a side of a ",
                     deck.dimension, "D mesh");
  }
  spec.variable = variableIndex(boundary, "variable", deck);
  const toml::node* onNode = boundary.find("on");
  spec.onPotential =
      boundary.string("on", "variable", {"variable", "potential"}) == "potential";
  if (spec.onPotential && !deck.hasHigherOrder)
    boundary.error(onNode, "on",
                   "\"potential\" sets mu of [equation] higher_order, which this deck "
                   "does not have");
  spec.type = boundary.string("type", "", {"dirichlet", "neumann", "robin"}, true);
  spec.at = boundary.at("type");
  if (spec.type == "robin") {
    spec.a = boundary.number("a", 0, -huge, huge, true);
    spec.b = boundary.number("b", 0, -huge, huge, true);
  }
  spec.value = boundary.number("value", 0, -huge, huge, true);
  boundary.finish();
  deck.boundaries.push_back(spec);
}

/// The shortest text that reads back as value (a parameter given in the deck).
std::string shortestText(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

void readSolver(TableReader& solver, Deck& deck) {
  deck.solverNamed = solver.find("name") != nullptr;
  deck.solver = solver.string("name", deck.defaultSolver(false));
  deck.solverAt = solver.at("name");
  deck.solverParameters = Parameters{};
  deck.solverParameters.set("tolerance", solver.number("tolerance", 1e-10, 0, 1));
  deck.solverParameters.set("max_iterations",
                            solver.integer("max_iterations", 2000, 1, 100000000));
  const bool direct = deck.solver == "lu" || deck.solver == "direct";
  deck.solverParameters.set("preconditioner",
                            solver.string("preconditioner", direct ? "none" : "jacobi"));
  if (solver.find("restart"))
    deck.solverParameters.set("restart", solver.integer("restart", 30, 1, 1000));
  deck.matrixFree = solver.boolean("matrix_free", false);
  deck.matrixFreeAt = solver.at("matrix_free");
  if (deck.matrixFree && deck.isCoupled())
    solver.error(solver.find("matrix_free"), "matrix_free",
                 "a coupled deck solves with its block matrix");
  // The default Krylov method for the fourth-order term and coupled systems (on a mesh
  // above the direct solver's default size) falls back to the direct solver where it
  // does not converge: the run converges at every dt, and factors only then.
  if (!deck.solverNamed && !deck.matrixFree && deck.isHardForKrylov() &&
      deck.solver != "lu" && haveDirectSolver())
    deck.solverParameters.set("fallback", "lu");
  // Any other parameter of the method, the preconditioner or a Trilinos solver
  // (chebyshev_degree, criterion, preconditioner_reuse, ...), passed as given; the
  // solver refuses one it does not read (validateDeck).
  if (const toml::table* parameters = solver.subtable("parameters")) {
    for (auto&& [name, node] : *parameters) {
      const std::string key(name.str());
      if (key == "tolerance" || key == "max_iterations" || key == "preconditioner" ||
          key == "restart")
        solver.error(&node, "parameters." + key, "give ", key, " in [solver] itself");
      if (node.is_string())
        deck.solverParameters.set(key, *node.value<std::string>());
      else if (node.is_integer())
        deck.solverParameters.set(key, std::to_string(*node.value<std::int64_t>()));
      else if (node.is_floating_point())
        deck.solverParameters.set(key, shortestText(*node.value<double>()));
      else if (node.is_boolean())
        deck.solverParameters.set(key, *node.value<bool>() ? "true" : "false");
      else
        solver.error(&node, "parameters." + key,
                     "expected a string, number or true/false, got ",
                     TableReader::show(node));
    }
  }
  deck.maxSweeps = solver.integer("sweeps", 20, 1, 100000);
  deck.sweepTolerance = solver.number("sweep_tolerance", 1e-8, 1e-300, 1);
  deck.relaxation = solver.number("relaxation", 1, 1e-3, 1);
  if (deck.isCoupled() && deck.relaxation != 1)
    solver.error(solver.find("relaxation"), "relaxation",
                 "a coupled deck sweeps without relaxation (Newton), got ",
                 deck.relaxation);
  solver.finish();
}

}  // namespace

std::string rangeText(double low, double high) {
  std::ostringstream text;
  text.precision(17);
  if (high >= std::numeric_limits<double>::max())
    text << "must be >= " << low;
  else
    text << "must be in [" << low << ", " << high << "]";
  return text.str();
}

namespace {

void readOutput(TableReader& output, Deck& deck) {
  deck.directory = output.string("directory", "kfvm-output");
  deck.vtk = output.boolean("vtk", true);
  deck.vtkEvery = output.integer("vtk_every", 0, 0, 100000000);
  deck.csv = output.boolean("csv", true);
  deck.progressEvery = output.integer("progress_every", 10, 1, 100000000);
  deck.checkpointEvery = output.integer("checkpoint_every", 0, 0, 100000000);
  if (deck.checkpointEvery > 0 && deck.steady)
    output.error(output.find("checkpoint_every"), "checkpoint_every",
                 "a steady run has no steps to checkpoint");
  deck.png = output.boolean("png", false);
  deck.pngEvery = output.integer("png_every", 0, 0, 100000000);
  if (deck.png && deck.dimension < 2)
    output.error(output.find("png"), "png", "PNG snapshots need a 2D or 3D mesh");
  if (deck.png && !deck.isCartesian() && deck.dimension == 3)
    output.error(output.find("png"), "png",
                 "PNG snapshots of a 3D Gmsh mesh are not built (2D ones are): write VTK "
                 "(vtk = true) and view the .vtu files");
  if (const toml::node* probes = output.find("probe")) {
    const toml::array* array = probes->as_array();
    if (!array || !array->is_array_of_tables())
      output.error(probes, "probe", "expected [[output.probe]] tables");
    for (const toml::node& element : *array) {
      TableReader probe(output.path(), *element.as_table(), "output.probe");
      const auto point =
          probe.numbers("point", std::size_t(deck.dimension), -huge, huge, true);
      std::array<double, 3> p{};
      for (int a = 0; a < deck.dimension; ++a) {
        if (deck.isCartesian() && (point[a] < 0 || point[a] > deck.length[a]))
          probe.error(probe.find("point"), "point", "coordinate ", point[a],
                      " is outside the mesh [0, ", deck.length[a], "]");
        p[a] = point[a];
      }
      probe.finish();
      deck.probes.push_back(p);
    }
  }
  output.finish();
}

void readCheck(TableReader& check, Deck& deck) {
  deck.hasCheck = true;
  deck.checkVariable = deck.variables.size() > 1 && !check.find("variable")
                           ? 0  // the first, as documented
                           : variableIndex(check, "variable", deck);
  const toml::node* node = check.find("exact");
  deck.exact = check.string("exact", "");
  if (node) {
    try {
      Expression parsed(deck.exact);
      (void)parsed;
    } catch (const Error& error) {
      check.error(node, "exact", error.message());
    }
    deck.checkTolerance = check.number("tolerance", 0, 0, huge, true);
  }
  deck.integralDrift = check.number("integral_drift", -1, 0, huge);
  if (!node && deck.integralDrift < 0)
    check.error(nullptr, "exact", "give exact (and tolerance) or integral_drift");
  check.finish();
}

}  // namespace

void readInitial(TableReader& initial, InitialCondition& condition, int dimension) {
  condition.type =
      initial.string("type", "constant",
                     {"constant", "box", "sphere", "random", "expression", "file"}, true);
  const auto dim = std::size_t(dimension);
  if (condition.type == "constant") {
    condition.value = initial.number("value", 0, -huge, huge, true);
  } else if (condition.type == "box" || condition.type == "sphere") {
    condition.inside = initial.number("inside", 1, -huge, huge);
    condition.outside = initial.number("outside", 0, -huge, huge);
    if (condition.type == "box") {
      const auto lower = initial.numbers("lower", dim, -huge, huge, true);
      const auto upper = initial.numbers("upper", dim, -huge, huge, true);
      for (std::size_t a = 0; a < dim; ++a) {
        condition.lower[a] = lower[a];
        condition.upper[a] = upper[a];
      }
    } else {
      const auto centre = initial.numbers("centre", dim, -huge, huge, true);
      for (std::size_t a = 0; a < dim; ++a) condition.centre[a] = centre[a];
      condition.radius = initial.number("radius", 0, 0, huge, true);
    }
  } else if (condition.type == "file") {
    condition.file = initial.string("file", "", {}, true);
    condition.dataset = initial.string("dataset", "");
    condition.at = initial.at("file");
  } else if (condition.type == "random") {
    condition.mean = initial.number("mean", 0, -huge, huge);
    condition.amplitude = initial.number("amplitude", 0, 0, huge, true);
    condition.seed = unsigned(initial.integer("seed", 0, 0, 2147483647, true));
  } else {
    const toml::node* node = initial.find("value");
    condition.expression = initial.string("value", "", {}, true);
    try {
      Expression check(condition.expression);
      (void)check;
    } catch (const Error& error) {
      initial.error(node, "value", error.message());
    }
  }
  initial.finish();
}

void setCellsPerDirection(Deck& deck, int cells) {
  require(deck.isCartesian(), deck.path,
          ": --cells sets a Cartesian grid's cells; [mesh] is the Gmsh mesh '",
          deck.meshFile, "'");
  for (int a = 0; a < deck.dimension; ++a) deck.cells[a] = cells;
}

Deck readDeck(const std::string& path,
              const std::vector<std::string>& convectionSchemes) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& error) {
    fail(path, ":", error.source().begin.line, ": ", error.description());
  }
  Deck deck;
  deck.path = path;
  TableReader top(deck.path, root, "deck");
  const auto* mesh = top.subtable("mesh");
  if (!mesh) top.error(nullptr, "mesh", "missing: every deck needs a [mesh] table");
  TableReader meshReader(deck.path, *mesh, "mesh");
  readMesh(meshReader, deck);
  readVariables(top, deck);
  const toml::node* equation = top.find("equation");
  if (!equation)
    top.error(nullptr, "equation", "missing: every deck needs an [equation]");
  if (const toml::array* equations = equation->as_array()) {
    if (!equations->is_array_of_tables())
      top.error(equation, "equation",
                "expected an [equation] table or [[equation]] tables");
    readCoupledEquations(top, *equations, deck);
  } else {
    if (!equation->is_table())
      top.error(equation, "equation", "expected an [equation] table, got ",
                TableReader::show(*equation));
    if (deck.variables.size() > 1)
      top.error(equation, "equation", "a deck of ", deck.variables.size(),
                " variables needs one [[equation]] per variable");
    TableReader equationReader(deck.path, *equation->as_table(), "equation");
    readEquation(equationReader, deck, convectionSchemes);
  }
  if (const toml::node* boundaries = top.find("boundary")) {
    const toml::array* array = boundaries->as_array();
    if (!array || !array->is_array_of_tables())
      top.error(boundaries, "boundary", "expected [[boundary]] tables");
    for (const toml::node& element : *array) {
      TableReader reader(deck.path, *element.as_table(), "boundary");
      readBoundary(reader, deck);
    }
  }
  const toml::table empty;
  const auto* solver = top.subtable("solver");
  TableReader solverReader(deck.path, solver ? *solver : empty, "solver");
  readSolver(solverReader, deck);
  const auto* time = top.subtable("time");
  if (!time)
    top.error(nullptr, "time", "missing: give [time] steady = true, or dt and steps");
  TableReader timeReader(deck.path, *time, "time");
  readTime(timeReader, deck);
  if (deck.steady && deck.transient)
    timeReader.error(nullptr, "steady", "a steady run cannot have a transient term");
  if (!deck.steady && !deck.transient)
    timeReader.error(nullptr, "dt", "time stepping needs a transient term");
  const auto* output = top.subtable("output");
  TableReader outputReader(deck.path, output ? *output : empty, "output");
  readOutput(outputReader, deck);
  if (const auto* check = top.subtable("check")) {
    TableReader reader(deck.path, *check, "check");
    readCheck(reader, deck);
  }
  if (const auto* parallel = top.subtable("parallel")) {  // the ranks of an MPI run
    TableReader reader(deck.path, *parallel, "parallel");
    deck.ranksAt = reader.at("ranks");
    const auto ranks =
        reader.numbers("ranks", std::size_t(deck.dimension), 1, 1048576, true);
    for (std::size_t a = 0; a < ranks.size(); ++a) {
      if (ranks[a] != std::floor(ranks[a]))
        reader.error(reader.find("ranks"), "ranks", "ranks per axis are whole numbers");
      deck.ranks[a] = int(ranks[a]);
    }
    reader.finish();
  }
  top.finish();
  return deck;
}

void Deck::defaultSolverAcrossRanks() {
  if (solverNamed) return;
  if (solverParameters.getString("fallback", "none") == "lu")
    solverParameters.set("fallback", "none");  // the direct solver runs on one process
  if (solver == defaultSolver(true)) return;
  solver = defaultSolver(true);
  if (solverParameters.getString("preconditioner", "none") == "none")
    solverParameters.set("preconditioner", "jacobi");
}

std::string Deck::defaultSolver(bool acrossRanks) const {
  return isHardForKrylov() && !acrossRanks && directSolverByDefault(dimension, numCells())
             ? "lu"
             : "gmres";
}

}  // namespace kfvm::app
