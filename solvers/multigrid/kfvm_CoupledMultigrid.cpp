// "mg" for a coupled system's block matrix (an operator of more than one unknown per
// cell on a structured grid: LinearOperator::grid()): geometric multigrid over
// BlockLevels, the coupled analogue of the scalar "mg". Levels: the matrix's own
// couplings and diagonal blocks, then their rediscretized coarser grids (GridLevel's
// coarsening) down to mg_coarse_cells cells or fewer; transfers are GridTransfer's,
// each variable alone; every level is smoothed by mg_sweeps point-block red-black
// Gauss-Seidel sweeps (a Vanka-type smoother of one cell: all its variables at once)
// before and after the coarse correction; the coarsest level is solved directly (its
// dense inverse, Gauss-Jordan: the blocks need not be symmetric) when it has at most
// CoarseSolve::maxCells unknowns, else smoothed by 20 sweeps. V- or W-cycles
// (mg_cycle; "f" is taken as "v"). Not symmetric: for GMRES, BiCGStab or richardson.
// One process; one cycle allocates nothing.
#include <kfvm_Backends.hpp>
#include <kfvm_BlockLevel.hpp>
#include <kfvm_CoarseSolve.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_GridTransfer.hpp>

#include "../preconditioners/detail/kfvm_PreconditionerMakers.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kfvm::Details {

template <class ExecSpace>
class CoupledMultigrid final : public Preconditioner<ExecSpace> {
 public:
  explicit CoupledMultigrid(const Parameters& parameters)
      : Preconditioner<ExecSpace>("mg"),
        sweepCount_(parameters.getInt("mg_sweeps", 1)),
        coarseCells_(parameters.getInt("mg_coarse_cells", 64)),
        maxLevels_(parameters.getInt("mg_levels", 30)),
        wCycle_(parameters.getString("mg_cycle", "v") == "w") {}

  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const override {
    cycle(0, r, z);
  }
  bool needsMatrix() const override { return true; }

 private:
  /// out = one cycle on level from 0.
  void cycle(int level, const Vector<ExecSpace>& b, const Vector<ExecSpace>& out) const {
    const auto& blocks = *blocks_[level];
    if (level + 1 == int(blocks_.size())) {
      if (coarse_) {
        coarse_->apply(b, out);
      } else {
        for (int s = 0; s < 20; ++s)
          for (int half = 0; half < 2; ++half)
            blocks.gaussSeidel(b, out, half, s == 0 && half == 0);
      }
      return;
    }
    const int n = blocks.variables();
    for (int s = 0; s < sweepCount_; ++s)
      for (int half = 0; half < 2; ++half)
        blocks.gaussSeidel(b, out, half, s == 0 && half == 0);
    const int visits = wCycle_ && level + 2 < int(blocks_.size()) ? 2 : 1;
    for (int v = 0; v < visits; ++v) {
      blocks.residual(b, out, residuals_[level]);
      transfers_[level]->restrict(residuals_[level], rhs_[level + 1], n);
      cycle(level + 1, rhs_[level + 1], solutions_[level + 1]);
      transfers_[level]->prolongAdd(solutions_[level + 1], out, n);
    }
    for (int s = 0; s < sweepCount_; ++s)
      for (int half = 0; half < 2; ++half) blocks.gaussSeidel(b, out, 1 - half, false);
  }

