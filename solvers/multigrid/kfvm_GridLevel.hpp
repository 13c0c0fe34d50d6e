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
///   (A x)_i = m_i x_i + sum over the interior faces f of cell i of c_f (x_i - x_other)
///                     + sum over its boundary faces of K_f a_f / (a_f d_f + b_f) x_i,
/// c_f = theta D A / d of an interior face, K_f = theta D A of a boundary face with its
/// Robin a and b (Dirichlet b = 0, Neumann a = 0) and distance d. Cells are numbered
/// i + nx (j + ny k) and faces as Mesh numbers a CartesianGrid's (by axis; along an axis
/// as the cells, with one more along it). Symmetric.
///
/// The finest level takes its values from an Assembler (Assembler::faceForm(), and m as
/// the diagonal less the faces); a coarser level (coarser()) merges cells in pairs along
/// the axes with more than one cell whose mean spacing is below twice the smallest
/// one's (semi-coarsening of stretched cells; every axis for cells about as long along
/// each), the last alone where the count is odd, and is rediscretized: m summed over the
/// merged cells (transient and implicit source terms); c of a coarse interior face the
/// sum over the fine faces inside it of c_f d_f (their D A) over the coarse distance;
/// K of a coarse boundary face their sum, a and b their mean. For constant coefficients
/// that is the equation assembled on the coarse grid, any boundary condition (tested);
/// a variable D is averaged over the coarse face. GridTransfer moves vectors between two
/// levels.
///
/// Periodic axes (one process): the first and last cells along such an axis are
/// neighbours through a face with c_f like an interior one, stored at both ends of the
/// line (its face 0 and face n, distance: centre to centre across the ends); the axis has
/// no boundary slots in use. Such an axis is merged while its cell count is 2 or a
/// multiple of 4, so that every level has an even count along it (red-black
/// Gauss-Seidel's colours stay independent) or one cell.
///
/// Structure (allocation) at construction; refresh() takes new values and allocates
/// nothing. Nothing here reads the mesh's face lists.
///
/// Across MPI ranks a level is one rank's block of the global level with its ghost
/// layers (Placement): its cells are numbered over the ghosted block, the rows of its
/// owned cells are the global level's rows (a coarse face between an owned and a ghost
/// cell sums the fine faces on it, which the fine block holds), the ghost rows are
/// partial and never used, and a side facing another rank is no boundary. A periodic
/// axis across ranks (Placement::wrapped) keeps each block an ordinary grid: its ghosts
/// beyond an end of the axis are the cells at the other end (the exchange's), indices
/// and vertices continued past the end (first may be negative), and no side is a
/// boundary.
template <class ExecSpace>
class GridLevel final : public LinearOperator<ExecSpace> {
 public:
  /// Where a level's cells lie in the global level: the global index of its cell 0,
  /// the global level's cell counts (0: the level's own), its owned cells' local
  /// range (ownedEnd 0: every cell), and the global level's periodic axes (the block
  /// wraps around them). One process: all defaults.
  struct Placement {
    std::array<int, 3> first{0, 0, 0}, global{0, 0, 0};
    std::array<int, 3> ownedBegin{0, 0, 0}, ownedEnd{0, 0, 0};
    std::array<bool, 3> wrapped{false, false, false};
  };

  /// The level of grid's cells, periodic along the axes given.
  explicit GridLevel(const CartesianGrid& grid,
                     const std::array<bool, 3>& periodic = {false, false, false});
  /// A rank's ghosted block (its vertices) of a global level placed as placement says;
  /// periodic axes on one process only (the default placement).
  GridLevel(int dimension, const std::array<std::vector<double>, 3>& vertices,
            const Placement& placement,
            const std::array<bool, 3>& periodic = {false, false, false});

