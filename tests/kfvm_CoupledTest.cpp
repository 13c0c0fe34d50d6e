// Coupled block systems: bad input. Cahn-Hilliard in the (phi, mu) form is
// kfvm_CahnHilliardTest.cpp.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_CoupledStepper.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

TEST(Coupled, MissingEquationsAndBadIndicesAreErrors) {
  Mesh<Space> mesh(CartesianGrid::uniform1D(6, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0).diffusion(0, 1, 1.0);
  expectError([&] { system.validate(); },
              {"equation 1 of the coupled system has no term acting on any variable"});
  expectError([&] { system.diffusion(2, 0, 1.0); }, {"equation index 2 is out of range"});
  expectError([&] { system.source(0, 5, Polynomial{1}); },
              {"variable index 5 is out of range"});
  expectError([&] { CoupledSystem<Space>(mesh, 5); }, {"1 to 4 variables, got 5"});
  CoupledSystem<Space> unused(mesh, 2);
  unused.transient(0, 0).implicitSource(1, 0, 1.0);
  expectError([&] { unused.validate(); },
              {"variable 1 of the coupled system appears in no equation"});
  expectError(
      [&] {
        CoupledStepper<Space> stepper(system,
                                      makeLinearSolver<Space>("gmres", Parameters{}));
      },
      {"equation 1 of the coupled system has no term"});
}

}  // namespace
}  // namespace kfvm::Test
