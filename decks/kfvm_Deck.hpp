#ifndef KFVM_APPS_DECK_HPP
#define KFVM_APPS_DECK_HPP

// A run described in a TOML file (`kfvm run DECK`, `kfvm check DECK`). The keys, their
// types, ranges and defaults are listed in apps/decks/README.md; every deck in that
// folder is a working example. Parsing checks everything: an unknown key, a wrong type
// or a value out of range is a kfvm::Error naming the file, line, key and value.

#include <kfvm_AdaptiveOptions.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Parameters.hpp>
#include <kfvm_Patch.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace kfvm {
class MeshTopology;  // kfvm_MeshTopology.hpp (needs Kokkos; this header does not)
}

namespace kfvm::app {

/// The most variables a coupled deck takes: kfvm::maxCoupledVariables (kfvm_Types.hpp,
/// which needs Kokkos, not read by the deck reader's host-only files;
/// kfvm_DeckSetup.cpp checks that the two agree).
inline constexpr int deckMaxVariables = 4;

/// Where a value was given in the deck: its table, key and line, for errors found after
/// reading (deckError).
struct DeckKey {
  std::string table, key;
  int line = 0;
};

struct InitialCondition {
  std::string type = "constant";  // constant, box, sphere, random, expression, file
  double value = 0, inside = 1, outside = 0, radius = 0, mean = 0, amplitude = 0;
  std::array<double, 3> lower{}, upper{}, centre{};
  unsigned seed = 0;
  std::string expression;
  // type "file" (kfvm_InitialFile.hpp): the file, an HDF5 dataset or checkpoint
  // variable in it (empty: the variable's name), and where the deck names the file
  std::string file, dataset;
  DeckKey at;
};

/// A coefficient: a number, or an expression in x, y, z evaluated at every cell centre
/// (a per-cell field) and held to the same range [low, high] as a number.
struct DeckCoefficient {
  double value = 0;
  std::string expression;
  double low = 0, high = 0;
  DeckKey at;
  bool isExpression() const { return !expression.empty(); }
};

/// A variable and its initial condition ([variable], or one of several [[variable]]).
struct DeckVariable {
  std::string name = "phi";
  InitialCondition initial;
};

/// One equation of a coupled deck ([[equation]], one per variable): every coefficient
/// per variable, in [[variable]] order, 0 (or no polynomial) where the term does not act
/// on that variable (kfvm::CoupledSystem's terms): numbers, or expressions in x, y, z
/// (per cell; diffusion per face, at the face centres).
struct CoupledEquationSpec {
  std::vector<DeckCoefficient> transient, diffusion, implicitSource;
  std::vector<std::vector<double>> sourcePolynomial;
  DeckCoefficient source;
  /// True when term (one of the three vectors) acts on variable v.
  static bool acts(const std::vector<DeckCoefficient>& term, std::size_t v) {
    return term[v].isExpression() || term[v].value != 0;
  }
};

/// One entry of [time] schedule: `steps` steps by `scheme` (an implicit one,
/// backward-euler or crank-nicolson, or an explicit one, forward-euler or ssp-rk2).
struct SchemeStage {
  std::string scheme;
  long long steps = 0;  // as read: 0 for the entry that takes the steps the others leave
};

/// The explicit schemes a deck may name ([time] scheme, schedule).
bool isExplicitScheme(const std::string& scheme);

struct BoundarySpec {
  Patch patch = Patch::Left;  // on a Cartesian mesh
  std::string patchName;      // as given: a side, or a patch of a Gmsh mesh
  DeckKey patchAt;
  int variable = 0;          // index into Deck::variables
  bool onPotential = false;  // the higher-order term's mu rather than the variable
  std::string type;          // dirichlet, neumann, robin
  double a = 0, b = 0, value = 0;
  DeckKey at;
};

struct Deck {
  std::string path;
  // [mesh]: a uniform Cartesian box (cells, length), or a Gmsh mesh: file = "x.msh", or
  // geo = "x.geo" (a script Gmsh meshes on load), resolved against the deck's folder.
  // loadDeckMesh (kfvm_DeckSetup.hpp) reads a Gmsh mesh into topology; cells is then
  // {its cells, 1, 1} and dimension its dimension.
  int dimension = 1;
  std::array<int, 3> cells{1, 1, 1};
  std::array<double, 3> length{1, 1, 1};
  DeckKey cellsAt;
  std::string meshFile;
  bool meshIsScript = false;
  DeckKey meshFileAt;
  // [mesh] periodic = [["left", "right"], ...]: patch pairs of a Gmsh mesh joined into
  // one periodic boundary (MeshTopology::addPeriodicPair; across ranks too).
  std::vector<std::array<std::string, 2>> periodicPairs;
  DeckKey periodicAt;
  std::shared_ptr<const MeshTopology> topology;
  // [variable], or one [[variable]] per variable of a coupled deck
  std::vector<DeckVariable> variables{DeckVariable{}};
  // [[equation]]: a coupled deck (empty for a deck of one [equation])
  std::vector<CoupledEquationSpec> coupled;
  // [equation]; transient is also set when some [[equation]] has a transient term
  bool transient = false;
  DeckCoefficient rho{1, ""};
  bool hasDiffusion = false, hasConvection = false, hasHigherOrder = false;
  DeckCoefficient diffusion;
  std::string diffusionSign = "non-negative";  // or "either" (a number of either sign)
  std::vector<double> diffusionPolynomial;
  std::array<double, 3> velocity{};
  std::string scheme = "upwind";
  // [equation] diffusion_correction ("over-relaxed" or "none"; a Gmsh mesh's default is
  // over-relaxed, a Cartesian one needs none) and correction_gradient ("least-squares"
  // or "gauss"): Equation::diffusionCorrection
  std::string diffusionCorrection, correctionGradient = "least-squares";
  DeckCoefficient implicitSource, source;
  std::string implicitSourceForm = "matrix";  // or "diagonal-only" (FiPy's rule)
  bool hasExplicitDiffusion = false;
  double explicitDiffusion = 0;
  std::string explicitDiffusionBoundary = "conditions";  // or "zero-flux"
  bool hasExplicitConvection = false;  // FiPy's ExplicitUpwind / VanLeerConvectionTerm
  std::array<double, 3> explicitVelocity{};
  std::string explicitScheme = "upwind";                 // or "van-leer"
  std::string explicitGradientBoundary = "cell-values";  // or "dirichlet-values"
  std::vector<double> sourcePolynomial;
  DeckCoefficient mobility, kappa;  // [equation.higher_order]: numbers or expressions
  std::vector<double> potential{0};
  // [[boundary]]
  std::vector<BoundarySpec> boundaries;
  // [solver]
  std::string solver = "gmres";
  Parameters solverParameters;  // with [solver.parameters], passed through
  DeckKey solverAt;
  bool solverNamed = false;  // [solver] name given (else the default, defaultSolver)
  bool matrixFree = false;   // solves by the stencil (ImplicitStepper::setMatrixFree)
  DeckKey matrixFreeAt;
  int maxSweeps = 20;
  double sweepTolerance = 1e-8, relaxation = 1;
  // [time]
  bool steady = false;
  std::string timeScheme = "backward-euler";  // the first stage's with a schedule
  // [time] schedule: the schemes in turn, each for its number of steps (all known once
  // read: the run's step count is); empty when every step takes timeScheme
  std::vector<SchemeStage> schedule;
  double dt = 0, dtGrowth = 1, dtMax = 0, end = 0;
  int steps = 0;
  long long totalSteps = 0;  // the run's steps (steps, or those end takes); 0 if adaptive
  // [time] adaptive = { ... }: error-controlled steps (AdaptiveStepper) to `end`, dt the
  // first try and dt_max the largest step
  bool adaptive = false;
  AdaptiveOptions adaptiveOptions;
  // [output]
  std::string directory = "kfvm-output";
  int vtkEvery = 0, progressEvery = 10, pngEvery = 0, checkpointEvery = 0;
  bool vtk = true, csv = true, png = false;
  // [[output.probe]]: points whose cell values go to probes.csv every step
  std::vector<std::array<double, 3>> probes;
  // [parallel] ranks = [px, py, pz]: the process grid of an MPI run (0: chosen by
  // kfvm::Decomposition::balanced)
  std::array<int, 3> ranks{0, 0, 0};
  DeckKey ranksAt;
  // [check]
  bool hasCheck = false;
  int checkVariable = 0;
  std::string exact;
  double checkTolerance = 0;
  double integralDrift = -1;  // < 0: not checked

