#include "kfvm_DeckSetup.hpp"
#include "kfvm_InitialFile.hpp"

#include <kfvm_Expression.hpp>

#include <kfvm_GmshMesh.hpp>
#include <kfvm_SystemInfo.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <random>

namespace kfvm::app {

namespace {

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

/// An expression coefficient at every cell centre, each value finite and in the key's
/// range, else an error naming the key, the cell and the value; the values go to
/// `values` unless it is null (kfvm check).
void evaluateCoefficient(const Deck& deck, const DeckCoefficient& coefficient,
                         const std::vector<std::array<double, 3>>& centres,
                         std::vector<double>* values) {
  const Expression expression(coefficient.expression);
  if (values) values->resize(centres.size());
  for (std::size_t c = 0; c < centres.size(); ++c) {
    const double x = centres[c][0], y = centres[c][1], z = centres[c][2];
    const double value = expression(x, y, z);
    if (!(value >= coefficient.low && value <= coefficient.high))
      deckError(deck, coefficient.at, "'", coefficient.expression, "' is ", value,
                " at cell ", c, " (x = ", x, ", y = ", y, ", z = ", z, "): it ",
                std::isfinite(value) ? rangeText(coefficient.low, coefficient.high)
                                     : std::string("must be a finite number"));
    if (values) (*values)[c] = value;
  }
}

/// Points of a View (one row of 3 per point) on the host, in double.
template <class Points>
std::vector<std::array<double, 3>> hostPoints(const Points& points) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), points);
  std::vector<std::array<double, 3>> result(host.extent(0));
  for (std::size_t i = 0; i < result.size(); ++i)
    result[i] = {double(host(i, 0)), double(host(i, 1)), double(host(i, 2))};
  return result;
}

/// An expression coefficient at face centres (x, y, z per face), each value finite and
/// in the key's range, else an error naming the key, the face and the value.
std::vector<double> evaluateAtFaces(const Deck& deck, const DeckCoefficient& coefficient,
                                    const std::vector<std::array<double, 3>>& centres) {
  const Expression expression(coefficient.expression);
  std::vector<double> values(centres.size());
  for (std::size_t f = 0; f < centres.size(); ++f) {
    const auto& p = centres[f];
    const double value = expression(p[0], p[1], p[2]);
    if (!(value >= coefficient.low && value <= coefficient.high))
      deckError(deck, coefficient.at, "'", coefficient.expression, "' is ", value,
                " at the face centred at x = ", p[0], ", y = ", p[1], ", z = ", p[2],
                ": it ",
                std::isfinite(value) ? rangeText(coefficient.low, coefficient.high)
                                     : std::string("must be a finite number"));
    values[f] = value;
  }
  return values;
}

/// The centres of every face of the grid (faces normal to x, then y, then z).
std::vector<std::array<double, 3>> faceCentresOf(const CartesianGrid& grid) {
  std::vector<std::array<double, 3>> centres;
  auto at = [&](int axis, int i, bool vertex) {
    if (axis >= grid.dimension()) return 0.0;
    const auto& v = grid.vertices(axis);
    return vertex ? v[std::size_t(i)] : 0.5 * (v[std::size_t(i)] + v[std::size_t(i) + 1]);
  };
  for (int normal = 0; normal < grid.dimension(); ++normal) {
    const int n[3] = {grid.cells(0) + (normal == 0), grid.cells(1) + (normal == 1),
                      grid.cells(2) + (normal == 2)};
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i)
          centres.push_back(
              {at(0, i, normal == 0), at(1, j, normal == 1), at(2, k, normal == 2)});
  }
  return centres;
}

/// A per-face field of expression values at the mesh's face centres.
FaceField<DeckSpace> faceFieldOf(const Deck& deck, const DeckCoefficient& coefficient,
                                 const Mesh<DeckSpace>& mesh, const std::string& name) {
  FaceField<DeckSpace> field(mesh, name);
  field.fromHost(evaluateAtFaces(deck, coefficient, hostPoints(mesh.faceCentres())));
  return field;
}