  void setupImpl(const LinearOperator<ExecSpace>& op, bool,
                 bool structureChanged) override {
    const CrsMatrix<ExecSpace>* matrix = op.matrix();
    const CartesianGrid* grid = this->discretization().grid;
    require(matrix != nullptr && grid != nullptr && !op.space().distributed(),
            "mg preconditioner: the ", op.description(), " of ", op.blockSize(),
            " unknowns per cell is not an assembled matrix on a structured grid of one "
            "process (a CoupledStepper's)");
    const int n = op.blockSize();
    if (structureChanged || blocks_.empty()) build(*grid, n, op);
    blocks_[0]->refresh(*matrix);
    for (std::size_t l = 1; l < blocks_.size(); ++l) blocks_[l]->refresh(*blocks_[l - 1]);
    if (coarse_) {
      const auto& last = *blocks_.back();
      last.dense(dense_);
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense_);
      const Ordinal size = last.size();
      std::vector<double> values(std::size_t(size) * size);
      for (Ordinal i = 0; i < size; ++i)
        for (Ordinal j = 0; j < size; ++j)
          values[std::size_t(i) * size + j] = double(host(i, j));
      coarse_->setInverse(CoarseSolve<ExecSpace>::invertGeneral(
          std::move(values), size,
          "the coupled " + last.grid().description() + " of " + std::to_string(n) +
              " variables"));
    }
  }

  void build(const CartesianGrid& grid, int n, const LinearOperator<ExecSpace>& op) {
    grids_.clear();
    blocks_.clear();
    transfers_.clear();
    grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(grid));
    require(grids_[0]->numCells() * n == op.size(), "mg preconditioner: the ",
            op.description(), " has ", op.size(), " rows for ", grids_[0]->numCells(),
            " cells of ", n, " unknowns");
    // Down to mg_coarse_cells cells, and to the direct solve's size in unknowns.
    const auto large = [&](const GridLevel<ExecSpace>& level) {
      return level.numCells() > coarseCells_ ||
             level.numCells() * n > CoarseSolve<ExecSpace>::maxCells;
    };
    while (int(grids_.size()) < maxLevels_ && large(*grids_.back()) &&
           grids_.back()->canCoarsen())
      grids_.push_back(std::make_unique<GridLevel<ExecSpace>>(grids_.back()->coarser()));
    const int levels = int(grids_.size());
    rhs_.assign(levels, {});
    solutions_.assign(levels, {});
    residuals_.assign(levels, {});
    for (int l = 0; l < levels; ++l) {
      blocks_.push_back(std::make_unique<BlockLevel<ExecSpace>>(*grids_[l], n));
      const Ordinal size = blocks_[l]->size();
      const std::string level = std::to_string(l);
      residuals_[l] = Vector<ExecSpace>("kfvm::CoupledMultigrid::residual" + level, size);
      if (l > 0) {
        rhs_[l] = Vector<ExecSpace>("kfvm::CoupledMultigrid::rhs" + level, size);
        solutions_[l] =
            Vector<ExecSpace>("kfvm::CoupledMultigrid::solution" + level, size);
        transfers_.push_back(
            std::make_unique<GridTransfer<ExecSpace>>(*grids_[l - 1], *grids_[l]));
      }
    }
    coarse_.reset();
    const Ordinal last = blocks_.back()->size();
    if (last <= CoarseSolve<ExecSpace>::maxCells) {
      coarse_ = std::make_unique<CoarseSolve<ExecSpace>>(last);
      dense_ = DeviceView<Real**, ExecSpace>("kfvm::CoupledMultigrid::dense", last, last);
    }
  }

  int sweepCount_, coarseCells_, maxLevels_;
  bool wCycle_;
  std::vector<std::unique_ptr<GridLevel<ExecSpace>>> grids_;  // the geometry
  std::vector<std::unique_ptr<BlockLevel<ExecSpace>>> blocks_;
  std::vector<std::unique_ptr<GridTransfer<ExecSpace>>> transfers_;
  std::unique_ptr<CoarseSolve<ExecSpace>> coarse_;
  DeviceView<Real**, ExecSpace> dense_;
  std::vector<Vector<ExecSpace>> rhs_, solutions_, residuals_;
};

template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makeCoupledMultigrid(
    const Parameters& parameters) {
  return std::make_unique<CoupledMultigrid<ExecSpace>>(parameters);
}

#define KFVM_INSTANTIATE_COUPLED_MULTIGRID(Space)                              \
  template std::unique_ptr<Preconditioner<Space>> makeCoupledMultigrid<Space>( \
      const Parameters&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_COUPLED_MULTIGRID)

}  // namespace kfvm::Details