  long long numCells() const { return 1LL * cells[0] * cells[1] * cells[2]; }
  /// True for a uniform box; false for a Gmsh mesh ([mesh] file or geo).
  bool isCartesian() const { return meshFile.empty(); }
  /// The scheme of step `step` (from 1): timeScheme, or the schedule's.
  const std::string& schemeOf(long long step) const;
  /// True when some step is explicit.
  bool hasExplicitSteps() const;
  int numVariables() const { return int(variables.size()); }
  bool isCoupled() const { return !coupled.empty(); }
  /// The solver and its default parameters when [solver] names none: the direct solver
  /// for the fourth-order term and coupled systems where kfvm has one and the mesh is
  /// small enough (directSolverByDefault), GMRES with Jacobi otherwise (falling back to
  /// the direct solver where it does not converge, on one process), and across MPI
  /// ranks (acrossRanks true: the direct solver runs on one process).
  std::string defaultSolver(bool acrossRanks) const;
  /// The fourth-order term or a coupled system: Krylov methods may stall at large dt.
  bool isHardForKrylov() const { return hasHigherOrder || isCoupled(); }
  /// Across MPI ranks, a default direct solver gives way to GMRES with Jacobi.
  void defaultSolverAcrossRanks();
  /// The variables' names joined by '-': the stem of the VTK files and collection.
  std::string runName() const {
    std::string name;
    for (const auto& v : variables) name += (name.empty() ? "" : "-") + v.name;
    return name;
  }
};

/// Replaces a Cartesian deck's cells per direction (`kfvm run --cells`, a small run of a
/// large deck); a Gmsh mesh's deck refuses.
void setCellsPerDirection(Deck& deck, int cells);

/// Throws kfvm::Error as the deck's reader does: "FILE:LINE: [TABLE] KEY: message".
template <class... Parts>
[[noreturn]] void deckError(const Deck& deck, const DeckKey& at, const Parts&... parts) {
  fail(deck.path, ":", at.line, ": [", at.table, "] ", at.key, ": ", parts...);
}

/// "must be in [low, high]", or "must be >= low" where high is unbounded.
std::string rangeText(double low, double high);

/// The most steps a run may take ([time] steps, or end / dt).
constexpr long long maxSteps = 100000000;

/// A run's time steps, from [time]: dt growing by dt_growth up to dt_max, the last step
/// of an `end` run cut to end there. The run loop and the restart's check of a
/// checkpoint's time and dt both follow it, so that they agree bit for bit.
class TimeSchedule {
 public:
  explicit TimeSchedule(const Deck& deck);
  /// The schedule after `steps` steps from the start (time and dt a run has then).
  static TimeSchedule after(const Deck& deck, long long steps);
  /// True when the step numbered `step` (from 1) is past the run's end.
  bool finished(long long step) const;
  /// The dt of the next step.
  double stepDt() const;
  /// Takes the next step: time += stepDt(), then dt grows.
  void advance();
  double time() const { return time_; }
  double dt() const { return dt_; }

 private:
  const Deck* deck_;
  double time_ = 0, dt_ = 0;
};

/// Reads and checks a deck file; convectionSchemes are the scheme names a convection
/// term may take (convectionSchemeNames(): passed in, so that this file and the TOML
/// parser stay free of Kokkos and compile for the host alone).
Deck readDeck(const std::string& path, const std::vector<std::string>& convectionSchemes);

}  // namespace kfvm::app

#endif
