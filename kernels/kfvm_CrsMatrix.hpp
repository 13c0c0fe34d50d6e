#ifndef KFVM_CRS_MATRIX_HPP
#define KFVM_CRS_MATRIX_HPP

#include <kfvm_Types.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// Compressed-row sparse matrix in ExecSpace's memory. Columns are sorted within a row.
/// The structure (rowOffsets, columns) is fixed once built; values may be refilled.
template <class ExecSpace>
class CrsMatrix {
 public:
  CrsMatrix() = default;
  CrsMatrix(const std::string& label, Ordinal numRows, Ordinal numColumns,
            DeviceView<Offset*, ExecSpace> rowOffsets,
            DeviceView<Ordinal*, ExecSpace> columns);

  /// A matrix from host arrays in CRS form; throws kfvm::Error naming the bad entry when
  /// offsets decrease, a column is out of range or columns of a row are not increasing.
  static CrsMatrix fromHost(Ordinal numRows, Ordinal numColumns,
                            const std::vector<Offset>& rowOffsets,
                            const std::vector<Ordinal>& columns,
                            const std::vector<Real>& values);

  Ordinal numRows() const { return numRows_; }
  Ordinal numColumns() const { return numColumns_; }
  Offset numEntries() const { return columns_.extent(0); }
  DeviceView<Offset*, ExecSpace> rowOffsets() const { return rowOffsets_; }
  DeviceView<Ordinal*, ExecSpace> columns() const { return columns_; }
  DeviceView<Real*, ExecSpace> values() const { return values_; }

  /// Entry (row, column) read back to the host; 0 where the structure has none. For tests
  /// and small matrices only.
  std::vector<std::vector<Real>> toDenseHost() const;

 private:
  Ordinal numRows_ = 0, numColumns_ = 0;
  DeviceView<Offset*, ExecSpace> rowOffsets_;
  DeviceView<Ordinal*, ExecSpace> columns_;
  DeviceView<Real*, ExecSpace> values_;
};

namespace Details {

/// Entries per row that rowProduct() loads at once.
constexpr int rowProductBatch = 8;

/// Sum of values(e) * x(columns(e)) over entries begin .. end - 1, in entry order. On a
/// device, a row of up to rowProductBatch entries (every row of a 3-, 5- or 7-point
/// stencil) loads all its columns and values, then all its x entries, each group at
/// once: two memory round trips per row instead of two per entry. Longer rows, and all
/// rows in host memory (where the batch measured slower: the caches already overlap the
/// plain loop's loads), take the plain loop.
template <class Columns, class Values, class X>
KOKKOS_INLINE_FUNCTION Real rowProduct(const Columns& columns, const Values& values,
                                       const X& x, Offset begin, Offset end) {
  Real sum = 0;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            typename X::memory_space>::accessible) {
    if (end - begin <= rowProductBatch) {
      Ordinal column[rowProductBatch];
      Real value[rowProductBatch];
      for (int m = 0; m < rowProductBatch; ++m) {
        const bool inRow = begin + m < end;
        column[m] = inRow ? columns(begin + m) : Ordinal(0);
        value[m] = inRow ? values(begin + m) : Real(0);
      }
      for (int m = 0; m < rowProductBatch; ++m)
        if (begin + m < end) sum += value[m] * x(column[m]);
      return sum;
    }
  }
  for (Offset e = begin; e < end; ++e) sum += values(e) * x(columns(e));
  return sum;
}

}  // namespace Details

/// y = A x.
template <class ExecSpace>
void multiply(const CrsMatrix<ExecSpace>& A, const Vector<ExecSpace>& x,
              const Vector<ExecSpace>& y);

}  // namespace kfvm

#endif
