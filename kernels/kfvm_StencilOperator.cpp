#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_StencilOperator.hpp>

namespace kfvm {

namespace Details {

/// Data and per-cell arithmetic shared by the three loops.
template <class ExecSpace>
struct StencilData {
  // Lower faces (this cell is their neighbour) weigh the other cell with the owner
  // weight, upper faces (this cell owns them) with the neighbour weight; without
  // convection both are the same View.
  DeviceView<const Real*, ExecSpace> lower, upper;
  Vector<ExecSpace> diagonal, x, y;
  Real theta;
  int nx, ny, nz;
  Ordinal firstY, firstZ;  // -1 when the grid has no such faces

  /// Off-diagonal sum of the x and y neighbours of cell (i, j, k).
  KOKKOS_INLINE_FUNCTION Real inPlane(int i, int j, int k, Ordinal cell) const {
    const Ordinal xFace = i + (nx + 1) * (j + ny * k);
    Real sum = 0;
    if (i > 0) sum += lower(xFace) * x(cell - 1);
    if (i < nx - 1) sum += upper(xFace + 1) * x(cell + 1);
    if (firstY >= 0) {
      const Ordinal yFace = firstY + i + nx * (j + (ny + 1) * k);
      if (j > 0) sum += lower(yFace) * x(cell - nx);
      if (j < ny - 1) sum += upper(yFace + nx) * x(cell + nx);
    }
    return sum;
  }

  /// Off-diagonal sum of the z neighbours of cell (., ., k).
  KOKKOS_INLINE_FUNCTION Real outOfPlane(int k, Ordinal cell) const {
    if (firstZ < 0) return 0;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal zFace =
        firstZ + cell;  // z faces are numbered like cells, plus one plane
    Real sum = 0;
    if (k > 0) sum += lower(zFace) * x(cell - plane);
    if (k < nz - 1) sum += upper(zFace + plane) * x(cell + plane);
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void applyCell(int i, int j, int k, Ordinal cell) const {
    y(cell) =
        diagonal(cell) * x(cell) - theta * (inPlane(i, j, k, cell) + outOfPlane(k, cell));
  }
};

template <class ExecSpace>
struct StencilCells : StencilData<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int i = cell % this->nx, j = (cell / this->nx) % this->ny,
              k = cell / (this->nx * this->ny);
    this->applyCell(i, j, k, cell);
  }
};

template <class ExecSpace>
struct StencilRows : StencilData<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal row) const {
    const int j = row % this->ny, k = row / this->ny;
    const Ordinal first = Ordinal(this->nx) * row;
    for (int i = 0; i < this->nx; ++i) this->applyCell(i, j, k, first + i);
  }
};

template <class ExecSpace>
struct StencilColumns : StencilData<ExecSpace> {
  KOKKOS_FUNCTION void operator()(Ordinal column) const {
    const int i = column % this->nx, j = column / this->nx;
    const Ordinal plane = Ordinal(this->nx) * this->ny;
    const bool hasZ = this->firstZ >= 0;
    // Carried along k: x below, x here, and the coefficient of the face below.
    Real below = 0, here = this->x(column);
    Real lowerFace = hasZ ? this->lower(this->firstZ + column) : Real(0);
    for (int k = 0; k < this->nz; ++k) {
      const Ordinal cell = column + plane * k;
      Real offDiagonal = this->inPlane(i, j, k, cell);
      Real above = 0, nextLowerFace = 0;
      if (hasZ) {
        const Ordinal upperFace = this->firstZ + cell + plane;
        nextLowerFace = this->lower(upperFace);
        if (k > 0) offDiagonal += lowerFace * below;
        if (k < this->nz - 1) {
          above = this->x(cell + plane);
          offDiagonal += this->upper(upperFace) * above;
        }
      }
      this->y(cell) = this->diagonal(cell) * here - this->theta * offDiagonal;
      below = here;
      here = above;
      lowerFace = nextLowerFace;
    }
  }
};

}  // namespace Details

template <class ExecSpace>
StencilOperator<ExecSpace>::StencilOperator(const Assembler<ExecSpace>& assembler,
                                            StencilLoop loop)
    : assembler_(&assembler), loop_(loop) {
  require(!assembler.equation().hasHigherOrder(),
          "StencilOperator: the higher-order diffusion term reaches neighbours' "
          "neighbours; use the assembled matrix");
  if (loop_ == StencilLoop::Auto) {
    loop_ = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                       typename ExecSpace::memory_space>::accessible
                ? StencilLoop::Rows
                : StencilLoop::Cells;
  }
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                       const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::apply: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  const Details::StencilData<ExecSpace> data{
      assembler_->faceCoefficients(),
      assembler_->faceNeighbourCoefficients(),
      assembler_->diagonal(),
      x,
      y,
      assembler_->theta(),
      n[0],
      n[1],
      n[2],
      mesh.dimension() >= 2 ? mesh.firstFace(1) : -1,
      mesh.dimension() >= 3 ? mesh.firstFace(2) : -1};
  const ExecSpace& space = mesh.space();
  if (loop_ == StencilLoop::Rows) {
    forEachIndex("kfvm::StencilOperator::applyRows", space, n[1] * n[2],
                 Details::StencilRows<ExecSpace>{data});
  } else if (loop_ == StencilLoop::Columns) {
    forEachIndex("kfvm::StencilOperator::applyColumns", space, n[0] * n[1],
                 Details::StencilColumns<ExecSpace>{data});
  } else {
    forEachCell("kfvm::StencilOperator::applyCells", mesh,
                Details::StencilCells<ExecSpace>{data});
  }
}

#define KFVM_INSTANTIATE_STENCIL(Space) template class StencilOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL)

}  // namespace kfvm
