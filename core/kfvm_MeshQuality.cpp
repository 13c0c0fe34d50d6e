#include <kfvm_Backends.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_MeshQuality.hpp>

#include <cmath>

namespace kfvm {

namespace {

/// Per interior face: its angle (degrees), and its skewness.
template <class ExecSpace>
struct FaceQuality {
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*[3], ExecSpace> normals, faceCentres, cellCentres;
  DeviceView<const Real* [3], ExecSpace> shifts;  // periodic faces' (Mesh::faceShifts)

  KOKKOS_INLINE_FUNCTION bool measure(Ordinal f, double& degrees, double& skew) const {
    const Ordinal o = faceCells(f, 0), n = faceCells(f, 1);
    if (n < 0) return false;
    double d[3], length = 0, along = 0, toFace = 0;
    for (int a = 0; a < 3; ++a) {
      const double shift = shifts.extent(0) > 0 ? double(shifts(f, a)) : 0.0;
      d[a] = double(cellCentres(n, a)) + shift - double(cellCentres(o, a));
      length += d[a] * d[a];
      along += d[a] * double(normals(f, a));
      toFace +=
          (double(faceCentres(f, a)) - double(cellCentres(o, a))) * double(normals(f, a));
    }
    length = Compat::sqrt(length);
    // The angle from |d x n| and d . n: accurate near 0, where acos(d . n / |d|) is not.
    double cross = 0;
    for (int a = 0; a < 3; ++a) {
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      const double component =
          d[b] * double(normals(f, c)) - d[c] * double(normals(f, b));
      cross += component * component;
    }
    degrees = Compat::atan2(Compat::sqrt(cross), along) * 57.29577951308232;
    // Where the centroid line crosses the face's plane: o + s d with s = toFace / along.
    const double s = along != 0 ? toFace / along : 0;
    double offset = 0;
    for (int a = 0; a < 3; ++a) {
      const double miss =
          double(cellCentres(o, a)) + s * d[a] - double(faceCentres(f, a));
      offset += miss * miss;
    }
    skew = length > 0 ? Compat::sqrt(offset) / length : 0;
    return true;
  }
};

}  // namespace

template <class ExecSpace>
MeshQuality meshQuality(const Mesh<ExecSpace>& mesh) {
  const FaceQuality<ExecSpace> q{mesh.faceCells(), mesh.faceNormals(), mesh.faceCentres(),
                                 mesh.cellCentres(), mesh.faceShifts()};
  MeshQuality quality;
  double sum = 0, maxDegrees = 0, maxSkew = 0;
  Ordinal count = 0, over70 = 0;
  Kokkos::parallel_reduce(
      "kfvm::meshQuality::sums", indexRange(mesh.space(), mesh.numFaces()),
      KOKKOS_LAMBDA(Ordinal f, double& total, Ordinal& faces, Ordinal& steep) {
        double degrees = 0, skew = 0;
        if (!q.measure(f, degrees, skew)) return;
        total += degrees;
        faces += 1;
        steep += degrees > 70 ? 1 : 0;
      },
      sum, count, over70);
  Kokkos::parallel_reduce(
      "kfvm::meshQuality::maxima", indexRange(mesh.space(), mesh.numFaces()),
      KOKKOS_LAMBDA(Ordinal f, double& angle, double& skewness) {
        double degrees = 0, skew = 0;
        if (!q.measure(f, degrees, skew)) return;
        angle = degrees > angle ? degrees : angle;
        skewness = skew > skewness ? skew : skewness;
      },
      Kokkos::Max<double>(maxDegrees), Kokkos::Max<double>(maxSkew));
  quality.interiorFaces = count;
  quality.meanNonOrthogonality = count > 0 ? sum / count : 0;
  quality.maxNonOrthogonality = count > 0 ? maxDegrees : 0;
  quality.maxSkewness = count > 0 ? maxSkew : 0;
  quality.facesOver70Degrees = over70;
  return quality;
}

#define KFVM_INSTANTIATE_MESH_QUALITY(Space) \
  template MeshQuality meshQuality<Space>(const Mesh<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MESH_QUALITY)

}  // namespace kfvm
