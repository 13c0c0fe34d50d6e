#include <kfvm_Backends.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_PointLocation.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kfvm {

template <class ExecSpace>
Ordinal cellContaining(const Mesh<ExecSpace>& mesh, const std::array<double, 3>& point) {
  const auto offsets = mesh.cellFaceOffsets();
  const auto faces = mesh.cellFaces();
  const auto faceCells = mesh.faceCells();
  const auto normals = mesh.faceNormals();
  const auto centres = mesh.faceCentres();
  // A periodic face (a periodic grid's, or joined patches'): its second cell sees it
  // moved back by its shift.
  const auto shifts = mesh.faceShifts();
  const bool periodic = shifts.extent(0) > 0;
  const double p[3] = {point[0], point[1], point[2]};
  // Round-off of the coordinates (in Real): a point on a face is inside both of its
  // cells.
  double scale = 1;
  for (double x : point) scale = std::max(scale, std::abs(x));
  const double tolerance = 1e3 * double(std::numeric_limits<Real>::epsilon()) * scale;
  const int dimension = mesh.dimension();
  Ordinal found = -1;
  Kokkos::parallel_reduce(
      "kfvm::cellContaining", indexRange(mesh.space(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal cell, Ordinal & first) {
        for (Offset s = offsets(cell); s < offsets(cell + 1); ++s) {
          const Ordinal f = faces(s);
          const bool owner = faceCells(f, 0) == cell;
          const double sign = owner ? 1 : -1;
          double outside = 0;
          for (int a = 0; a < dimension; ++a) {
            const double back = periodic && !owner ? double(shifts(f, a)) : 0.0;
            outside += (p[a] - double(centres(f, a)) + back) * double(normals(f, a));
          }
          if (sign * outside > tolerance) return;
        }
        first = cell < first ? cell : first;
      },
      Kokkos::Min<Ordinal>(found));
  // Min's identity is the largest Ordinal: no cell holds the point.
  return found >= 0 && found < mesh.numCells() ? found : Ordinal(-1);
}

#define KFVM_INSTANTIATE_POINT_LOCATION(Space)               \
  template Ordinal cellContaining<Space>(const Mesh<Space>&, \
                                         const std::array<double, 3>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_POINT_LOCATION)

}  // namespace kfvm
