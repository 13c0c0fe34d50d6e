// "mg": geometric multigrid on the structured grid of an Assembler's equation, as a
// preconditioner (one cycle per apply; the V- and W-cycles are fixed symmetric operators,
// usable inside CG). Levels: GridLevel's face form of the operator itself, then its
// rediscretized coarser grids down to `mg_coarse_cells` cells or fewer, linked by
// GridTransfer (linear interpolation and its transpose). Each level is smoothed by a
// Jacobi-preconditioned Chebyshev polynomial, each step one fused kernel of the level
// (LevelSweeps::chebyshevStep: the product, the residual and the update), or by red-black
// Gauss-Seidel; the polynomial's interval is [bound / 30, bound] with the level's
// Gershgorin bound of D^-1 A by default (one reduction a level at setup, no dot product)
// or a Lanczos estimate. From a zero guess on one process, the first two steps are one
// pass over b (LevelSweeps::chebyshevStart) and the third computes the first iterate
// instead of reading it. The coarsest level is solved directly (CoarseSolve: the dense
// inverse, one kernel) when it is small enough, else by a Chebyshev polynomial of degree
// `mg_coarse_degree` over [bound / 1000, bound]. Convection enters every level by its
// symmetric part (GridLevel's face form). One cycle allocates nothing and, on one
// process, never waits for the host.
//
// Across MPI ranks (an operator with a GridDistribution: DistributedSystem's) every rank
// coarsens its block of the grid: a level is the rank's block of the global level with
// one layer of ghost cells (GridLevel's Placement), its split the halves of the finer
// split along the axes merged. An axis is merged only while every block starts at an
// even cell, so that a coarse cell's children have one owner; when no axis can be, the
// hierarchy stops. Ghost cells are exchanged before every read of a neighbour (each
// smoothing step, the residual, the restriction and the prolongation: one exchange each),
// the Chebyshev bounds are the maxima over the ranks, and the coarsest level is
// gathered: each rank's owned rows of its dense matrix and, every cycle, its right-hand
// side go to every rank, which solves the whole coarsest level (CoarseSolve) and keeps
// its own cells; a coarsest level of more than CoarseSolve::maxCells cells is smoothed
// instead. The cycle is the one-process cycle of the same hierarchy. Around a periodic
// axis of the split the blocks wrap: their ghosts beyond an end are the other end's
// cells on every level (GridLevel's Placement::wrapped), and the axis merges while its
// count is 2 or a multiple of 4, as on one process.
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CoarseSolve.hpp>
#include <kfvm_DistributedLevels.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_GridDistribution.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_GridTransfer.hpp>
#include <kfvm_LevelSweeps.hpp>

#include "../preconditioners/detail/kfvm_PreconditionerMakers.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <memory>
#include <vector>

namespace kfvm::Details {

template <class ExecSpace>
class Multigrid final : public Preconditioner<ExecSpace> {
  enum class Cycle { V, W, F };
  enum class Estimate { Gershgorin, Setup, Structure };
  enum class Smoother { Chebyshev, GaussSeidel };

 public:
  explicit Multigrid(const Parameters& parameters)
      : Preconditioner<ExecSpace>("mg"),
        parameters_(parameters),
        degree_(parameters.getInt("mg_degree", 4)),
        sweepCount_(parameters.getInt("mg_sweeps", 1)),
        coarseCells_(parameters.getInt("mg_coarse_cells", 64)),
        coarseDegree_(parameters.getInt("mg_coarse_degree", 16)),
        maxLevels_(parameters.getInt("mg_levels", 30)) {
    require(degree_ >= 1 && degree_ <= 16, "mg_degree must be in [1, 16], got ", degree_);
    require(sweepCount_ >= 1 && sweepCount_ <= 16, "mg_sweeps must be in [1, 16], got ",
            sweepCount_);
    require(coarseCells_ >= 1 && coarseCells_ <= CoarseSolve<ExecSpace>::maxCells,
            "mg_coarse_cells must be in [1, ", CoarseSolve<ExecSpace>::maxCells,
            "], got ", coarseCells_);
    require(coarseDegree_ >= 1 && coarseDegree_ <= 64,
            "mg_coarse_degree must be in [1, 64], got ", coarseDegree_);
    require(maxLevels_ >= 1 && maxLevels_ <= 30, "mg_levels must be in [1, 30], got ",
            maxLevels_);
    const std::string cycle = parameters.getString("mg_cycle", "v");
    require(cycle == "v" || cycle == "w" || cycle == "f",
            "mg_cycle must be 'v', 'w' or 'f', got '", cycle, "'");
    cycle_ = cycle == "v" ? Cycle::V : cycle == "w" ? Cycle::W : Cycle::F;
    const std::string smoother = parameters.getString("mg_smoother", "chebyshev");
    require(smoother == "chebyshev" || smoother == "gauss-seidel",
            "mg_smoother must be 'chebyshev' or 'gauss-seidel', got '", smoother, "'");
    smoother_ = smoother == "chebyshev" ? Smoother::Chebyshev : Smoother::GaussSeidel;
    loop_ = parameters.getString("mg_sweep_loop", "auto");
    require(loop_ == "auto" || loop_ == "cells" || loop_ == "columns",
            "mg_sweep_loop must be 'auto', 'cells' or 'columns', got '", loop_, "'");
    const std::string estimate = parameters.getString("mg_estimate", "gershgorin");
    require(estimate == "gershgorin" || estimate == "setup" || estimate == "structure",
            "mg_estimate must be 'gershgorin', 'setup' or 'structure', got '", estimate,
            "'");
    estimate_ = estimate == "gershgorin" ? Estimate::Gershgorin
                : estimate == "setup"    ? Estimate::Setup
                                         : Estimate::Structure;
  }

  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    if (coupled_) {
      coupled_->apply(r, z);
      return;
    }
    if (cycle_ == Cycle::F)
      fullCycle(r, z);
    else
      cycle(0, r, z, true, cycle_);
    this->op().space().zeroGhosts(z);
  }

