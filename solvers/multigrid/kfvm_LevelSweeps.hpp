#ifndef KFVM_LEVEL_SWEEPS_HPP
#define KFVM_LEVEL_SWEEPS_HPP

#include <kfvm_GridLevel.hpp>

#include <memory>

namespace kfvm {

namespace Details {
struct LevelBoxes;
}

/// The sweeps of multigrid over one GridLevel, each one pass: the residual, the halves
/// of a red-black Gauss-Seidel sweep, and the steps of a Jacobi-preconditioned
/// Chebyshev iteration in its three-term form
/// (x_next = x + a (x - x_previous) + c D^-1 (b - A x): 4 vectors a step, no
/// direction vector). With columns, a uniform 3D level (GridLevel::Data::uniform) runs
/// the residual and the Chebyshev steps in two kernels: its interior box in column
/// chunks (every load of a chunk before its first store, no coefficient array read) and
/// the shell around it cell by cell (detail/kfvm_LevelColumns.hpp); other levels go
/// cell by cell. Reads the level's values at each call (refresh() may change them);
/// allocates nothing.
template <class ExecSpace>
class LevelSweeps {
 public:
  /// level must outlive this. columns = false: cell by cell on every level.
  explicit LevelSweeps(const GridLevel<ExecSpace>& level, bool columns = true);

  /// r = b - A x.
  void residual(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                const Vector<ExecSpace>& r) const;
  /// x = scale D^-1 b (a Chebyshev iteration's first step from x = 0).
  void scaledJacobi(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                    Real scale) const;
  /// One half of a red-black Gauss-Seidel sweep, in place: the cells of colour color
  /// (the parity of i + j + k) take x_i += (b - A x)_i / A_ii, reading only the other
  /// colour. fromZero: x is taken as 0 and written everywhere (the other colour 0).
  void gaussSeidel(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x, int color,
                   bool fromZero) const;
  /// next = x + a (x - previous) + c D^-1 (b - A x). With a = 0 previous is not read;
  /// an empty previous stands for 0. next may be previous (updated in place), not x.
  void chebyshevStep(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                     const Vector<ExecSpace>& previous, const Vector<ExecSpace>& next,
                     Real a, Real c) const;
  /// The first two steps from x = 0 in one pass over b (2 vectors instead of 5):
  /// out = chebyshevStep(b, x1, 0, out, a, c) with x1 = scale D^-1 b. One process only
  /// (b's ghost cells are read, not exchanged).
  void chebyshevStart(const Vector<ExecSpace>& b, const Vector<ExecSpace>& out,
                      Real scale, Real a, Real c) const;
  /// The step after chebyshevStart(b, x, startScale, ...): previous is startScale D^-1 b,
  /// computed instead of read (3 vectors instead of 4). next may not be x.
  void chebyshevStepAfterStart(const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                               const Vector<ExecSpace>& next, Real a, Real c,
                               Real startScale) const;

 private:
  template <bool Step>
  void sweep(const char* label, const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
             const Vector<ExecSpace>& previous, const Vector<ExecSpace>& out, Real a,
             Real c, Real startScale) const;

  /// True when the sweeps split the level (uniform 3D, columns asked for).
  bool byColumns() const;
  /// The interior kernel over boxes's chunks, then the shell kernel over its shell.
  template <class Interior, class Shell>
  void split(const char* label, const Details::LevelBoxes& boxes,
             const Interior& interior, const Shell& shell) const;

  const GridLevel<ExecSpace>* level_;
  bool columns_;
  // The interior box and shell for the residual and steps (margin 1) and for
  // chebyshevStart (margin 2); on 3D levels with columns.
  std::shared_ptr<const Details::LevelBoxes> boxes_, startBoxes_;
};

}  // namespace kfvm

#endif
