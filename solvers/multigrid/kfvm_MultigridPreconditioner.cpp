// "mg": geometric multigrid on the structured grid of an Assembler's equation, as a
// preconditioner (one cycle per apply, a fixed symmetric operator: usable inside CG).
// Levels: the operator itself, then GridLevel's rediscretized coarser grids down to
// `mg_coarse_cells` cells or fewer, linked by GridTransfer (linear interpolation and its
// transpose); each smoothed by a Jacobi-preconditioned Chebyshev
// polynomial (the "chebyshev" preconditioner of that level: pre-smoothing from zero,
// post-smoothing of the residual), the coarsest solved by a Chebyshev polynomial of
// high degree over a wide interval. V-cycles by default, W-cycles with mg_cycle = "w".
#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_GridLevel.hpp>
#include <kfvm_GridTransfer.hpp>

#include "../preconditioners/detail/kfvm_PreconditionerMakers.hpp"

#include <memory>
#include <vector>

namespace kfvm::Details {

template <class ExecSpace>
class Multigrid final : public Preconditioner<ExecSpace> {
 public:
  explicit Multigrid(const Parameters& parameters)
      : Preconditioner<ExecSpace>("mg"),
        degree_(parameters.getInt("mg_degree", 4)),
        sweeps_(parameters.getInt("mg_sweeps", 1)),
        coarseCells_(parameters.getInt("mg_coarse_cells", 8)),
        coarseDegree_(parameters.getInt("mg_coarse_degree", 16)),
        maxLevels_(parameters.getInt("mg_levels", 30)),
        cycle_(parameters.getString("mg_cycle", "v")),
        estimate_(parameters.getString("mg_estimate", "setup")) {
    require(degree_ >= 2 && degree_ <= 16, "mg_degree must be in [2, 16], got ", degree_);
    require(sweeps_ >= 1 && sweeps_ <= 16, "mg_sweeps must be in [1, 16], got ", sweeps_);
    require(coarseCells_ >= 1, "mg_coarse_cells must be at least 1, got ", coarseCells_);
    require(coarseDegree_ >= 1 && coarseDegree_ <= 64,
            "mg_coarse_degree must be in [1, 64], got ", coarseDegree_);
    require(maxLevels_ >= 1 && maxLevels_ <= 30, "mg_levels must be in [1, 30], got ",
            maxLevels_);
    require(cycle_ == "v" || cycle_ == "w", "mg_cycle must be 'v' or 'w', got '", cycle_,
            "'");
    require(estimate_ == "setup" || estimate_ == "structure",
            "mg_estimate must be 'setup' or 'structure', got '", estimate_, "'");
  }

  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    cycle(0, r, z);
    this->op().space().zeroGhosts(z);
  }

  /// The number of levels, the operator's own included.
  int levels() const { return int(smoothers_.size()); }

 private:
  const LinearOperator<ExecSpace>& levelOperator(int level) const {
    return level == 0 ? this->op() : *grids_[level];
  }

  /// x = (one cycle from zero) b on level.
  void cycle(int level, const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) const {
    const auto& smoother = *smoothers_[level];
    smoother.apply(b, x);  // pre-smoothing from zero (the coarsest level's solve)
    if (level + 1 == levels()) return;
    for (int s = 1; s < sweeps_; ++s) smooth(level, b, x);
    const auto& A = levelOperator(level);
    const auto& r = residuals_[level];
    const int visits = cycle_ == "w" && level + 2 < levels() ? 2 : 1;
    for (int v = 0; v < visits; ++v) {
      A.apply(x, r);
      Blas::axpby(Real(1), b, Real(-1), r);  // r = b - A x
      transfers_[level]->restrict(r, rhs_[level + 1]);
      cycle(level + 1, rhs_[level + 1], solutions_[level + 1]);
      transfers_[level]->prolongAdd(solutions_[level + 1], x);
    }
    for (int s = 0; s < sweeps_; ++s) smooth(level, b, x);
  }

