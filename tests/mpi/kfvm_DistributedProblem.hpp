#ifndef KFVM_DISTRIBUTED_PROBLEM_HPP
#define KFVM_DISTRIBUTED_PROBLEM_HPP

// The problem the distributed tests solve on one process and across ranks (native and
// Trilinos paths): 3D transient diffusion with a variable coefficient, a source,
// optionally upwind convection, and Dirichlet, Neumann and Robin sides.
#include "../kfvm_TestSpace.hpp"

#include <kfvm_Equation.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <utility>

namespace kfvm::Test {

/// D = 1 + x y + z.
struct ProblemCoefficient {
  KOKKOS_INLINE_FUNCTION Real operator()(Real x, Real y, Real z) const {
    return 1 + x * y + z;
  }
};

/// phi0 = sin(2x) cos(y) + z.
struct ProblemStart {
  KOKKOS_INLINE_FUNCTION Real operator()(Real x, Real y, Real z) const {
    return Compat::sin(2 * x) * Compat::cos(y) + z;
  }
};

/// D and phi0 above on every cell of mesh. Named functors, not KOKKOS_LAMBDA: this inline
/// function is compiled in several test files, and nvcc's lambda wrappers in it broke
/// the one-definition rule (kernels/kfvm_Blas1.hpp): at -O3 on Cuda the first
/// fillFields of DistributedMultigrid's test called through a null pointer.
inline void fillFields(const Mesh<TestExecSpace>& mesh, CellField<TestExecSpace>& D,
                       CellField<TestExecSpace>& phi) {
  setFromCellCentres(D, mesh, ProblemCoefficient{});
  setFromCellCentres(phi, mesh, ProblemStart{});
}

/// The problem's conditions on the patches where onBoundary says so: Dirichlet (left,
/// right), Neumann (bottom) and Robin (top).
template <class OnBoundary>
void setConditions(Equation<TestExecSpace>& equation, const OnBoundary& onBoundary) {
  const std::pair<Patch, BoundaryCondition> conditions[] = {
      {Patch::Left, BoundaryCondition::dirichlet(1.0)},
      {Patch::Right, BoundaryCondition::dirichlet(0.0)},
      {Patch::Bottom, BoundaryCondition::neumann(0.5)},
      {Patch::Top, BoundaryCondition::robin(1.0, 1.0, 0.2)}};
  for (const auto& [patch, condition] : conditions)
    if (onBoundary(patch)) equation.boundary(patch, condition);
}

/// The problem's terms, and its conditions on the patches where onBoundary says so.
template <class OnBoundary>
void setUp(Equation<TestExecSpace>& equation, const CellField<TestExecSpace>& D,
           bool convect, const OnBoundary& onBoundary,
           ConvectionScheme scheme = ConvectionScheme::Upwind) {
  equation.transient(1.0).diffusion(D).source(0.3);
  if (convect) equation.convection(0.5, -0.3, 0.2, scheme);
  setConditions(equation, onBoundary);
}

}  // namespace kfvm::Test

#endif