  /// The number of levels, the operator's own included.
  int levels() const { return int(grids_.size()); }

 private:
  /// out = one cycle of kind (V or W) on level from x = 0 (zeroGuess) or from x = out.
  void cycle(int level, const Vector<ExecSpace>& b, const Vector<ExecSpace>& out,
             bool zeroGuess, Cycle kind) const {
    if (level + 1 == levels()) {
      solveCoarsest(b, out, zeroGuess);
      return;
    }
    // Gauss-Seidel works in out itself; Chebyshev in the level's scratch vectors.
    const bool gaussSeidel = smoother_ == Smoother::GaussSeidel;
    if (gaussSeidel) redBlack(level, b, out, zeroGuess, true);
    Vector<ExecSpace> x = gaussSeidel
                              ? out
                              : smooth(level, b, zeroGuess ? Vector<ExecSpace>() : out,
                                       nullptr, degree_, 30);
    const int visits = kind == Cycle::W && level + 2 < levels() ? 2 : 1;
    for (int v = 0; v < visits; ++v) {
      exchange(level, x);
      sweeps_[level]->residual(b, x, residuals_[level]);
      exchange(level, residuals_[level]);
      transfers_[level]->restrict(residuals_[level], rhs_[level + 1]);
      cycle(level + 1, rhs_[level + 1], solutions_[level + 1], true, kind);
      exchange(level + 1, solutions_[level + 1]);
      transfers_[level]->prolongAdd(solutions_[level + 1], x);
    }
    if (gaussSeidel)
      redBlack(level, b, out, false, false);
    else
      smooth(level, b, x, &out, degree_, 30);
  }

  /// mg_sweeps red-black Gauss-Seidel sweeps on level, in place in x (from 0 when
  /// fromZero): red then black forward, black then red backward, so that a V-cycle with
  /// forward pre- and backward post-smoothing is symmetric.
  void redBlack(int level, const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                bool fromZero, bool forward) const {
    for (int s = 0; s < sweepCount_; ++s)
      for (int half = 0; half < 2; ++half) {
        const bool zero = fromZero && s == 0 && half == 0;
        if (!zero) exchange(level, x);
        sweeps_[level]->gaussSeidel(b, x, forward ? half : 1 - half, zero);
      }
  }

  /// Full multigrid: b restricted to every level, the coarsest solved, then on each finer
  /// level the interpolated coarse answer improved by one V-cycle.
  void fullCycle(const Vector<ExecSpace>& b, const Vector<ExecSpace>& z) const {
    const int last = levels() - 1;
    const auto rhs = [&](int l) -> const Vector<ExecSpace>& {
      return l == 0 ? b : rhs_[l];
    };
    const auto solution = [&](int l) -> const Vector<ExecSpace>& {
      return l == 0 ? z : solutions_[l];
    };
    for (int l = 0; l < last; ++l) {
      // Across ranks the restriction reads ghosts: b's copy, not b, is exchanged.
      if (l == 0 && distribution_ != nullptr) Blas::copy(b, residuals_[0]);
      const Vector<ExecSpace>& fine =
          l == 0 && distribution_ != nullptr ? residuals_[0] : rhs(l);
      exchange(l, fine);
      transfers_[l]->restrict(fine, rhs_[l + 1]);
    }
    solveCoarsest(rhs(last), solution(last), true);
    for (int l = last - 1; l >= 0; --l) {
      Blas::fill(solution(l), Real(0));
      exchange(l + 1, solutions_[l + 1]);
      transfers_[l]->prolongAdd(solutions_[l + 1], solution(l));
      cycle(l, rhs(l), solution(l), false, Cycle::V);
    }
  }

