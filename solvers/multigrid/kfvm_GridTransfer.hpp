#ifndef KFVM_GRID_TRANSFER_HPP
#define KFVM_GRID_TRANSFER_HPP

#include <kfvm_GridLevel.hpp>

namespace kfvm {

/// The transfers between a GridLevel and the next coarser one (fine.coarser()):
///  - prolongation P, cell-centred linear interpolation: along each merged axis a fine
///    cell takes its own coarse cell and the coarse neighbour on its side, weighted by
///    the distances between their centres (3/4 and 1/4 on a uniform grid); at the
///    grid's two ends its own coarse cell alone (around a periodic axis, the coarse
///    cell across the ends too); along an axis not merged, its cell;
///    the tensor product of the axes (8 coarse cells in 3D);
///  - restriction R = P^T: each fine value shared among the coarse cells that
///    interpolate to it, with weights summing to 1 (finite-volume residuals are
///    integrals: their sum is kept).
/// With R = P^T a multigrid cycle is a symmetric operator, and linear interpolation
/// with the rediscretized coarse operator converges independently of the grid (the
/// piecewise-constant one does not). Per-axis weights are computed once (host) at
/// construction; restrict() and prolongAdd() allocate nothing.
template <class ExecSpace>
class GridTransfer {
 public:
  GridTransfer(const GridLevel<ExecSpace>& fine, const GridLevel<ExecSpace>& coarse);

  /// b = R r (r on the fine level, b on the coarse one). components: values per cell,
  /// interleaved (a coupled system's variables), each transferred alone.
  void restrict(const Vector<ExecSpace>& r, const Vector<ExecSpace>& b,
                int components = 1) const;
  /// x += P e (e on the coarse level, x on the fine one).
  void prolongAdd(const Vector<ExecSpace>& e, const Vector<ExecSpace>& x,
                  int components = 1) const;

  /// What the kernels read (Details): per axis, for each fine index along it, its
  /// coarse cell, the other coarse cell it interpolates from and that one's weight;
  /// for each coarse index, up to 4 fine indices and their weights (0 after the last).
  struct Data {
    GridInterior fine, coarse;
    int fineCells[3], coarseCells[3];
    DeviceView<int*, ExecSpace> parent[3], other[3];
    DeviceView<Real*, ExecSpace> weight[3];
    DeviceView<int* [4], ExecSpace> sources[3];
    DeviceView<Real* [4], ExecSpace> sourceWeights[3];
  };

 private:
  Data data_;
  Ordinal fineCount_, coarseCount_;
};

}  // namespace kfvm

#endif
