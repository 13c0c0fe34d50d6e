// The Trilinos adapter: the only kfvm source that includes Trilinos headers.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_TrilinosSolver.hpp>

#include <Amesos2.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <MueLu_CreateTpetraPreconditioner.hpp>
#include <Teuchos_DefaultComm.hpp>
#ifdef HAVE_TEUCHOS_MPI
#include <Teuchos_DefaultMpiComm.hpp>
#endif
#include <Teuchos_XMLParameterListHelpers.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_MultiVector.hpp>

#include <cstdlib>
#include <map>
#include <type_traits>
#include <utility>

namespace kfvm {

namespace Details {

using TpetraMap = Tpetra::Map<>;
using TpetraNode = TpetraMap::node_type;
using TpetraScalar = double;
using TpetraMatrix = Tpetra::CrsMatrix<TpetraScalar>;
using TpetraVectors = Tpetra::MultiVector<TpetraScalar>;
using TpetraOperator = Tpetra::Operator<TpetraScalar>;
using TpetraRowMatrix = Tpetra::RowMatrix<TpetraScalar>;
using TpetraSpace = TpetraNode::execution_space;

/// kfvm solver name -> Belos solver-manager name ("" for the direct solver).
const std::map<std::string, std::string>& belosNames() {
  static const std::map<std::string, std::string> names = {
      {"belos:cg", "PSEUDOBLOCK CG"},
      {"belos:gmres", "PSEUDOBLOCK GMRES"},
      {"belos:bicgstab", "BICGSTAB"},
      {"belos:tfqmr", "TFQMR"},
      {"amesos2:klu2", ""}};
  return names;
}

/// Sets name = value in list, typed as bool, int, double or string (first that fits).
void setTyped(Teuchos::ParameterList& list, const std::string& name,
              const std::string& value) {
  if (value == "true" || value == "false") {
    list.set(name, value == "true");
    return;
  }
  char* end = nullptr;
  const long asInt = std::strtol(value.c_str(), &end, 10);
  if (!value.empty() && *end == '\0') {
    list.set(name, static_cast<int>(asInt));
    return;
  }
  const double asDouble = std::strtod(value.c_str(), &end);
  if (!value.empty() && *end == '\0') {
    list.set(name, asDouble);
    return;
  }
  list.set(name, value);
}

/// MPI_COMM_WORLD: each process owns its own rows. Trilinos (MueLu among others) calls
/// MPI even on one process, so a program that never started MPI gets it started here
/// (a singleton run) and finalized at exit.
Teuchos::RCP<const Teuchos::Comm<int>> defaultComm() {
#ifdef HAVE_TEUCHOS_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  }
#endif
  return Teuchos::DefaultComm<int>::getComm();
}

/// Runs f, turning any Trilinos exception into a kfvm::Error that carries its message.
template <class Function>
auto translateErrors(const std::string& context, Function&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const kfvm::Error&) {
    throw;
  } catch (const std::exception& error) {
    fail("Trilinos error in ", context, ": ", error.what());
  }
}

/// Wraps a kfvm vector as a one-column Tpetra MultiVector without copying.
template <class ExecSpace>
Teuchos::RCP<TpetraVectors> wrap(const Teuchos::RCP<const TpetraMap>& map,
                                 const Vector<ExecSpace>& v) {
  using DeviceView = typename TpetraVectors::dual_view_type::t_dev;
  DeviceView view(v.data(), v.extent(0), 1);
  return Teuchos::rcp(new TpetraVectors(map, view));
}

template <class ExecSpace>
class TrilinosSolver final : public LinearSolver<ExecSpace> {
 public:
  TrilinosSolver(const std::string& name, const Parameters& parameters)
      : LinearSolver<ExecSpace>(name, parameters, preconditionersFor(name)),
        belosName_(belosNames().at(name)),
        reuse_(parameters.getString("preconditioner_reuse", "none")) {
    comm_ = defaultComm();
    initialize(parameters);
  }

