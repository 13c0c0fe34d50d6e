#ifndef KFVM_TEST_ASSEMBLY_PROBLEMS_HPP
#define KFVM_TEST_ASSEMBLY_PROBLEMS_HPP

// Fields and problems that the assembly and matrix-free tests share.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>

#include <cmath>

namespace kfvm::Test {

using Space = TestExecSpace;

// Device lambdas live in free functions: CUDA does not allow them in constructors or in
// gtest's private TestBody().
inline void setSmoothDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(1) + x * x + Real(0.5) * y + z;
      });
}

inline void setWavyField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(7) * x + Real(3) * y) + z;
      });
}

inline void setLinearField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return x - Real(2) * y * z + Real(1); });
}

inline void setPositiveBumps(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(9) * x) * Compat::sin(Real(5) * y + z) + Real(2);
      });
}

inline void setLayeredDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(0.5) + x + y * z; });
}

/// A 3D non-uniform mesh with variable D and every kind of boundary condition.
struct MixedProblem3D {
  Mesh<Space> mesh;
  CellField<Space> D;
  Equation<Space> equation;

  /// With convect, also a power-law convection term: the operator is non-symmetric.
  explicit MixedProblem3D(const CartesianGrid& grid, bool convect = false)
      : mesh(grid), D(mesh, "D"), equation(mesh) {
    setSmoothDiffusivity(D, mesh);
    equation.transient(2.0).diffusion(D).implicitSource(-0.25).source(1.0);
    if (convect) {
      const int dim = grid.dimension();
      equation.convection(7.0, dim >= 2 ? -4.0 : 0.0, dim >= 3 ? 3.0 : 0.0,
                          ConvectionScheme::PowerLaw);
    }
    if (mesh.hasPatch(Patch::Left)) {
      equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
    }
    if (mesh.hasPatch(Patch::Right)) {
      equation.boundary(Patch::Right, BoundaryCondition::robin(2.0, 1.0, 0.5));
    }
    if (mesh.hasPatch(Patch::Top)) {
      equation.boundary(Patch::Top, BoundaryCondition::neumann(-0.3));
    }
  }
};

/// A x on the host for the assembler's last assemble(), and its largest magnitude (the
/// scale of the matrix-free comparisons).
struct HostProduct {
  std::vector<double> values;
  double scale = 0;
};

inline HostProduct hostProduct(const Assembler<Space>& assembler,
                               const CellField<Space>& x) {
  Vector<Space> product("product", x.values().extent(0));
  multiply(assembler.matrix(), x.values(), product);
  HostProduct result{toHost(product)};
  for (double v : result.values) result.scale = std::max(result.scale, std::abs(v));
  return result;
}

}  // namespace kfvm::Test

#endif
