// Solves steady 1D diffusion with an installed kfvm and checks the linear profile.
#include <kfvm_ImplicitStepper.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  kfvm::Mesh<Space> mesh(kfvm::CartesianGrid::uniform1D(20, 1.0));
  kfvm::Equation<Space> equation(mesh);
  equation.diffusion(1.0)
      .boundary(kfvm::Patch::Left, kfvm::BoundaryCondition::dirichlet(0.0))
      .boundary(kfvm::Patch::Right, kfvm::BoundaryCondition::dirichlet(1.0));
  kfvm::CellField<Space> phi(mesh, "phi");
  kfvm::ImplicitStepper<Space> stepper(equation, kfvm::makeLinearSolver<Space>("cg"));
  const auto report = stepper.solveSteady(phi);
  const auto values = phi.toHost();
  const double error = std::abs(values[10] - 10.5 / 20.0);
  std::printf("kfvm consumer: %s, %d iterations, phi(x=0.525) error %.2e\n",
              report.converged ? "converged" : "NOT converged", report.iterations, error);
  return report.converged && error < 1e-6 ? 0 : 1;
}