  /// The rows this rank of comm owns, with global row and column ids.
  TrilinosSolver(const std::string& name, const Parameters& parameters, MPI_Comm comm,
                 std::vector<long long> rowIds, std::vector<long long> columnIds)
      : LinearSolver<ExecSpace>(name, parameters, preconditionersFor(name)),
        belosName_(belosNames().at(name)),
        reuse_(parameters.getString("preconditioner_reuse", "none")),
        distributed_(true),
        rowIds_(std::move(rowIds)),
        columnIds_(std::move(columnIds)) {
#ifdef HAVE_TEUCHOS_MPI
    comm_ = Teuchos::rcp(new Teuchos::MpiComm<int>(comm));
#else
    (void)comm;
    fail("solver '", name, "': this Trilinos is built without MPI");
#endif
    initialize(parameters);
  }

 private:
  bool takesGhostColumns() const override {
    return distributed_;
  }

  void initialize(const Parameters& parameters) {
    require(reuse_ == "none" || reuse_ == "RP" || reuse_ == "full",
            "preconditioner_reuse must be none, RP or full, got '", reuse_, "'");
    const std::string& prec = this->preconditionerName();
    require(reuse_ != "RP" || prec == "muelu",
            "preconditioner_reuse 'RP' needs preconditioner 'muelu', not '", prec, "'");
    buildParameterLists(parameters);
    createBelos();
  }

  void createBelos() {
    if (!belosName_.empty()) {
      translateErrors("Belos setup of '" + this->name() + "'", [&] {
        Belos::SolverFactory<TpetraScalar, TpetraVectors, TpetraOperator> factory;
        belos_ = factory.create(belosName_, Teuchos::null);
        // Unknown parameter names are errors now, before any solve.
        belosParameters_->validateParameters(*belos_->getValidParameters(), 0);
        // kfvm's convergence test: residual relative to ||b||.
        const auto valid = belos_->getValidParameters();
        const std::pair<const char*, const char*> defaults[] = {
            {"Implicit Residual Scaling", "Norm of RHS"},
            {"Explicit Residual Scaling", "Norm of RHS"}};
        for (const auto& [key, value] : defaults) {
          if (valid->isParameter(key) && !belosParameters_->isParameter(key)) {
            belosParameters_->set(key, std::string(value));
          }
        }
        belos_->setParameters(belosParameters_);
        belosMaxIterations_ = belosParameters_->get<int>("Maximum Iterations");
        return 0;
      });
    }
  }

  static std::vector<std::string> preconditionersFor(const std::string& name) {
    if (name == "amesos2:klu2") return {"none"};
    std::vector<std::string> list = {"ifpack2:relaxation", "ifpack2:ilut",
                                     "ifpack2:chebyshev", "muelu", "none"};
    if (name == "belos:cg") std::swap(list[0], list[3]);  // muelu first: the default
    return list;
  }