  void solveCoarsest(const Vector<ExecSpace>& b, const Vector<ExecSpace>& out,
                     bool zeroGuess) const {
    if (coarse_) {
      coarse_->apply(b, out);
      return;
    }
    if (gathered_) {
      gathered_->apply(b, out);
      return;
    }
    smooth(levels() - 1, b, zeroGuess ? Vector<ExecSpace>() : out, &out, coarseDegree_,
           1000);
  }

  /// A Chebyshev-Jacobi polynomial of degree degree (mg_sweeps of them, each restarted)
  /// on level, from x (or 0 when x is empty) over [bound / ratio, bound], in its
  /// three-term form (LevelSweeps::chebyshevStep). Steps write into the level's two
  /// scratch vectors (over the step before last, in place), the last into *out when
  /// given; returns where the result is.
  Vector<ExecSpace> smooth(int level, const Vector<ExecSpace>& b, Vector<ExecSpace> x,
                           const Vector<ExecSpace>* out, int degree, double ratio) const {
    const auto& sweeps = *sweeps_[level];
    const auto& scratch = scratch_[level];
    const double largest = bounds_[level], smallest = largest / ratio;
    const double theta = 0.5 * (largest + smallest), delta = 0.5 * (largest - smallest);
    const double sigma = theta / delta;
    const int steps = degree * sweepCount_;
    int step = 0;
    Vector<ExecSpace> previous;  // empty: 0 (x started from 0) or not read
    const auto target = [&]() -> Vector<ExecSpace> {
      ++step;
      if (step == steps && out != nullptr && out->data() != x.data()) return *out;
      if (previous.data() == scratch[0].data() || previous.data() == scratch[1].data())
        return previous;
      return x.data() == scratch[0].data() ? scratch[1] : scratch[0];
    };
    for (int s = 0; s < sweepCount_; ++s) {
      double rhoOld = 1 / sigma;
      int k = 1;
      // Not 0: the previous iterate is startScale D^-1 b, computed instead of stored.
      double startScale = 0;
      if (x.data() == nullptr && degree >= 2 && distribution_ == nullptr) {
        // From 0 on one process: the first two steps in one pass over b.
        const double rho = 1 / (2 * sigma - rhoOld);
        ++step;
        const Vector<ExecSpace> next = target();
        sweeps.chebyshevStart(b, next, Real(1 / theta), Real(rho * rhoOld),
                              Real(2 * rho / delta));
        startScale = 1 / theta;
        x = next;
        rhoOld = rho;
        k = 2;
      } else {
        const Vector<ExecSpace> next = target();
        if (x.data() == nullptr) {
          sweeps.scaledJacobi(b, next, Real(1 / theta));
        } else {
          exchange(level, x);
          sweeps.chebyshevStep(b, x, Vector<ExecSpace>(), next, Real(0), Real(1 / theta));
        }
        previous = x;
        x = next;
      }
      for (; k < degree; ++k) {
        const double rho = 1 / (2 * sigma - rhoOld);
        const Vector<ExecSpace> next = target();
        exchange(level, x);
        const Real a = Real(rho * rhoOld), c = Real(2 * rho / delta);
        if (startScale != 0)
          sweeps.chebyshevStepAfterStart(b, x, next, a, c, Real(startScale));
        else
          sweeps.chebyshevStep(b, x, previous, next, a, c);
        startScale = 0;
        previous = x;
        x = next;
        rhoOld = rho;
      }
    }
    if (out != nullptr && out->data() != x.data()) Blas::copy(x, *out);
    return x;
  }

