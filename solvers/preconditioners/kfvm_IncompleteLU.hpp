#ifndef KFVM_INCOMPLETE_LU_HPP
#define KFVM_INCOMPLETE_LU_HPP

#include <kfvm_CrsMatrix.hpp>

#include <vector>

namespace kfvm {

/// ILU(0): the LU factorization of a CRS matrix restricted to the matrix's own pattern
/// (columns sorted, every diagonal entry present). The rows are grouped into level sets
/// (a row's level is one more than that of every row it depends on), computed on the
/// host once per structure, so that the factorization and both triangular solves run
/// as one parallel loop per level on the device (on a host backend with few rows per
/// level for each thread, all rows in level order on one thread: inOrder()). Where the
/// pattern is a full band (1D
/// stencils) no fill-in is dropped and it is the exact LU factorization.
///
/// The native solvers use it with preconditioner = "ilu0".
template <class ExecSpace>
class IncompleteLU {
 public:
  /// Level sets and storage for matrix's structure; throws kfvm::Error naming a row
  /// without a diagonal entry.
  void analyze(const CrsMatrix<ExecSpace>& matrix);
  /// Factorizes matrix's values (the structure given to analyze()); throws kfvm::Error
  /// naming the first row whose pivot is zero or not finite.
  void factorize(const CrsMatrix<ExecSpace>& matrix);
  /// z = (L U)^-1 r; r and z may not be the same View.
  void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const;

  int numLowerLevels() const { return int(lowerLevels_.size()) - 1; }
  int numUpperLevels() const { return int(upperLevels_.size()) - 1; }
  /// True when the factorization and solves run the rows in level order on one thread.
  bool inOrder() const { return inOrder_; }

 private:
  CrsMatrix<ExecSpace> pattern_;
  DeviceView<Offset*, ExecSpace> diagonalEntries_;
  DeviceView<Real*, ExecSpace> factors_;
  // Rows ordered by level; level l holds order(levels[l] .. levels[l + 1] - 1).
  DeviceView<Ordinal*, ExecSpace> lowerOrder_, upperOrder_;
  std::vector<Ordinal> lowerLevels_, upperLevels_;
  bool inOrder_ = false;
};

}  // namespace kfvm

#endif