  void buildParameterLists(const Parameters& parameters) {
    // Keys that apply to this solver and preconditioner; any other is an error.
    const std::string& prec = this->preconditionerName();
    std::set<std::string> known = {"tolerance", "max_iterations", "preconditioner",
                                   "preconditioner_reuse", "xml"};
    if (belosName_ == "PSEUDOBLOCK GMRES") known.insert("restart");
    if (prec == "ifpack2:relaxation") known.insert({"relaxation", "sweeps", "damping"});
    if (prec == "ifpack2:ilut") known.insert({"ilut_fill", "ilut_drop"});
    if (prec == "ifpack2:chebyshev") known.insert("chebyshev_degree");
    std::map<std::string, Teuchos::RCP<Teuchos::ParameterList>> lists = {
        {"belos", belosParameters_},
        {"muelu", mueluParameters_},
        {"ifpack2", ifpack2Parameters_},
        {"amesos2", amesos2Parameters_}};
    Parameters plain;
    for (const auto& [key, value] : parameters.entries()) {
      const auto dot = key.find('.');
      if (dot != std::string::npos && lists.count(key.substr(0, dot))) {
        setTyped(*lists[key.substr(0, dot)], key.substr(dot + 1), value);
      } else {
        plain.set(key, value);
      }
    }
    plain.requireKnown(
        known, "solver '" + this->name() + "' with preconditioner '" + prec + "'");

    if (!belosName_.empty()) {
      belosParameters_->set("Convergence Tolerance", this->tolerance());
      belosParameters_->set("Maximum Iterations", this->maxIterations());
      if (belosName_ == "PSEUDOBLOCK GMRES") {
        const int restart = parameters.getInt("restart", 30);
        require(restart > 0, "restart must be positive, got ", restart);
        belosParameters_->set("Num Blocks", restart);
      }
    }
    if (prec == "muelu") {
      mueluParameters_->set("verbosity", "none");
      if (reuse_ == "RP") mueluParameters_->set("reuse: type", "RP");
    } else if (prec == "ifpack2:relaxation") {
      const std::string type = parameters.getString("relaxation", "Jacobi");
      require(
          type == "Jacobi" || type == "Gauss-Seidel" || type == "Symmetric Gauss-Seidel",
          "relaxation must be Jacobi, Gauss-Seidel or Symmetric Gauss-Seidel, got '",
          type, "'");
      ifpack2Parameters_->set("relaxation: type", type);
      ifpack2Parameters_->set("relaxation: sweeps", parameters.getInt("sweeps", 1));
      ifpack2Parameters_->set("relaxation: damping factor",
                              parameters.getDouble("damping", 1.0));
    } else if (prec == "ifpack2:ilut") {
      ifpack2Parameters_->set("fact: ilut level-of-fill",
                              parameters.getDouble("ilut_fill", 1.0));
      ifpack2Parameters_->set("fact: drop tolerance",
                              parameters.getDouble("ilut_drop", 0.0));
    } else if (prec == "ifpack2:chebyshev") {
      ifpack2Parameters_->set("chebyshev: degree",
                              parameters.getInt("chebyshev_degree", 2));
    }
    if (parameters.has("xml")) mergeXml(parameters.getString("xml", ""), lists);
    // MueLu's default coarse solver is Amesos2's KLU2, which gave wrong answers with
    // Debian's Trilinos 13.2 on more than one rank (CG with MueLu then stalled at 2
    // ranks in TrilinosMpi.BelosWithMueLuOrIfpack2...): there the coarse level is
    // smoothed instead, with symmetric Gauss-Seidel (symmetric, so CG still applies),
    // unless "muelu.coarse: type" says otherwise.
    if (prec == "muelu" && comm_->getSize() > 1 &&
        !mueluParameters_->isParameter("coarse: type")) {
      mueluParameters_->set("coarse: type", "RELAXATION");
      auto& coarse = mueluParameters_->sublist("coarse: params");
      if (!coarse.isParameter("relaxation: type"))
        coarse.set("relaxation: type", "Symmetric Gauss-Seidel");
      if (!coarse.isParameter("relaxation: sweeps")) coarse.set("relaxation: sweeps", 4);
    }
  }

  void mergeXml(const std::string& path,
                std::map<std::string, Teuchos::RCP<Teuchos::ParameterList>>& lists) {
    auto fromFile = translateErrors("reading XML parameter file '" + path + "'", [&] {
      return Teuchos::getParametersFromXmlFile(path);
    });
    for (auto it = fromFile->begin(); it != fromFile->end(); ++it) {
      const std::string& key = fromFile->name(it);
      require(lists.count(key) && fromFile->isSublist(key), "XML parameter file '", path,
              "': unknown entry '", key,
              "' (expected sublists belos, muelu, ifpack2, amesos2)");
      lists[key]->setParameters(fromFile->sublist(key));
    }
  }