  /// x += S (b - A x) on level.
  void smooth(int level, const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) const {
    const auto& r = residuals_[level];
    const auto& t = corrections_[level];
    levelOperator(level).apply(x, r);
    Blas::axpby(Real(1), b, Real(-1), r);
    smoothers_[level]->apply(r, t);
    Blas::axpby(Real(1), t, Real(1), x);
  }

  void setupImpl(const LinearOperator<ExecSpace>& op, bool,
                 bool structureChanged) override {
    require(!op.space().distributed(), "mg preconditioner: the ", op.description(),
            " is distributed over MPI ranks; multigrid runs on one process for now");
    const Assembler<ExecSpace>* assembler = op.assembler();
    require(assembler != nullptr, "mg preconditioner: the ", op.description(),
            " does not come from an equation on a structured grid (an Assembler's "
            "matrix-free stencil or its matrix through ImplicitStepper)");
    if (structureChanged || grids_.empty()) build(*assembler, op);
    op.diagonal(diagonal_);
    grids_[0]->refresh(*assembler, diagonal_);
    for (int l = 1; l < levels(); ++l) grids_[l]->refresh(*grids_[l - 1]);
    for (int l = 0; l < levels(); ++l) smoothers_[l]->setup(levelOperator(l));
  }

  void build(const Assembler<ExecSpace>& assembler, const LinearOperator<ExecSpace>& op) {
    const auto& grid = assembler.equation().mesh().grid();
    grids_.clear();
    grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(grid));
    while (int(grids_.size()) < maxLevels_ && grids_.back()->numCells() > coarseCells_ &&
           grids_.back()->canCoarsen())
      grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(grids_.back()->coarser()));
    const int n = int(grids_.size());
    transfers_.clear();
    for (int l = 0; l + 1 < n; ++l)
      transfers_.push_back(
          std::make_unique<GridTransfer<ExecSpace>>(*grids_[l], *grids_[l + 1]));
    diagonal_ = Vector<ExecSpace>("kfvm::Multigrid::diagonal", op.size());
    smoothers_.clear();
    rhs_.assign(n, {});
    solutions_.assign(n, {});
    residuals_.assign(n, {});
    corrections_.assign(n, {});
    for (int l = 0; l < n; ++l) {
      const bool coarsest = l + 1 == n;
      Parameters chebyshev{
          {"chebyshev_degree", std::to_string(coarsest ? coarseDegree_ : degree_)},
          {"chebyshev_ratio", coarsest ? "1000" : "30"},
          {"chebyshev_estimate", estimate_}};
      smoothers_.push_back(makeChebyshev<ExecSpace>(chebyshev));
      const Ordinal size = l == 0 ? op.size() : grids_[l]->numCells();
      const std::string level = std::to_string(l);
      if (l > 0) {
        rhs_[l] = Vector<ExecSpace>("kfvm::Multigrid::rhs" + level, size);
        solutions_[l] = Vector<ExecSpace>("kfvm::Multigrid::solution" + level, size);
      }
      residuals_[l] = Vector<ExecSpace>("kfvm::Multigrid::residual" + level, size);
      corrections_[l] = Vector<ExecSpace>("kfvm::Multigrid::correction" + level, size);
    }
  }

  int degree_, sweeps_, coarseCells_, coarseDegree_, maxLevels_;
  std::string cycle_, estimate_;
  std::vector<std::unique_ptr<GridLevel<ExecSpace>>> grids_;
  std::vector<std::unique_ptr<GridTransfer<ExecSpace>>> transfers_;  // level l to l + 1
  std::vector<std::unique_ptr<Preconditioner<ExecSpace>>> smoothers_;
  Vector<ExecSpace> diagonal_;
  std::vector<Vector<ExecSpace>> rhs_, solutions_, residuals_, corrections_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeMultigrid(const Parameters& parameters) {
  return std::make_unique<Multigrid<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_MULTIGRID(Space) \
  template std::unique_ptr<Preconditioner<Space>> makeMultigrid<Space>(const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MULTIGRID)

}  // namespace kfvm::Details
