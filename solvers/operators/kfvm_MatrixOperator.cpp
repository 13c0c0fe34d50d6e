#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_MatrixOperator.hpp>

namespace kfvm {

namespace Details {

template <class ExecSpace>
struct MatrixDiagonal {
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> d;
  KOKKOS_FUNCTION void operator()(Ordinal row) const {
    Real diagonal = 0;
    for (Offset e = offsets(row); e < offsets(row + 1); ++e)
      if (columns(e) == row) diagonal = values(e);
    d(row) = diagonal;
  }
};

/// y = A x row by row, and x . y summed with it.
template <class ExecSpace>
struct ProductAndDot {
  DeviceView<const Offset*, ExecSpace> offsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<const Real*, ExecSpace> values;
  Vector<ExecSpace> x, y;
  KOKKOS_FUNCTION void operator()(Ordinal row, double& dot) const {
    const Real sum = rowProduct(columns, values, x, offsets(row), offsets(row + 1));
    y(row) = sum;
    dot += double(x(row)) * double(sum);
  }
};

}  // namespace Details

template <class ExecSpace>
void matrixDiagonal(const CrsMatrix<ExecSpace>& matrix, const Vector<ExecSpace>& d) {
  forEachIndex("kfvm::MatrixOperator::diagonal", ExecSpace(), matrix.numRows(),
               Details::MatrixDiagonal<ExecSpace>{matrix.rowOffsets(), matrix.columns(),
                                                  matrix.values(), d});
}

template <class ExecSpace>
MatrixOperator<ExecSpace>::MatrixOperator(const CrsMatrix<ExecSpace>& matrix,
                                          int blockSize) {
  setMatrix(matrix, blockSize);
}

template <class ExecSpace>
void MatrixOperator<ExecSpace>::setMatrix(const CrsMatrix<ExecSpace>& matrix,
                                          int blockSize) {
  require(matrix.numRows() > 0 && matrix.numRows() == matrix.numColumns(),
          "matrix operator: needs a square non-empty matrix, got ", matrix.numRows(),
          " x ", matrix.numColumns());
  require(blockSize >= 1 && matrix.numRows() % blockSize == 0,
          "matrix operator: block size ", blockSize, " does not divide the ",
          matrix.numRows(), " rows");
  const bool same = matrix.numRows() == matrix_.numRows() &&
                    matrix.rowOffsets().data() == matrix_.rowOffsets().data() &&
                    matrix.columns().data() == matrix_.columns().data() &&
                    matrix.values().data() == matrix_.values().data() &&
                    blockSize == blockSize_;
  matrix_ = matrix;
  blockSize_ = blockSize;
  if (!same) {
    ++version_;
    if (space_.size() != matrix.numRows())
      space_ = VectorSpace<ExecSpace>(matrix.numRows());
  }
}

template <class ExecSpace>
std::string MatrixOperator<ExecSpace>::description() const {
  return Details::concatenate(
      "CRS matrix (", matrix_.numRows(), " rows",
      blockSize_ > 1 ? Details::concatenate(", ", blockSize_, " per cell") : "", ")");
}

template <class ExecSpace>
void MatrixOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                      const Vector<ExecSpace>& y) const {
  multiply(matrix_, x, y);
}

template <class ExecSpace>
void MatrixOperator<ExecSpace>::applyAndDot(const Vector<ExecSpace>& x,
                                            const Vector<ExecSpace>& y,
                                            const DeviceScalar<ExecSpace>& dot) const {
  const ExecSpace space;
  reduceIntoView("kfvm::MatrixOperator::productAndDot", space, matrix_.numRows(),
                 Details::ProductAndDot<ExecSpace>{
                     matrix_.rowOffsets(), matrix_.columns(), matrix_.values(), x, y},
                 dot);
}

template <class ExecSpace>
void MatrixOperator<ExecSpace>::diagonal(const Vector<ExecSpace>& d) const {
  matrixDiagonal(matrix_, d);
}

#define KFVM_INSTANTIATE_MATRIX_OPERATOR(Space) \
  template class MatrixOperator<Space>;         \
  template void matrixDiagonal<Space>(const CrsMatrix<Space>&, const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MATRIX_OPERATOR)

}  // namespace kfvm