  void setupImpl(Ordinal n) override {
    residual_ = Vector<ExecSpace>("kfvm::TrilinosSolver::residual", n);
  }

  void updateImpl(bool structureChanged) override {
    translateErrors("setup of '" + this->name() + "'", [&] {
      if (structureChanged || matrix_.is_null()) {
        buildMatrix();
        buildPreconditionerOrFactorization();
      } else {
        refreshPreconditionerOrFactorization();
      }
      return 0;
    });
  }

  void buildMatrix() {
    const auto& A = this->matrix();
    const Ordinal rows = A.numRows();
    typename TpetraMatrix::local_matrix_device_type local(
        "kfvm::TrilinosSolver::matrix", rows, A.numColumns(), A.numEntries(), A.values(),
        A.rowOffsets(), A.columns());
    if (!distributed_) {
      // Rows owned by this process, square; global ids follow from the sizes on every
      // process.
      map_ = Teuchos::rcp(
          new TpetraMap(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                        static_cast<size_t>(rows), 0, comm_));
      matrix_ = Teuchos::rcp(new TpetraMatrix(map_, map_, local));
      return;
    }
    require(rowIds_.size() == std::size_t(rows) &&
                columnIds_.size() == std::size_t(A.numColumns()),
            "solver '", this->name(), "': the matrix is ", rows, " x ", A.numColumns(),
            " but ", rowIds_.size(), " row ids and ", columnIds_.size(),
            " column ids were given");
    using GlobalId = TpetraMap::global_ordinal_type;
    const auto mapOf = [&](const std::vector<long long>& ids) {
      const std::vector<GlobalId> global(ids.begin(), ids.end());
      return Teuchos::rcp(new TpetraMap(
          Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
          Teuchos::ArrayView<const GlobalId>(global.data(), global.size()), 0, comm_));
    };
    map_ = mapOf(rowIds_);  // row, domain and range map: every row owned once
    const auto columnMap = mapOf(columnIds_);
    matrix_ = Teuchos::rcp(new TpetraMatrix(local, map_, columnMap, map_, map_));
  }

  /// ||b - A x|| over every rank, with Tpetra's product and norm.
  double globalResidual(const TpetraVectors& B, const TpetraVectors& X) {
    auto R = wrap<ExecSpace>(map_, residual_);
    matrix_->apply(X, *R);
    R->update(1.0, B, -1.0);
    return globalNorm(*R);
  }

  static double globalNorm(const TpetraVectors& V) {
    Teuchos::Array<typename TpetraVectors::mag_type> norm(1);
    V.norm2(norm());
    return double(norm[0]);
  }

  void buildPreconditionerOrFactorization() {
    const std::string& prec = this->preconditionerName();
    preconditioner_ = Teuchos::null;
    ifpack2_ = Teuchos::null;
    if (belosName_.empty()) {
      // Measured: with Debian's Trilinos 13.2 on 2 MPI ranks KLU2 returned wrong answers
      // for kfvm's matrices while Belos on the same Tpetra objects was right; until that
      // is understood the direct solver is refused on more than one process.
      require(comm_->getSize() == 1, "amesos2:klu2 runs on one MPI process only, not ",
              comm_->getSize(), "; use a belos: solver");
      amesos2_ = Amesos2::create<TpetraMatrix, TpetraVectors>("KLU2", matrix_);
      amesos2_->setParameters(amesos2Parameters_);
      amesos2_->symbolicFactorization().numericFactorization();
      return;
    }
    if (prec == "muelu") {
      Teuchos::RCP<TpetraOperator> op = matrix_;
      mueluList_ = Teuchos::rcp(new Teuchos::ParameterList(*mueluParameters_));
      muelu_ = MueLu::CreateTpetraPreconditioner(op, *mueluList_);
      preconditioner_ = muelu_;
    } else if (prec != "none") {
      const std::string type = prec == "ifpack2:relaxation" ? "RELAXATION"
                               : prec == "ifpack2:ilut"     ? "ILUT"
                                                            : "CHEBYSHEV";
      Teuchos::RCP<const TpetraRowMatrix> rowMatrix = matrix_;
      ifpack2_ = Ifpack2::Factory::create<TpetraRowMatrix>(type, rowMatrix);
      ifpack2_->setParameters(*ifpack2Parameters_);
      ifpack2_->initialize();
      ifpack2_->compute();
      preconditioner_ = ifpack2_;
    }
  }

