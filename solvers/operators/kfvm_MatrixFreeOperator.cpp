#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_MatrixFreeOperator.hpp>

namespace kfvm {

template <class ExecSpace>
MatrixFreeOperator<ExecSpace>::MatrixFreeOperator(const Assembler<ExecSpace>& assembler,
                                                  StencilLoop loop)
    : assembler_(&assembler),
      stencil_(assembler, loop),
      space_(assembler.matrix().numRows()) {
  if (StencilJacobiCg<ExecSpace>::available(stencil_))
    jacobiCg_ = std::make_unique<StencilJacobiCg<ExecSpace>>(stencil_);
}

template <class ExecSpace>
void MatrixFreeOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  Kokkos::deep_copy(ExecSpace(), d, assembler_->diagonal());
}

#define KFVM_INSTANTIATE_MATRIX_FREE(Space) template class MatrixFreeOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MATRIX_FREE)

}  // namespace kfvm
