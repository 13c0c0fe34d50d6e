#include "kfvm_Manufactured.hpp"

#include <kfvm_KokkosCompat.hpp>

#include <cmath>

namespace kfvm::Test {

namespace {}

double manufactured3D(double x, double y, double z) {
  return std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z) + y;
}

void setManufacturedSource3D(CellField<TestExecSpace>& s,
                             const Mesh<TestExecSpace>& mesh) {
  const double p = pi;
  setFromCellCentres(
      s, mesh, KOKKOS_LAMBDA(Real xr, Real yr, Real zr) {
        const double x = xr, y = yr, z = zr;
        const double sx = Compat::sin(p * x), cx = Compat::cos(p * x);
        const double sy = Compat::sin(p * y), cy = Compat::cos(p * y);
        const double sz = Compat::sin(p * z), cz = Compat::cos(p * z);
        const double D = 1 + x * y * z;
        const double phiX = p * cx * sy * sz, phiY = p * sx * cy * sz + 1,
                     phiZ = p * sx * sy * cz;
        const double laplacian = -3 * p * p * sx * sy * sz;
        return Real(-(y * z * phiX + x * z * phiY + x * y * phiZ + D * laplacian));
      });
}

}  // namespace kfvm::Test