  void refreshPreconditionerOrFactorization() {
    if (belosName_.empty()) {
      amesos2_->numericFactorization();
      return;
    }
    if (reuse_ == "full") return;
    if (!muelu_.is_null()) {
      if (reuse_ == "RP") {
        MueLu::ReuseTpetraPreconditioner(matrix_, *muelu_);
      } else {
        buildPreconditionerOrFactorization();
      }
    } else if (!ifpack2_.is_null()) {
      ifpack2_->compute();
    }
  }

  SolverReport solveImpl(const Vector<ExecSpace>& b,
                         const Vector<ExecSpace>& x) override {
    auto X = wrap<ExecSpace>(map_, x);
    auto B = wrap<ExecSpace>(map_, b);
    // Distributed rows: norms over every rank. Otherwise kfvm's own kernels (each
    // process's rows are its own system, as in a block-diagonal global matrix).
    const auto residualNow = [&] {
      return distributed_ ? globalResidual(*B, *X) : this->residual(b, x, residual_);
    };
    const double normB = distributed_ ? globalNorm(*B) : Blas::norm2(b);
    const double initial = residualNow();
    const double target = this->target(normB, initial);
    SolverReport report;
    report.solver = this->name();
    report.initialResidual = initial;
    if (belosName_.empty()) {
      translateErrors("Amesos2 KLU2 solve", [&] {
        amesos2_->solve(X.ptr(), B.ptr());
        return 0;
      });
      Kokkos::fence();
      report.finalResidual = residualNow();
      report.converged = std::isfinite(report.finalResidual);
      report.reason = Details::concatenate("direct solve (Amesos2 KLU2), residual ",
                                           report.finalResidual);
      return report;
    }
    if (initial <= target) {
      return finishReport(this->name(), 0, initial, initial, target, false);
    }
    const auto result = translateErrors("Belos solve of '" + this->name() + "'", [&] {
      auto problem = Teuchos::rcp(
          new Belos::LinearProblem<TpetraScalar, TpetraVectors, TpetraOperator>(matrix_,
                                                                                X, B));
      if (!preconditioner_.is_null()) problem->setRightPrec(preconditioner_);
      problem->setProblem();
      belos_->setProblem(problem);
      return belos_->solve();
    });
    Kokkos::fence();
    report.iterations = belos_->getNumIters();
    report.finalResidual = residualNow();
    // Belos judges by its own (implicit) residual; kfvm reports the true one and agrees
    // with Belos only when that true residual also meets kfvm's target within 10%.
    const bool belosConverged = result == Belos::Converged;
    report.converged = belosConverged && report.finalResidual <= 1.1 * target;
    if (report.converged) {
      report.reason =
          Details::concatenate("converged (Belos ", belosName_, "): residual ",
                               report.finalResidual, " <= target ", target);
    } else if (!belosConverged && report.iterations >= belosMaxIterations_) {
      report.reason = Details::concatenate(
          "not converged: iteration limit ", report.iterations, " reached (Belos ",
          belosName_, "), residual ", report.finalResidual);
    } else {
      report.reason = Details::concatenate(
          "not converged: Belos ", belosName_, " stopped after ", report.iterations,
          " iterations (",
          belosConverged ? "its implicit residual converged" : "unconverged",
          "), true residual ", report.finalResidual, " vs target ", target);
    }
    return report;
  }

