#ifndef KFVM_STENCIL_JACOBI_CG_HPP
#define KFVM_STENCIL_JACOBI_CG_HPP

#include <kfvm_JacobiCgPasses.hpp>
#include <kfvm_StencilOperator.hpp>

namespace kfvm {

/// JacobiCgPasses over the matrix-free stencil, for uniform interior weights (constant D
/// on a uniform grid, no convection) in 3D with the Columns loop (the default on
/// devices): each pass walks StencilColumnTiles' chunks and computes A p there from p's
/// values in the chunk's column and its four in-plane neighbours, as
/// StencilOperator::apply() does; the direction pass computes those values of p from r,
/// w and the previous p as it reads them. Where the stencil's interior diagonal is one
/// number (StencilOperator::interiorCell()), so is w's: its entry at that cell stands
/// for every interior cell, and w is read from memory only at the grid's boundary cells.
/// The same numbers as CG's three-kernel iteration to rounding.
template <class ExecSpace>
class StencilJacobiCg final : public JacobiCgPasses<ExecSpace> {
 public:
  /// True when the passes can serve stencil (see above).
  static bool available(const StencilOperator<ExecSpace>& stencil);
  /// Throws kfvm::Error when they cannot. stencil must outlive this.
  explicit StencilJacobiCg(const StencilOperator<ExecSpace>& stencil);

  void direction(const Vector<ExecSpace>& weights, const Vector<ExecSpace>& r,
                 const Vector<ExecSpace>& pOld, const Vector<ExecSpace>& pNew,
                 const CgSumsView<ExecSpace>& previous,
                 const CgSumsView<ExecSpace>& beforePrevious, bool first,
                 const DeviceScalar<ExecSpace>& pAp) const override;
  void update(const Vector<ExecSpace>& weights, const Vector<ExecSpace>& p,
              const Vector<ExecSpace>& x, const Vector<ExecSpace>& r,
              const CgSumsView<ExecSpace>& previous, const DeviceScalar<ExecSpace>& pAp,
              const CgSumsView<ExecSpace>& sums) const override;

 private:
  void checkSizes(const char* pass, std::initializer_list<Ordinal> sizes) const;

  const StencilOperator<ExecSpace>* stencil_;
  StencilColumnTiles tiles_;
  BlockReduction<double, ExecSpace> directionSums_;
  BlockReduction<CgSums, ExecSpace> updateSums_;
};

}  // namespace kfvm

#endif