/// A per-cell field of expression values at the cell centres (set up once, on the host).
CellField<DeckSpace> fieldOf(const Deck& deck, const DeckCoefficient& coefficient,
                             const Mesh<DeckSpace>& mesh,
                             const std::vector<std::array<double, 3>>& centres,
                             const std::string& name) {
  std::vector<double> values;
  evaluateCoefficient(deck, coefficient, centres, &values);
  CellField<DeckSpace> field(mesh, name);
  field.fromHost(values);
  return field;
}

/// A [[boundary]] patch of a Gmsh mesh: its index, else an error naming the deck's line
/// and listing the mesh's patches.
void requirePatch(const Deck& deck, const BoundarySpec& spec,
                  const Mesh<DeckSpace>& mesh) {
  if (mesh.findPatch(spec.patchName) >= 0) return;
  std::string known;
  for (const auto& name : mesh.patchNames()) known += (known.empty() ? "" : ", ") + name;
  deckError(deck, spec.patchAt, "the mesh '", deck.meshFile, "' has no patch \"",
            spec.patchName, "\" (its patches: ", known, ")");
}

}  // namespace

std::string validateDeck(const Deck& deck, const Mesh<DeckSpace>* runMesh) {
  std::optional<CartesianGrid> grid;
  std::optional<Mesh<DeckSpace>> ownMesh;
  std::vector<std::array<double, 3>> centres, faceCentres;
  if (deck.isCartesian()) {
    try {
      grid = gridOf(deck);
    } catch (const Error& error) {
      deckError(deck, deck.cellsAt, error.message());
    }
    centres = cellCentres(*grid);
  } else {
    if (!runMesh) ownMesh.emplace(meshOf(deck));
    const Mesh<DeckSpace>& mesh = runMesh ? *runMesh : *ownMesh;
    centres = cellCentres(deck, mesh);
    faceCentres = hostPoints(mesh.faceCentres());
    for (const auto& spec : deck.boundaries) requirePatch(deck, spec, mesh);
    if (deck.matrixFree)
      deckError(deck, deck.matrixFreeAt,
                "solves by the Cartesian stencil: a Gmsh mesh's solves need the matrix");
  }
  const std::string memory = reportMemory(deck, true);
  for (const DeckCoefficient* c : {&deck.rho, &deck.diffusion, &deck.implicitSource,
                                   &deck.source, &deck.mobility, &deck.kappa})
    if (c->isExpression()) evaluateCoefficient(deck, *c, centres, nullptr);
  for (const auto& spec : deck.coupled) {  // per cell; diffusion at the faces
    for (const auto* term : {&spec.transient, &spec.implicitSource})
      for (const auto& c : *term)
        if (c.isExpression()) evaluateCoefficient(deck, c, centres, nullptr);
    for (const auto& c : spec.diffusion)
      if (c.isExpression())
        (void)evaluateAtFaces(deck, c, grid ? faceCentresOf(*grid) : faceCentres);
    if (spec.source.isExpression())
      evaluateCoefficient(deck, spec.source, centres, nullptr);
  }
  for (const auto& spec : deck.boundaries) {
    try {
      (void)conditionOf(spec);
    } catch (const Error& error) {
      deckError(deck, spec.at, error.message());
    }
  }
  for (const auto& variable : deck.variables)  // every file read and checked
    if (variable.initial.type == "file") (void)readInitialFile(deck, variable);
  std::unique_ptr<LinearSolver<DeckSpace>> solver;
  try {
    solver = makeLinearSolver<DeckSpace>(deck.solver, deck.solverParameters);
  } catch (const Error& error) {
    deckError(deck, deck.solverAt, error.message());
  }
  if (deck.matrixFree && solver->needsMatrix())
    deckError(deck, deck.matrixFreeAt, "solver '", deck.solver, "' with preconditioner '",
              solver->preconditionerName(),
              "' needs an assembled matrix (a native method with jacobi, chebyshev or "
              "none does not)");
  if (deck.matrixFree && deck.hasHigherOrder)
    deckError(deck, deck.matrixFreeAt,
              "the higher-order term reaches neighbours' neighbours: its solves need the "
              "matrix");
  return memory;
}

