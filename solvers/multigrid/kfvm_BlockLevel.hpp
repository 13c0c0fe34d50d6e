#ifndef KFVM_BLOCK_LEVEL_HPP
#define KFVM_BLOCK_LEVEL_HPP

#include <kfvm_CrsMatrix.hpp>
#include <kfvm_GridLevel.hpp>

namespace kfvm {

/// One level of geometric multigrid for a coupled system on a structured grid (a
/// CoupledSystem's block matrix: n unknowns per cell, interleaved as cell * n + v). For
/// each interior face and each pair of equation e and variable v it holds the coupling
/// of each of the face's two cells to the other (row (i, e) of A holds -c at column
/// (j, v)), and for each cell its n x n diagonal block:
///   (A x)_(i,e) = sum_v [ B_i(e, v) x_(i,v) - sum over i's faces c_f,i(e, v) x_(j,v) ].
/// The finest level reads these off the matrix (refresh(matrix)); its rows may hold no
/// other columns. A coarser level (refresh(fine)) is rediscretized as GridLevel's: a
/// coarse face's couplings are the fine ones on it summed, times the fine over the
/// coarse centre distance; a coarse cell's block is its children's blocks less their
/// faces (the cell terms: transient, sources, boundary conductances), summed, plus its
/// own faces. Both directions of a face are kept, so non-symmetric blocks (convection)
/// are coarsened as they are.
///
/// Smoothing is point-block red-black Gauss-Seidel: the cells of one colour solve their
/// n x n block (Gaussian elimination with partial pivoting) against the residual. One
/// process only; the geometry (cells, faces, transfers) is the GridLevel's.
template <class ExecSpace>
class BlockLevel {
 public:
  /// grid (structure only; it must outlive this) with n variables per cell (at most
  /// maxCoupledVariables).
  BlockLevel(const GridLevel<ExecSpace>& grid, int variables);

  /// Values from matrix (grid's cells, n interleaved unknowns each); throws kfvm::Error
  /// when its size does not match.
  void refresh(const CrsMatrix<ExecSpace>& matrix);
  /// Values from the next finer level (grid == fine's grid coarser()).
  void refresh(const BlockLevel& fine);

  /// r = b - A x.
  void residual(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                const Vector<ExecSpace>& r) const;
  /// One half of a point-block red-black Gauss-Seidel sweep in place: the cells of colour
  /// color take x_i += B_i^-1 (b - A x)_i; fromZero: x is taken as 0 and written
  /// everywhere (B_i^-1 b_i, the other colour 0).
  void gaussSeidel(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x, int color,
                   bool fromZero) const;
  /// A as a dense matrix (size() squared entries).
  void dense(const DeviceView<Real**, ExecSpace>& a) const;

  const GridLevel<ExecSpace>& grid() const { return *grid_; }
  int variables() const { return data_.variables; }
  Ordinal size() const { return grid_->numCells() * data_.variables; }

  /// What the kernels read (Details): couplings by ((face * 2 + side) * n + e) * n + v,
  /// side 0 the row of the face's lower cell; blocks and cell terms by (cell * n + e) *
  /// n + v.
  struct Data {
    typename GridLevel<ExecSpace>::Data grid;
    int variables;
    DeviceView<Real*, ExecSpace> couplings, blocks, cellTerms;
  };

 private:
  const GridLevel<ExecSpace>* grid_;
  Data data_;
};

}  // namespace kfvm

#endif
