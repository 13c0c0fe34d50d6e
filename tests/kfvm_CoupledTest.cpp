// Coupled block systems: Cahn-Hilliard in the (phi, mu) form from random initial data.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_CoupledStepper.hpp>

#include <cmath>
#include <random>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Discrete Cahn-Hilliard free energy: sum_c V (phi^2 - 1)^2 / 4 + sum over interior
/// faces of eps^2 / 2 (A / d) (phi_N - phi_O)^2.
double freeEnergy(const Mesh<Space>& mesh, const std::vector<double>& phi,
                  double epsilon) {
  const auto volumes =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellVolumes());
  const auto faceCells =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCells());
  const auto areas =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceAreas());
  const auto distances =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceDistances());
  double energy = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double w = phi[c] * phi[c] - 1;
    energy += volumes(c) * w * w / 4;
  }
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) {
    if (faceCells(f, 1) < 0) continue;
    const double jump = phi[faceCells(f, 1)] - phi[faceCells(f, 0)];
    energy += epsilon * epsilon / 2 * areas(f) / distances(f) * jump * jump;
  }
  return energy;
}

TEST(Coupled, CahnHilliard2DConservesMassAndNeverRaisesTheFreeEnergy) {
  const int n = 24;
  const double length = 12, epsilon = 1, mobility = 1, dt = 0.1;
  Mesh<Space> mesh(CartesianGrid::uniform2D(n, n, length, length));
  CoupledSystem<Space> system(mesh, 2);  // variables: 0 = phi, 1 = mu
  system.transient(0, 0)
      .diffusion(0, 1, mobility)               // dphi/dt = div(M grad mu)
      .diffusion(1, 0, epsilon * epsilon)      // 0 = div(eps^2 grad phi)
      .implicitSource(1, 1, 1.0)               //     + mu
      .source(1, 0, Polynomial{0, 1, 0, -1});  //     + phi - phi^3
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<double> initial(mesh.numCells());
  for (auto& value : initial) value = noise(random);
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "phi"),
                                       CellField<Space>(mesh, "mu")};
  fields[0].fromHost(initial);
  CoupledStepper<Space> stepper(
      system, makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-13)},
                                                {"max_iterations", "5000"},
                                                {"restart", "60"}}));
  stepper.setSweeps(30, Real(solverTolerance(1e-11)));
  const double mass0 = integrate(fields[0], mesh);
  double energy = freeEnergy(mesh, initial, epsilon);
  const double energy0 = energy;
  double worstMassDrift = 0;
  int maxSweeps = 0;
  for (int step = 0; step < 200; ++step) {
    const auto report = stepper.step(fields, Real(dt));
    ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    maxSweeps = std::max(maxSweeps, report.sweeps);
    const double mass = integrate(fields[0], mesh);
    worstMassDrift = std::max(worstMassDrift, std::abs(mass - mass0));
    const double next = freeEnergy(mesh, toHost(fields[0].values()), epsilon);
    EXPECT_LE(next, energy * (1 + tolerance(1e-12))) << "step " << step;
    energy = next;
  }
  const double area = length * length;
  std::printf(
      "Cahn-Hilliard 2D (phi, mu): energy %.6f -> %.6f over 200 steps, mass drift "
      "%.3e of the area, at most %d sweeps\n",
      energy0, energy, worstMassDrift / area, maxSweeps);
  EXPECT_LT(worstMassDrift / area, tolerance(1e-10));
  EXPECT_LT(energy, 0.95 * energy0);  // the mixture separates (measured: -8.8 %)
}

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
