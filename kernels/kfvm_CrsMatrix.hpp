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

/// y = A x.
template <class ExecSpace>
void multiply(const CrsMatrix<ExecSpace>& A, const Vector<ExecSpace>& x,
              const Vector<ExecSpace>& y);

}  // namespace kfvm

#endif