  void setupImpl(const LinearOperator<ExecSpace>& op, bool,
                 bool structureChanged) override {
    if (op.blockSize() > 1) {  // a coupled system's block matrix
      if (!coupled_) coupled_ = makeCoupledMultigrid<ExecSpace>(parameters_);
      coupled_->setDiscretization(this->discretization());
      coupled_->setup(op);
      return;
    }
    coupled_.reset();
    const Assembler<ExecSpace>* assembler = this->discretization().assembler;
    require(assembler != nullptr, "mg preconditioner: the ", op.description(),
            " comes with no equation on a structured grid to coarsen (an ImplicitStepper "
            "or a DistributedSystem hands it over; else setDiscretization())");
    const auto* distribution = this->discretization().distribution;
    require(distribution != nullptr || !op.space().distributed(),
            "mg preconditioner: the ", op.description(),
            " is distributed over MPI ranks without its grid");
    require(distribution == nullptr || estimate_ == Estimate::Gershgorin,
            "mg preconditioner: mg_estimate = 'setup' or 'structure' runs on one "
            "process; across ranks the bounds are Gershgorin's");
    const bool built =
        structureChanged || grids_.empty() || distribution != distribution_;
    distribution_ = distribution;
    if (built) build(*assembler, op);
    op.diagonal(diagonal_);
    exchange(0, diagonal_);  // across ranks: the ghost rows take their owners' diagonal
    std::exception_ptr failure;  // across ranks: agreed on before anyone throws
    try {
      grids_[0]->refresh(*assembler, diagonal_);
      for (int l = 1; l < levels(); ++l) grids_[l]->refresh(*grids_[l - 1]);
      for (int l = 0; l < levels(); ++l) {
        const double bound = grids_[l]->jacobiBound();
        if (estimate_ == Estimate::Gershgorin)
          bounds_[l] = bound;
        else if (estimate_ == Estimate::Setup || built)
          bounds_[l] = std::min(bound, 1.1 * lanczosEstimate(l));
      }
    } catch (const Error&) {
      if (!distribution_) throw;
      failure = std::current_exception();
    }
    if (distribution_) {
      // A level that fails on one rank fails on every rank, instead of leaving the
      // others in the next collective.
      double failed = failure ? distribution_->rank() + 1 : 0;
      distribution_->maxOverRanks(&failed, 1);
      if (failure) std::rethrow_exception(failure);
      require(failed == 0, "mg preconditioner: another rank (", int(failed) - 1,
              ") failed to set up its multigrid levels");
      distribution_->maxOverRanks(bounds_.data(), levels());
    }
    if (coarse_) coarse_->setup(*grids_.back());
    if (gathered_) gathered_->setup(*grids_.back());
  }

  /// Fills x's ghost cells on level (across ranks; nothing on one process).
  void exchange(int level, const Vector<ExecSpace>& x) const {
    if (distribution_ != nullptr) exchanges_[level](x);
  }

  /// Whether level l sweeps its interior by column chunks (LevelSweeps): mg_sweep_loop
  /// "columns", or "auto" on a device (there the chunks are faster than one cell a
  /// thread; perf/RESULTS.md). On a host, cell by cell.
  bool columns(int) const {
    if (loop_ != "auto") return loop_ == "columns";
    return !Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                       typename ExecSpace::memory_space>::accessible;
  }

  /// Chebyshev's Lanczos estimate of D^-1 A's largest eigenvalue on level.
  double lanczosEstimate(int level) {
    const auto& inverse = inverses_[level];
    Blas::fill(scratch_[level][0], Real(1));
    sweeps_[level]->scaledJacobi(scratch_[level][0], inverse, 1);
    return largestJacobiEigenvalue<ExecSpace>(*grids_[level], inverse, residuals_[level],
                                              scratch_[level][0], scratch_[level][1], 10);
  }

