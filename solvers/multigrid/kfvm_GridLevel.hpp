#ifndef KFVM_GRID_LEVEL_HPP
#define KFVM_GRID_LEVEL_HPP

#include <kfvm_Assembler.hpp>
#include <kfvm_CartesianGrid.hpp>
#include <kfvm_GridInterior.hpp>
#include <kfvm_LinearOperator.hpp>

#include <array>
#include <vector>

namespace kfvm {

/// One level of geometric multigrid on a structured grid: a finite-volume operator in
/// face form,
///   (A x)_i = m_i x_i + sum over the faces f of cell i of c_f (x_i - x_other(f)),
/// x_other = 0 across a boundary face (c_f there couples the cell to its boundary value).
/// Cells are numbered i + nx (j + ny k) and faces as Mesh numbers a CartesianGrid's (by
/// axis; along an axis as the cells, with one more along it). Symmetric when the c_f
/// come from a symmetric operator.
///
/// The finest level takes its values from an Assembler (Assembler::faceForm(), and m as
/// the diagonal less the faces); a coarser level (coarser()) merges cells in pairs along
/// every axis with more than one cell (the last alone where the count is odd) and is
/// rediscretized: m summed over the merged cells (transient and implicit source terms),
/// and c of a coarse face = the sum over the fine faces inside it of c_f d_f, over the
/// coarse face's distance d (the sum of D A over the face over the distance: exact for
/// diffusion with any coefficient and Dirichlet or Neumann boundaries; Robin boundaries
/// scaled the same way). Restriction sums a coarse cell's fine cells (finite-volume
/// residuals are integrals), prolongation copies a coarse value to its fine cells.
///
/// Structure (allocation) at construction; refresh() takes new values and allocates
/// nothing. Nothing here reads the mesh's face lists.
template <class ExecSpace>
class GridLevel final : public LinearOperator<ExecSpace> {
 public:
  /// The level of grid's cells.
  explicit GridLevel(const CartesianGrid& grid);

  /// True when some axis has more than one cell.
  bool canCoarsen() const;
  /// The next coarser level (structure only). Throws kfvm::Error when !canCoarsen().
  GridLevel coarser() const;

  /// Values from assembler's last assemble(): its mesh must be this level's grid.
  /// diagonal holds the operator's diagonal (LinearOperator::diagonal()).
  void refresh(const Assembler<ExecSpace>& assembler, const Vector<ExecSpace>& diagonal);
  /// Values from the next finer level (this == fine.coarser()'s structure).
  void refresh(const GridLevel& fine);

  /// b = R r: each cell of this level the sum of r over its cells of fine.
  void restrictFrom(const GridLevel& fine, const Vector<ExecSpace>& r,
                    const Vector<ExecSpace>& b) const;
  /// x += P e: each cell of fine takes e of its cell of this level.
  void prolongAddTo(const GridLevel& fine, const Vector<ExecSpace>& e,
                    const Vector<ExecSpace>& x) const;

  std::string description() const override;
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override;
  void diagonal(const Vector<ExecSpace>& d) const override;

  const std::array<int, 3>& cells() const { return cells_; }
  int dimension() const { return dimension_; }
  Ordinal numCells() const { return space_.size(); }

  /// What the kernels read (Details).
  struct Data {
    GridInterior grid;
    int dimension;
    int cells[3];
    Ordinal firstFace[3];
    DeviceView<Real*, ExecSpace> faces, mass, diagonal;
    DeviceView<Real*, ExecSpace> distances[3];  // per axis, by face index along it
  };
  const Data& data() const { return data_; }

 private:
  GridLevel(int dimension, const std::array<std::vector<double>, 3>& vertices);

  int dimension_;
  std::array<int, 3> cells_;
  std::array<std::vector<double>, 3> vertices_;
  Ordinal numFaces_ = 0;
  VectorSpace<ExecSpace> space_;
  Data data_;
};

}  // namespace kfvm

#endif