  std::string belosName_;
  std::string reuse_;
  bool distributed_ = false;  // rows with global ids (rowIds_, columnIds_) over comm_
  std::vector<long long> rowIds_, columnIds_;
  int belosMaxIterations_ = 0;
  Teuchos::RCP<const Teuchos::Comm<int>> comm_;
  Teuchos::RCP<Teuchos::ParameterList> belosParameters_ = Teuchos::parameterList("belos");
  Teuchos::RCP<Teuchos::ParameterList> mueluParameters_ = Teuchos::parameterList("muelu");
  Teuchos::RCP<Teuchos::ParameterList> ifpack2Parameters_ =
      Teuchos::parameterList("ifpack2");
  Teuchos::RCP<Teuchos::ParameterList> amesos2Parameters_ =
      Teuchos::parameterList("amesos2");
  Teuchos::RCP<Teuchos::ParameterList> mueluList_;
  Teuchos::RCP<const TpetraMap> map_;
  Teuchos::RCP<TpetraMatrix> matrix_;
  Teuchos::RCP<TpetraOperator> preconditioner_;
  Teuchos::RCP<MueLu::TpetraOperator<TpetraScalar>> muelu_;
  Teuchos::RCP<Ifpack2::Preconditioner<TpetraScalar>> ifpack2_;
  Teuchos::RCP<Amesos2::Solver<TpetraMatrix, TpetraVectors>> amesos2_;
  Teuchos::RCP<Belos::SolverManager<TpetraScalar, TpetraVectors, TpetraOperator>> belos_;
  Vector<ExecSpace> residual_;
};

}  // namespace Details

std::vector<std::string> trilinosSolverNames() {
  std::vector<std::string> names;
  for (const auto& entry : Details::belosNames()) names.push_back(entry.first);
  return names;
}

bool isTrilinosSolverName(const std::string& name) {
  return Details::belosNames().count(name) > 0;
}

namespace Details {

/// A TrilinosSolver made with args, where this Trilinos runs on ExecSpace's memory with
/// kfvm's real type; an error naming both otherwise.
template <class ExecSpace, class... Args>
std::unique_ptr<LinearSolver<ExecSpace>> makeTrilinosSolverWith(const std::string& name,
                                                                Args&&... args) {
  require(isTrilinosSolverName(name), "unknown Trilinos solver '", name, "'");
  using Device = typename TpetraVectors::device_type;
  if constexpr (std::is_same<typename ExecSpace::memory_space,
                             typename Device::memory_space>::value &&
                std::is_same<Real, TpetraScalar>::value) {
    return std::make_unique<TrilinosSolver<ExecSpace>>(name, std::forward<Args>(args)...);
  } else {
    ((void)args, ...);
    fail("solver '", name, "': this Trilinos is built for ",
         Device::execution_space::name(), " with double, not for ", ExecSpace::name(),
         " with kfvm's real type");
  }
}

}  // namespace Details

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeTrilinosSolver(
    const std::string& name, const Parameters& parameters) {
  return Details::makeTrilinosSolverWith<ExecSpace>(name, parameters);
}

template <class ExecSpace>
std::unique_ptr<LinearSolver<ExecSpace>> makeTrilinosSolver(
    const std::string& name, const Parameters& parameters, MPI_Comm comm,
    std::vector<long long> rowIds, std::vector<long long> columnIds) {
  return Details::makeTrilinosSolverWith<ExecSpace>(
      name, parameters, comm, std::move(rowIds), std::move(columnIds));
}

#define KFVM_INSTANTIATE_TRILINOS(Space)                                       \
  template std::unique_ptr<LinearSolver<Space>> makeTrilinosSolver<Space>(     \
      const std::string&, const Parameters&);                                  \
  template std::unique_ptr<LinearSolver<Space>> makeTrilinosSolver<Space>(     \
      const std::string&, const Parameters&, MPI_Comm, std::vector<long long>, \
      std::vector<long long>);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_TRILINOS)

}  // namespace kfvm
