#ifndef KFVM_COARSE_SOLVE_HPP
#define KFVM_COARSE_SOLVE_HPP

#include <kfvm_GridLevel.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// The direct solve of multigrid's coarsest level: its dense matrix (GridLevel::dense(),
/// on the device), factorized by Cholesky on the host at setup() and kept as the dense
/// inverse, so that apply() is one kernel (a product with the inverse, one row a thread)
/// and no host round trip. For levels of up to maxCells cells: setup costs n^3 / 2
/// host operations and n^2 numbers of memory.
template <class ExecSpace>
class CoarseSolve {
 public:
  static constexpr Ordinal maxCells = 1000;

  /// Allocates for level (numCells() <= maxCells, else kfvm::Error).
  explicit CoarseSolve(const GridLevel<ExecSpace>& level);
  /// Allocates for n unknowns of a matrix the caller inverts (setInverse()).
  explicit CoarseSolve(Ordinal n);
  /// The inverse to apply (row-major, host, n x n).
  void setInverse(const std::vector<double>& inverse);
  /// Factorizes level's current values. A matrix that is not symmetric positive
  /// definite is a kfvm::Error naming the level and the pivot.
  void setup(const GridLevel<ExecSpace>& level);
  /// x = A^-1 b.
  void apply(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x) const;

  /// The inverse of the symmetric positive definite n x n matrix a (row-major, host; its
  /// symmetric part), by Cholesky in double. A pivot that is not positive is a
  /// kfvm::Error naming what (the matrix) and the row.
  static std::vector<double> invert(const std::vector<double>& a, Ordinal n,
                                    const std::string& what);
  /// The inverse of any non-singular n x n matrix a (row-major, host), by Gauss-Jordan
  /// elimination with partial pivoting in double; a pivot below 1e-13 of the largest
  /// entry is a kfvm::Error naming what and the column.
  static std::vector<double> invertGeneral(std::vector<double> a, Ordinal n,
                                           const std::string& what);

 private:
  DeviceView<Real**, ExecSpace> matrix_, inverse_;
};

}  // namespace kfvm

#endif
