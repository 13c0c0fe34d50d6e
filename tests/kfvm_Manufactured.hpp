#ifndef KFVM_MANUFACTURED_HPP
#define KFVM_MANUFACTURED_HPP

// A manufactured steady diffusion problem in 3D: phi = sin(pi x) sin(pi y) sin(pi z) + y
// with D = 1 + x y z, and the source s = -div(D grad phi) that makes it exact.

#include "kfvm_TestSpace.hpp"

#include <kfvm_Field.hpp>

#include <cmath>

namespace kfvm::Test {

/// The L2 norm of phi - exact(x, y, z) over the cells (values at the cell centres,
/// weighted by the cell volumes).
template <class Exact>
double l2Error(const CellField<TestExecSpace>& phi, const Mesh<TestExecSpace>& mesh,
               const Exact& exact) {
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  const auto volumes =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellVolumes());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  double sum = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double e =
        double(values(c)) -
        exact(double(centres(c, 0)), double(centres(c, 1)), double(centres(c, 2)));
    sum += e * e * double(volumes(c));
  }
  return std::sqrt(sum);
}

double manufactured3D(double x, double y, double z);

/// s at the cell centres.
void setManufacturedSource3D(CellField<TestExecSpace>& s,
                             const Mesh<TestExecSpace>& mesh);

}  // namespace kfvm::Test

#endif
