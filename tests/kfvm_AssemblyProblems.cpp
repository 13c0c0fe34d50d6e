// The fields and problems the assembly and matrix-free tests share (one definition).
#include "kfvm_AssemblyProblems.hpp"

namespace kfvm::Test {

void setSmoothDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(1) + x * x + Real(0.5) * y + z;
      });
}

void setWavyField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(7) * x + Real(3) * y) + z;
      });
}

void setLinearField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return x - Real(2) * y * z + Real(1); });
}

void setPositiveBumps(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(9) * x) * Compat::sin(Real(5) * y + z) + Real(2);
      });
}

void setLayeredDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(0.5) + x + y * z; });
}

MixedProblem3D::MixedProblem3D(const CartesianGrid& grid, bool convect)
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

}  // namespace kfvm::Test
