#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_MatrixFreeOperator.hpp>

namespace kfvm {

template <class ExecSpace>
MatrixFreeOperator<ExecSpace>::MatrixFreeOperator(const Assembler<ExecSpace>& assembler,
                                                  StencilLoop loop)
    : assembler_(&assembler),
      stencil_(assembler, loop),
      space_(assembler.matrix().numRows()) {}

template <class ExecSpace>
void MatrixFreeOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  Kokkos::deep_copy(ExecSpace(), d, assembler_->diagonal());
}

template <class ExecSpace>
UniformInteriorEntries MatrixFreeOperator<ExecSpace>::uniformDiagonal() const {
  if (!stencil_.uniformInteriorDiagonal()) return {};
  const auto& mesh = assembler_->equation().mesh();
  const auto n = mesh.cellCounts();
  return UniformInteriorEntries(mesh.dimension(), n, stencil_.interiorCell());
}

#define KFVM_INSTANTIATE_MATRIX_FREE(Space) template class MatrixFreeOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MATRIX_FREE)

}  // namespace kfvm