  void build(const Assembler<ExecSpace>& assembler, const LinearOperator<ExecSpace>& op) {
    const auto& grid = assembler.equation().mesh().grid();
    grids_.clear();
    exchanges_.clear();
    gathered_.reset();
    if (distribution_ != nullptr) {
      DistributedLevels<ExecSpace> distributed(*distribution_, grid, maxLevels_,
                                               coarseCells_);
      grids_ = std::move(distributed.grids);
      exchanges_ = std::move(distributed.exchanges);
      const auto& split = distributed.splits.back();
      if (Ordinal(split.cells()[0]) * split.cells()[1] * split.cells()[2] <=
          CoarseSolve<ExecSpace>::maxCells)
        gathered_ = std::make_unique<GatheredCoarseSolve<ExecSpace>>(
            *grids_.back(), split, *distribution_);
    } else {
      const auto& mesh = assembler.equation().mesh();
      grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(
          grid, std::array<bool, 3>{mesh.isPeriodic(0), mesh.isPeriodic(1),
                                    mesh.isPeriodic(2)}));
    }
    require(grids_[0]->numCells() == op.size(), "mg preconditioner: the ",
            op.description(), " has ", op.size(), " rows for a grid of ",
            grids_[0]->numCells(), " cells");
    while (distribution_ == nullptr && int(grids_.size()) < maxLevels_ &&
           grids_.back()->numCells() > coarseCells_ && grids_.back()->canCoarsen())
      grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(grids_.back()->coarser()));
    // Red-black colours are independent only with an even count along a periodic axis
    // (its ends are neighbours; across ranks, the global level's count); coarsening
    // keeps the counts even from an even grid.
    for (const auto& level : grids_)
      for (int a = 0; a < level->dimension(); ++a) {
        const int count = level->placement().global[a];
        require(smoother_ != Smoother::GaussSeidel ||
                    !(level->periodic()[a] || level->placement().wrapped[a]) ||
                    count % 2 == 0 || count == 1,
                "mg_smoother 'gauss-seidel': red-black sweeps need an even number of "
                "cells along a periodic axis, and the ",
                level->description(), " (this rank's block) has ", count, " along axis ",
                a, " in its whole level", "; use mg_smoother 'chebyshev' (the default)");
      }
    const int n = levels();
    transfers_.clear();
    sweeps_.clear();
    for (int l = 0; l < n; ++l)
      sweeps_.push_back(std::make_unique<LevelSweeps<ExecSpace>>(*grids_[l], columns(l)));
    for (int l = 0; l + 1 < n; ++l)
      transfers_.push_back(
          std::make_unique<GridTransfer<ExecSpace>>(*grids_[l], *grids_[l + 1]));
    coarse_.reset();
    if (distribution_ == nullptr &&
        grids_.back()->numCells() <= CoarseSolve<ExecSpace>::maxCells)
      coarse_ = std::make_unique<CoarseSolve<ExecSpace>>(*grids_.back());
    diagonal_ = Vector<ExecSpace>("kfvm::Multigrid::diagonal", op.size());
    bounds_.assign(n, 2.0);
    rhs_.assign(n, {});
    solutions_.assign(n, {});
    residuals_.assign(n, {});
    inverses_.assign(n, {});
    scratch_.assign(n, {});
    for (int l = 0; l < n; ++l) {
      const Ordinal size = grids_[l]->numCells();
      const std::string level = std::to_string(l);
      if (l > 0) {
        rhs_[l] = Vector<ExecSpace>("kfvm::Multigrid::rhs" + level, size);
        solutions_[l] = Vector<ExecSpace>("kfvm::Multigrid::solution" + level, size);
      }
      residuals_[l] = Vector<ExecSpace>("kfvm::Multigrid::residual" + level, size);
      if (estimate_ != Estimate::Gershgorin)
        inverses_[l] = Vector<ExecSpace>("kfvm::Multigrid::inverse" + level, size);
      for (int s = 0; s < 2; ++s)
        scratch_[l][s] = Vector<ExecSpace>(
            "kfvm::Multigrid::scratch" + level + (s == 0 ? "a" : "b"), size);
    }
  }

  Parameters parameters_;
  std::unique_ptr<Preconditioner<ExecSpace>> coupled_;  // for block matrices
  int degree_, sweepCount_, coarseCells_, coarseDegree_, maxLevels_;
  Cycle cycle_;
  Smoother smoother_;
  std::string loop_;  // mg_sweep_loop
  Estimate estimate_;
  std::vector<std::unique_ptr<GridLevel<ExecSpace>>> grids_;
  std::vector<std::unique_ptr<LevelSweeps<ExecSpace>>> sweeps_;
  std::vector<std::unique_ptr<GridTransfer<ExecSpace>>> transfers_;  // level l to l + 1
  std::unique_ptr<CoarseSolve<ExecSpace>> coarse_;  // null: the coarsest level smoothed
  // Across ranks: the levels' ghost exchanges, and the coarsest level's solve.
  const GridDistribution<ExecSpace>* distribution_ = nullptr;
  std::vector<typename GridDistribution<ExecSpace>::Exchange> exchanges_;
  std::unique_ptr<GatheredCoarseSolve<ExecSpace>> gathered_;
  std::vector<double> bounds_;  // of D^-1 A's eigenvalues, per level
  Vector<ExecSpace> diagonal_;
  std::vector<Vector<ExecSpace>> rhs_, solutions_, residuals_;
  std::vector<Vector<ExecSpace>> inverses_;  // D^-1 for the Lanczos estimates
  std::vector<std::array<Vector<ExecSpace>, 2>> scratch_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeMultigrid(const Parameters& parameters) {
  return std::make_unique<Multigrid<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_MULTIGRID(Space) \
  template std::unique_ptr<Preconditioner<Space>> makeMultigrid<Space>(const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MULTIGRID)

}  // namespace kfvm::Details