  /// The vertices of the next coarser level of a grid with these vertices: cells merged
  /// in pairs along the axes allowed with more than one cell whose mean spacing is below
  /// twice the smallest one's, the last alone where the count is odd; merged[a] says
  /// which axes were.
  static std::array<std::vector<double>, 3> coarserVertices(
      int dimension, const std::array<std::vector<double>, 3>& vertices,
      const std::array<bool, 3>& allowed, std::array<bool, 3>& merged);

  /// True when coarser() merges some axis: one with more than one cell (on a periodic
  /// axis, 2 or a multiple of 4).
  bool canCoarsen() const;
  /// The next coarser level (structure only; the axes merged as above, periodic along
  /// the same axes). Throws kfvm::Error when !canCoarsen(); one process only.
  GridLevel coarser() const;

  /// Values from assembler's last assemble(): its mesh must be this level's grid.
  /// diagonal holds the operator's diagonal (LinearOperator::diagonal()).
  void refresh(const Assembler<ExecSpace>& assembler, const Vector<ExecSpace>& diagonal);
  /// Values from the next finer level (this == fine.coarser()'s structure; across ranks,
  /// the same rank's block of the coarser global level).
  void refresh(const GridLevel& fine);

  /// An upper bound of the eigenvalues of D^-1 A from the last refresh (Gershgorin:
  /// the largest 1 + (sum of a row's off-diagonal magnitudes) / its diagonal; at most 2),
  /// over the owned rows.
  double jacobiBound() const { return jacobiBound_; }
  /// A as a dense matrix (numCells() squared entries): for a direct solve of a small
  /// level.
  void dense(const DeviceView<Real**, ExecSpace>& a) const;

  std::string description() const override;
  const VectorSpace<ExecSpace>& space() const override { return space_; }
  void apply(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const override;
  void diagonal(const Vector<ExecSpace>& d) const override;

  const std::array<int, 3>& cells() const { return cells_; }
  const std::vector<double>& vertices(int axis) const { return vertices_[axis]; }
  int dimension() const { return dimension_; }
  const Placement& placement() const { return placement_; }
  const std::array<bool, 3>& periodic() const { return periodic_; }
  Ordinal numCells() const { return space_.size(); }

  /// What the kernels read (Details).
  struct Data {
    GridInterior grid;
    int dimension;
    int cells[3];
    Ordinal firstFace[3];
    DeviceView<Real*, ExecSpace> faces, mass, diagonal;
    Ordinal patchFirst[6];                        // the first boundary slot of each patch
    DeviceView<Real*, ExecSpace> robinA, robinB;  // per boundary slot
    DeviceView<Real*, ExecSpace> distances[3];    // per axis, by face index along it
    bool periodic[3], anyPeriodic;  // the kernels take the wraps only with some
    int first[3], global[3], ownedBegin[3], ownedEnd[3];  // the Placement
    bool wrapped[3];
    // True when the cells with neighbours on both sides along every axis have one
    // diagonal, and each of their faces along an axis one coefficient (to a relative
    // 64 epsilon): the kernels then read these numbers there instead of the arrays.
    bool uniform = false;
    Real uniformDiagonal = 0, uniformFaces[3] = {0, 0, 0};
  };
  const Data& data() const { return data_; }

 private:
  /// After new values: the uniform numbers and the Jacobi bound (one reduction).
  void summarize();
  /// The axes coarser() merges.
  std::array<bool, 3> mergeableAxes() const;

  int dimension_;
  std::array<int, 3> cells_;
  std::array<std::vector<double>, 3> vertices_;
  Placement placement_;
  std::array<bool, 3> periodic_{false, false, false};
  Ordinal numFaces_ = 0;
  Ordinal meshFaces_ = 0;  // the faces of the level's grid as a Mesh numbers them
  // On a periodic level: the finest refresh's face values in the Mesh's numbering.
  DeviceView<Real*, ExecSpace> fromMesh_;
  VectorSpace<ExecSpace> space_;
  Data data_;
  double jacobiBound_ = 2;
};

}  // namespace kfvm

#endif
