#include <kfvm_Backends.hpp>
#include <kfvm_DistributedOperator.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Partition.hpp>
#include <kfvm_WrappedVertices.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

namespace {

/// The global grid's vertices of the rank's ghosted block; along a periodic axis the
/// ghosts beyond an end are the cells at the other end, moved by the grid's length.
CartesianGrid ghostedGrid(const CartesianGrid& grid, const Decomposition& decomposition,
                          const GhostedBlock& layout, int rank) {
  const auto block = decomposition.block(rank);
  std::vector<double> vertices[3];
  for (int a = 0; a < grid.dimension(); ++a)
    vertices[a] = wrappedVertices(grid.vertices(a), block.first[a] - layout.lower[a],
                                  layout.extent[a]);
  return CartesianGrid::fromVertices(vertices[0], vertices[1], vertices[2]);
}

/// Global ids (x fastest over the global grid) of every cell of the rank's ghosted block.
std::vector<long long> blockGlobalIds(const Decomposition& decomposition,
                                      const GhostedBlock& layout, int rank) {
  const auto first = decomposition.block(rank).first;
  const auto& cells = decomposition.cells();
  std::vector<long long> ids(std::size_t(layout.size()));
  const auto wrap = [&](int index, int a) {  // a periodic axis' ghosts wrap around
    return (index % cells[a] + cells[a]) % cells[a];
  };
  for (int k = -layout.lower[2]; k < layout.owned[2] + layout.upper[2]; ++k)
    for (int j = -layout.lower[1]; j < layout.owned[1] + layout.upper[1]; ++j)
      for (int i = -layout.lower[0]; i < layout.owned[0] + layout.upper[0]; ++i)
        ids[std::size_t(layout.index(i, j, k))] =
            wrap(first[0] + i, 0) +
            (long long)cells[0] *
                (wrap(first[1] + j, 1) + (long long)cells[1] * wrap(first[2] + k, 2));
  return ids;
}

/// Local indices of the owned cells of a ghosted block, x fastest.
std::vector<Ordinal> blockOwnedCells(const GhostedBlock& layout) {
  std::vector<Ordinal> cells;
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i) cells.push_back(layout.index(i, j, k));
  return cells;
}

const CartesianGrid& checkedGrid(const CartesianGrid& grid,
                                 const Decomposition& decomposition) {
  require(grid.dimension() == decomposition.dimension() &&
              grid.cellCounts() == decomposition.cells(),
          "distributed system: the decomposition is of ", decomposition.cells()[0], " x ",
          decomposition.cells()[1], " x ", decomposition.cells()[2],
          " cells, the grid has ", grid.cells(0), " x ", grid.cells(1), " x ",
          grid.cells(2));
  return grid;
}

}  // namespace

}  // namespace Details

template <class ExecSpace>
GridBlocks<ExecSpace>::GridBlocks(const CartesianGrid& grid,
                                  const Decomposition& decomposition, MPI_Comm comm,
                                  GpuAwareMpi mode, int ghostLayers)
    : Partition<ExecSpace>(comm, ghostLayers),
      grid_(Details::checkedGrid(grid, decomposition)),
      mode_(mode),
      halo_(decomposition, comm, mode, ghostLayers),
      distribution_(grid_, halo_) {
  const int rank = this->rank();
  this->setCells(
      Mesh<ExecSpace>(Details::ghostedGrid(grid, decomposition, layout(), rank)),
      Details::blockGlobalIds(decomposition, layout(), rank),
      Details::blockOwnedCells(layout()));
}

template <class ExecSpace>
HaloExchange<ExecSpace>& GridBlocks<ExecSpace>::haloOf(int components) {
  if (components == 1) return halo_;
  auto& halo = blockHalos_[components];
  if (!halo)
    halo = std::make_unique<HaloExchange<ExecSpace>>(
        decomposition(), this->communicator(), mode_, this->ghostLayers(), components);
  return *halo;
}

template <class ExecSpace>
void GridBlocks<ExecSpace>::exchange(const Vector<ExecSpace>& x, int components) {
  haloOf(components).exchange(x);
}

template <class ExecSpace>
bool GridBlocks<ExecSpace>::isPhysical(Patch patch) const {
  const int axis = int(patch) / 2, side = int(patch) % 2;
  require(axis < decomposition().dimension(), "distributed system: patch '",
          patchName(patch), "' is not a side of a ", decomposition().dimension(),
          "D grid");
  return decomposition().neighbour(this->rank(), axis, side) < 0;
}

template <class ExecSpace>
void GridBlocks<ExecSpace>::checkConditions(
    const BoundaryConditions<ExecSpace>& conditions, int variable) const {
  for (int p = 0; p < 2 * decomposition().dimension(); ++p) {
    const Patch patch = static_cast<Patch>(p);
    require(
        isPhysical(patch) || !conditions.isSet(patch), "distributed system: patch '",
        patchName(patch), "' of rank ", this->rank(),
        " faces another rank; only physical patches take boundary conditions",
        variable < 0 ? std::string() : " (variable " + std::to_string(variable) + ")");
  }
}

template <class ExecSpace>
void GridBlocks<ExecSpace>::checkReach(const Equation<ExecSpace>& equation) const {
  const bool reachesTwoCells =
      equation.hasHigherOrder() ||
      (equation.hasConvection() && isTvd(equation.convectionScheme()));
  require(!reachesTwoCells || this->ghostLayers() >= 2,
          "distributed system: TVD convection and the fourth-order term reach two cells "
          "away; construct the system with 2 ghost layers, not ",
          this->ghostLayers());
}

template <class ExecSpace>
std::unique_ptr<LinearOperator<ExecSpace>> GridBlocks<ExecSpace>::rowsOf(
    const Assembler<ExecSpace>& assembler) {
  return std::make_unique<DistributedOperator<ExecSpace>>(halo_, this->communicator(),
                                                          assembler);
}

template <class ExecSpace>
std::unique_ptr<LinearOperator<ExecSpace>> GridBlocks<ExecSpace>::rowsOf(
    const CrsMatrix<ExecSpace>& matrix, int components) {
  return std::make_unique<DistributedOperator<ExecSpace>>(
      haloOf(components), this->communicator(), matrix, components);
}

template <class ExecSpace>
void GridBlocks<ExecSpace>::setMatrixFree(LinearOperator<ExecSpace>& rows, bool on) {
  auto* distributed = dynamic_cast<DistributedOperator<ExecSpace>*>(&rows);
  require(distributed != nullptr,
          "distributed system: matrix-free products need an equation's rows");
  distributed->setMatrixFree(on);
}

#define KFVM_INSTANTIATE_GRID_BLOCKS(Space) template class GridBlocks<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_GRID_BLOCKS)

}  // namespace kfvm