CartesianGrid gridOf(const Deck& deck) {
  require(deck.isCartesian(), deck.path, ": [mesh] is a Gmsh mesh, not a Cartesian grid");
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

void loadDeckMesh(Deck& deck) {
  if (deck.isCartesian() || deck.topology) return;
  std::string path = deck.meshFile;
  if (path.front() != '/' && deck.path.rfind('/') != std::string::npos)
    path = deck.path.substr(0, deck.path.rfind('/') + 1) + path;
  std::shared_ptr<MeshTopology> topology;
  try {
    topology = std::make_shared<MeshTopology>(deck.meshIsScript
                                                  ? meshGmshScript(path, deck.dimension)
                                                  : readGmshTopology(path));
  } catch (const Error& error) {
    deckError(deck, deck.meshFileAt, error.message());
  }
  if (!deck.periodicPairs.empty()) {
    try {  // the pairs checked here, so that a bad one names the deck's line
      for (const auto& pair : deck.periodicPairs)
        topology->addPeriodicPair(pair[0], pair[1]);
      (void)topology->connect();
    } catch (const Error& error) {
      deckError(deck, deck.periodicAt, "'", path, "': ", error.message());
    }
  }
  if (topology->dimension() != deck.dimension)
    deckError(deck, deck.meshFileAt, "'", path, "' is a ", topology->dimension(),
              "D mesh, but [mesh] dimension is ", deck.dimension);
  if (topology->numCells() > std::numeric_limits<int>::max())
    deckError(deck, deck.meshFileAt, "'", path, "' has ", topology->numCells(),
              " cells, more than a deck run takes");
  deck.cells = {int(topology->numCells()), 1, 1};
  deck.topology = topology;
}

Mesh<DeckSpace> meshOf(const Deck& deck) {
  if (deck.isCartesian()) return Mesh<DeckSpace>(gridOf(deck));
  require(deck.topology != nullptr, deck.path, ": the Gmsh mesh '", deck.meshFile,
          "' was not read (loadDeckMesh)");
  return Mesh<DeckSpace>(*deck.topology);
}

std::vector<std::array<double, 3>> cellCentres(const Deck& deck,
                                               const Mesh<DeckSpace>& mesh) {
  if (deck.isCartesian()) return cellCentres(mesh.grid());
  return hostPoints(mesh.cellCentres());
}

std::vector<double> initialValues(const InitialCondition& ic, int dimension,
                                  const std::vector<std::array<double, 3>>& centres) {
  std::vector<double> values(centres.size(), ic.value);
  std::mt19937 random(ic.seed);
  std::uniform_real_distribution<double> noise(-ic.amplitude, ic.amplitude);
  std::unique_ptr<Expression> expression;
  if (ic.type == "expression") expression = std::make_unique<Expression>(ic.expression);
  for (std::size_t c = 0; c < centres.size(); ++c) {
    const auto& p = centres[c];
    if (ic.type == "box") {
      bool inside = true;
      for (int a = 0; a < dimension; ++a)
        inside = inside && p[a] >= ic.lower[a] && p[a] <= ic.upper[a];
      values[c] = inside ? ic.inside : ic.outside;
    } else if (ic.type == "sphere") {
      double r2 = 0;
      for (int a = 0; a < dimension; ++a)
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

void buildEquation(const Deck& deck, const Mesh<DeckSpace>& mesh,
                   const std::vector<std::array<double, 3>>& centres,
                   Equation<DeckSpace>& equation, const PhysicalSides& physical) {
  auto field = [&](const DeckCoefficient& c, const char* name) {
    return fieldOf(deck, c, mesh, centres, name);
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
      equation.diffusion(Real(deck.diffusion.value), deck.diffusionSign == "either"
                                                         ? DiffusionSign::Either
                                                         : DiffusionSign::NonNegative);
  }
  if (!deck.diffusionPolynomial.empty())
    equation.diffusion(polynomialOf(deck.diffusionPolynomial));
  if (deck.hasConvection)
    equation.convection(Real(deck.velocity[0]), Real(deck.velocity[1]),
                        Real(deck.velocity[2]), convectionSchemeFromName(deck.scheme));
  if (deck.hasExplicitConvection)
    equation.explicitConvection(
        Real(deck.explicitVelocity[0]), Real(deck.explicitVelocity[1]),
        Real(deck.explicitVelocity[2]),
        explicitConvectionSchemeFromName(deck.explicitScheme),
        explicitGradientBoundaryFromName(deck.explicitGradientBoundary));
  const ImplicitSourceForm sourceForm = deck.implicitSourceForm == "diagonal-only"
                                            ? ImplicitSourceForm::DiagonalOnly
                                            : ImplicitSourceForm::Matrix;
  if (deck.implicitSource.isExpression())
    equation.implicitSource(field(deck.implicitSource, "kfvm::deck::implicitSource"),
                            sourceForm);
  else if (deck.implicitSource.value != 0)
    equation.implicitSource(Real(deck.implicitSource.value), sourceForm);
  if (deck.hasExplicitDiffusion)
    equation.explicitDiffusion(Real(deck.explicitDiffusion),
                               deck.explicitDiffusionBoundary == "zero-flux"
                                   ? ExplicitDiffusionBoundary::ZeroFlux
                                   : ExplicitDiffusionBoundary::EquationConditions);
  if (deck.source.isExpression())
    equation.source(field(deck.source, "kfvm::deck::source"));
  else if (deck.source.value != 0)
    equation.source(Real(deck.source.value));
  if (!deck.sourcePolynomial.empty())
    equation.source(polynomialOf(deck.sourcePolynomial));
  if (deck.hasHigherOrder) {
    // One of the two given as an expression: both as fields, a number as its value in
    // every cell.
    auto cellsOf = [&](const DeckCoefficient& c, const char* name) {
      if (c.isExpression()) return field(c, name);
      CellField<DeckSpace> constant(mesh, name);
      constant.fromHost(std::vector<double>(std::size_t(mesh.numCells()), c.value));
      return constant;
    };
    if (deck.mobility.isExpression() || deck.kappa.isExpression())
      equation.higherOrderDiffusion(cellsOf(deck.mobility, "kfvm::deck::mobility"),
                                    cellsOf(deck.kappa, "kfvm::deck::kappa"),
                                    polynomialOf(deck.potential));
    else
      equation.higherOrderDiffusion(Real(deck.mobility.value), Real(deck.kappa.value),
                                    polynomialOf(deck.potential));
  }
  if (deck.diffusionCorrection == "over-relaxed")
    equation.diffusionCorrection(DiffusionCorrection::OverRelaxed,
                                 deck.correctionGradient == "gauss"
                                     ? CellGradient::Gauss
                                     : CellGradient::LeastSquares);
  for (const auto& spec : deck.boundaries) {
    if (!deck.isCartesian()) {
      requirePatch(deck, spec, mesh);
      if (spec.onPotential)
        equation.higherOrderBoundary(spec.patchName, conditionOf(spec));
      else
        equation.boundary(spec.patchName, conditionOf(spec));
      continue;
    }
    if (physical && !physical(spec.patch)) continue;  // faces another rank
    if (spec.onPotential)
      equation.higherOrderBoundary(spec.patch, conditionOf(spec));
    else
      equation.boundary(spec.patch, conditionOf(spec));
  }
}

static_assert(deckMaxVariables == maxCoupledVariables,
              "a coupled deck takes as many variables as a CoupledSystem");

void buildCoupledSystem(const Deck& deck, CoupledSystem<DeckSpace>& system,
                        const PhysicalSides& physical) {
  const Mesh<DeckSpace>& mesh = system.mesh();
  const auto centres = cellCentres(deck, mesh);
  const auto cells = [&](const DeckCoefficient& c, const char* name) {
    return fieldOf(deck, c, mesh, centres, name);
  };
  for (int e = 0; e < deck.numVariables(); ++e) {
    const CoupledEquationSpec& spec = deck.coupled.at(std::size_t(e));
    for (int v = 0; v < deck.numVariables(); ++v) {
      const auto& rho = spec.transient[std::size_t(v)];
      const auto& D = spec.diffusion[std::size_t(v)];
      const auto& c = spec.implicitSource[std::size_t(v)];
      if (rho.isExpression())
        system.transient(e, v, cells(rho, "kfvm::deck::coupled::rho"));
      else if (rho.value != 0)
        system.transient(e, v, Real(rho.value));
      if (D.isExpression())
        system.diffusion(e, v, faceFieldOf(deck, D, mesh, "kfvm::deck::coupled::D"));
      else if (D.value != 0)
        system.diffusion(e, v, Real(D.value));
      if (c.isExpression())
        system.implicitSource(e, v, cells(c, "kfvm::deck::coupled::c"));
      else if (c.value != 0)
        system.implicitSource(e, v, Real(c.value));
      if (!spec.sourcePolynomial[std::size_t(v)].empty())
        system.source(e, v, polynomialOf(spec.sourcePolynomial[std::size_t(v)]));
    }
    if (spec.source.isExpression())
      system.source(e, cells(spec.source, "kfvm::deck::coupled::s"));
    else if (spec.source.value != 0)
      system.source(e, Real(spec.source.value));
  }
  for (const auto& boundary : deck.boundaries) {
    if (!deck.isCartesian()) {
      requirePatch(deck, boundary, mesh);
      system.boundary(boundary.variable, boundary.patchName, conditionOf(boundary));
    } else if (!physical || physical(boundary.patch)) {
      system.boundary(boundary.variable, boundary.patch, conditionOf(boundary));
    }
  }
}

/// Bytes the run will hold on the device, from what kfvm allocates per cell: the mesh
/// (cell and face geometry and connectivity), the matrix (one row per cell and variable,
/// (1 + 2d) n entries for n coupled variables, 1 + 2d + 2d^2 with the fourth-order term;
/// more for ILU(0) factors), the fields and the solver's vectors (n entries per cell).
std::size_t estimateBytes(const Deck& deck) {
  const double n = deck.numVariables();
  const double cells = deck.numCells(), d = deck.dimension, real = sizeof(Real);
  // close enough: (n + 1) per axis line of a grid; a tetrahedron's 4 faces are shared
  // by two cells, a triangle's 3 (hexahedra and quadrilaterals as the grid)
  const double faces =
      deck.isCartesian() ? d * cells + cells : (d + 1) / 2 * cells + cells;
  const double mesh = cells * (real * 4 + 8 + 4 * 2 * d) + faces * (4 * 2 + real * 8);
  const double row = deck.hasHigherOrder ? 1 + 2 * d + 2 * d * d : 1 + 2 * d;
  const bool ilu = deck.solverParameters.getString("preconditioner", "jacobi") == "ilu0";
  const double matrix =
      n * n * cells * row * (real + 4) * (ilu ? 1.6 : 1) + n * cells * 8 * 2;
  int vectors = 8;  // phi, previous, rhs, diagonal, sweep work, nonlinear coefficients
  if (deck.solver == "gmres")
    vectors += deck.solverParameters.getInt("restart", 30) + 3;
  else
    vectors += 8;
  return std::size_t(mesh + matrix + n * cells * real * vectors);
}

std::string reportMemory(const Deck& deck, bool refuse) {
  const double needed = double(estimateBytes(deck));
  const auto info = systemInfo();
  const MemoryInfo* memory = nullptr;
  for (const auto& m : info.memories)
    if (m.backend == DeckSpace::name() || (!memory && m.where == "host")) memory = &m;
  char line[256];
  const int length =
      std::snprintf(line, sizeof(line), "memory estimate   %.3f GiB on %s",
                    needed / (1 << 30), memory ? memory->where.c_str() : "host");
  if (memory && memory->freeBytes > 0) {
    std::snprintf(line + length, sizeof(line) - std::size_t(length), " (%.3f GiB free)",
                  double(memory->freeBytes) / (1 << 30));
    require(!refuse || needed < 0.9 * double(memory->freeBytes), deck.path,
            ": the run needs about ", needed / (1 << 30), " GiB, more than 90% of the ",
            double(memory->freeBytes) / (1 << 30), " GiB free on ", memory->where);
  }
  return line;
}

}  // namespace kfvm::app
