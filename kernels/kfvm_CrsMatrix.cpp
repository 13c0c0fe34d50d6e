#include <kfvm_Backends.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

namespace kfvm {

template <class ExecSpace>
CrsMatrix<ExecSpace>::CrsMatrix(const std::string& label, Ordinal numRows,
                                Ordinal numColumns,
                                DeviceView<Offset*, ExecSpace> rowOffsets,
                                DeviceView<Ordinal*, ExecSpace> columns)
    : numRows_(numRows),
      numColumns_(numColumns),
      rowOffsets_(rowOffsets),
      columns_(columns),
      values_(label + "::values", columns.extent(0)) {
  require(numRows >= 0 && numColumns >= 0, "matrix dimensions must be >= 0, got ",
          numRows, " x ", numColumns);
  require(rowOffsets.extent(0) == std::size_t(numRows) + 1, "matrix with ", numRows,
          " rows needs ", numRows + 1, " row offsets, got ", rowOffsets.extent(0));
}

template <class ExecSpace>
CrsMatrix<ExecSpace> CrsMatrix<ExecSpace>::fromHost(Ordinal numRows, Ordinal numColumns,
                                                    const std::vector<Offset>& rowOffsets,
                                                    const std::vector<Ordinal>& columns,
                                                    const std::vector<Real>& values) {
  require(numRows > 0 && numColumns > 0, "matrix dimensions must be positive, got ",
          numRows, " x ", numColumns);
  require(rowOffsets.size() == std::size_t(numRows) + 1, "matrix with ", numRows,
          " rows needs ", numRows + 1, " row offsets, got ", rowOffsets.size());
  require(rowOffsets.front() == 0, "first row offset must be 0, got ",
          rowOffsets.front());
  require(rowOffsets.back() == columns.size() && columns.size() == values.size(),
          "last row offset (", rowOffsets.back(), "), column count (", columns.size(),
          ") and value count (", values.size(), ") must agree");
  for (Ordinal row = 0; row < numRows; ++row) {
    require(rowOffsets[row] <= rowOffsets[row + 1], "row offsets decrease at row ", row);
    for (Offset e = rowOffsets[row]; e < rowOffsets[row + 1]; ++e) {
      require(columns[e] >= 0 && columns[e] < numColumns, "column ", columns[e],
              " in row ", row, " is outside [0, ", numColumns, ")");
      require(e == rowOffsets[row] || columns[e] > columns[e - 1], "columns of row ", row,
              " are not strictly increasing at column ", columns[e]);
    }
  }
  DeviceView<Offset*, ExecSpace> offsets("kfvm::CrsMatrix::rowOffsets",
                                         rowOffsets.size());
  DeviceView<Ordinal*, ExecSpace> cols("kfvm::CrsMatrix::columns", columns.size());
  auto hostOffsets = Kokkos::create_mirror_view(offsets);
  auto hostColumns = Kokkos::create_mirror_view(cols);
  for (std::size_t i = 0; i < rowOffsets.size(); ++i) hostOffsets(i) = rowOffsets[i];
  for (std::size_t i = 0; i < columns.size(); ++i) hostColumns(i) = columns[i];
  Kokkos::deep_copy(offsets, hostOffsets);
  Kokkos::deep_copy(cols, hostColumns);
  CrsMatrix matrix("kfvm::CrsMatrix", numRows, numColumns, offsets, cols);
  auto hostValues = Kokkos::create_mirror_view(matrix.values_);
  for (std::size_t i = 0; i < values.size(); ++i) hostValues(i) = values[i];
  Kokkos::deep_copy(matrix.values_, hostValues);
  return matrix;
}

template <class ExecSpace>
std::vector<std::vector<Real>> CrsMatrix<ExecSpace>::toDenseHost() const {
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rowOffsets_);
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), columns_);
  auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values_);
  std::vector<std::vector<Real>> dense(numRows_, std::vector<Real>(numColumns_, Real(0)));
  for (Ordinal row = 0; row < numRows_; ++row) {
    for (Offset e = offsets(row); e < offsets(row + 1); ++e)
      dense[row][cols(e)] = vals(e);
  }
  return dense;
}

namespace Details {

/// y = A x, one row per index, on host memory: through raw restrict pointers, so the
/// store to y(row) does not make the compiler reload the matrix's arrays (y may alias
/// them as far as Views tell it), and run in dynamically scheduled chunks of rows, as
/// Kokkos Kernels' spmv does on host spaces for matrices of over 10^7 entries. Entries
/// are summed in order, like rowProduct().
struct HostRowsProduct {
  const Offset* offsets;
  const Ordinal* columns;
  const Real* values;
  const Real* x;
  Real* y;

  KOKKOS_INLINE_FUNCTION void operator()(Ordinal row) const {
    const Offset* KOKKOS_RESTRICT o = offsets;
    const Ordinal* KOKKOS_RESTRICT c = columns;
    const Real* KOKKOS_RESTRICT v = values;
    const Real* KOKKOS_RESTRICT xs = x;
    Real sum = 0;
    for (Offset e = o[row]; e < o[row + 1]; ++e) sum += v[e] * xs[c[e]];
    y[row] = sum;
  }
};

}  // namespace Details

template <class ExecSpace>
void multiply(const CrsMatrix<ExecSpace>& A, const Vector<ExecSpace>& x,
              const Vector<ExecSpace>& y) {
  require(x.extent(0) == std::size_t(A.numColumns()) &&
              y.extent(0) == std::size_t(A.numRows()),
          "multiply: matrix is ", A.numRows(), " x ", A.numColumns(), " but x has ",
          x.extent(0), " and y has ", y.extent(0), " entries");
  auto offsets = A.rowOffsets();
  auto columns = A.columns();
  auto values = A.values();
  if constexpr (Kokkos::SpaceAccessibility<
                    Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible) {
    const Details::HostRowsProduct product{offsets.data(), columns.data(), values.data(),
                                           x.data(), y.data()};
    if (Details::runsOnCallingThread<ExecSpace>(A.numRows())) {
      const Details::CallingThreadKernel<ExecSpace> kernel(
          "kfvm::CrsMatrix::multiplyOnHost", ExecSpace(), false);
      for (Ordinal row = 0; row < A.numRows(); ++row) product(row);
      return;
    }
    Kokkos::parallel_for(
        "kfvm::CrsMatrix::multiplyOnHost",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                            Kokkos::IndexType<Ordinal>>(ExecSpace(), 0, A.numRows()),
        product);
    return;
  }
  forEachIndex(
      "kfvm::CrsMatrix::multiply", ExecSpace(), A.numRows(), KOKKOS_LAMBDA(Ordinal row) {
        y(row) = Details::rowProduct(columns, values, x, offsets(row), offsets(row + 1));
      });
}

#define KFVM_INSTANTIATE_CRS(Space)                                            \
  template class CrsMatrix<Space>;                                             \
  template void multiply<Space>(const CrsMatrix<Space>&, const Vector<Space>&, \
                                const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_CRS)

}  // namespace kfvm
