#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_LeastSquaresGradient.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_CellGradients.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

namespace kfvm {

template <class ExecSpace>
void cellGradients(const Equation<ExecSpace>& equation, const CellField<ExecSpace>& phi,
                   CellGradient method,
                   const DeviceView<Real* [3], ExecSpace>& gradient) {
  const auto& mesh = equation.mesh();
  require(phi.meshId() == mesh.id(), "cellGradients: the field '", phi.name(),
          "' is on another mesh than the equation");
  require(gradient.extent(0) == std::size_t(mesh.numCells()),
          "cellGradients: ", gradient.extent(0), " rows for ", mesh.numCells(), " cells");
  const Details::AssemblyGeometry<ExecSpace> g(equation);
  if (method == CellGradient::Gauss) {
    forEachCell("kfvm::cellGradients::gauss", mesh,
                Details::GradientKernel<ExecSpace>{g, phi.values(), gradient,
                                                   Details::GradientBoundary::Robin});
    return;
  }
  const Details::LeastSquaresGradient<ExecSpace> leastSquares{
      g,
      phi.values(),
      gradient,
      mesh.dimension(),
      equation.hasDiffusionTensor(),
      equation.diffusionTensor()};
  forEachCell("kfvm::cellGradients::leastSquares", mesh, leastSquares);
}

#define KFVM_INSTANTIATE_CELL_GRADIENTS(Space)                                        \
  template void cellGradients<Space>(const Equation<Space>&, const CellField<Space>&, \
                                     CellGradient, const DeviceView<Real* [3], Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CELL_GRADIENTS)

}  // namespace kfvm
