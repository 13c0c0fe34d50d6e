#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_StencilOperator.hpp>

namespace kfvm {

namespace Details {

template <class ExecSpace>
struct StencilApply {
  DeviceView<const Real*, ExecSpace> coefficients;
  Vector<ExecSpace> diagonal, x, y;
  Real theta;
  int nx, ny, nz;
  Ordinal firstY, firstZ;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int i = cell % nx, j = (cell / nx) % ny, k = cell / (nx * ny);
    const Ordinal xFace = i + (nx + 1) * (j + ny * k);
    Real offDiagonal = 0;
    if (i > 0) offDiagonal += coefficients(xFace) * x(cell - 1);
    if (i < nx - 1) offDiagonal += coefficients(xFace + 1) * x(cell + 1);
    if (firstY >= 0) {
      const Ordinal yFace = firstY + i + nx * (j + (ny + 1) * k);
      if (j > 0) offDiagonal += coefficients(yFace) * x(cell - nx);
      if (j < ny - 1) offDiagonal += coefficients(yFace + nx) * x(cell + nx);
    }
    if (firstZ >= 0) {
      const Ordinal zFace = firstZ + i + nx * (j + ny * k);
      if (k > 0) offDiagonal += coefficients(zFace) * x(cell - nx * ny);
      if (k < nz - 1) offDiagonal += coefficients(zFace + nx * ny) * x(cell + nx * ny);
    }
    y(cell) = diagonal(cell) * x(cell) - theta * offDiagonal;
  }
};

}  // namespace Details

template <class ExecSpace>
StencilOperator<ExecSpace>::StencilOperator(const Assembler<ExecSpace>& assembler)
    : assembler_(&assembler) {}

template <class ExecSpace>
void StencilOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                       const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::apply: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  Details::StencilApply<ExecSpace> body{assembler_->faceCoefficients(),
                                        assembler_->diagonal(),
                                        x,
                                        y,
                                        assembler_->theta(),
                                        n[0],
                                        n[1],
                                        n[2],
                                        mesh.dimension() >= 2 ? mesh.firstFace(1) : -1,
                                        mesh.dimension() >= 3 ? mesh.firstFace(2) : -1};
  forEachCell("kfvm::StencilOperator::apply", mesh, body);
}

#define KFVM_INSTANTIATE_STENCIL(Space) template class StencilOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL)

}  // namespace kfvm
