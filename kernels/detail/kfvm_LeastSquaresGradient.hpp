#ifndef KFVM_DETAIL_LEAST_SQUARES_GRADIENT_HPP
#define KFVM_DETAIL_LEAST_SQUARES_GRADIENT_HPP

// The least-squares cell gradient kernel (cellGradients, the non-orthogonal correction).

#include <detail/kfvm_AssemblyKernels.hpp>
#include <kfvm_KokkosCompat.hpp>

namespace kfvm::Details {

/// Least-squares cell gradient: rows d . grad = x_j - x_P weighted by 1 / |d|^2 for the
/// face neighbours and for boundary faces with a known value (a > 0: the Robin face
/// value), n . grad = g / b for Neumann faces (a = 0). Gauss where the rows do not fix
/// the gradient (fewer independent directions than the dimension).
template <class ExecSpace>
struct LeastSquaresGradient {
  AssemblyGeometry<ExecSpace> g;
  Vector<ExecSpace> x;
  DeviceView<Real* [3], ExecSpace> gradient;
  int dimension;
  bool hasTensor;
  TensorCoefficient<ExecSpace> gamma;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real M[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, r[3] = {0, 0, 0};
    const Real value = x(cell);
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      Real d[3], difference, weight = 1;
      if (n >= 0) {
        const Ordinal other = o == cell ? n : o;
        const Real sign = o == cell ? Real(1) : Real(-1);
        for (int a = 0; a < 3; ++a) d[a] = sign * g.centreStep(f, a);
        difference = x(other) - value;
      } else {
        const Ordinal bs = g.faceSlots(f);
        const Real ra = g.robinA(bs), rb = g.robinB(bs), dn = g.distances(f);
        if (ra > 0) {
          for (int a = 0; a < 3; ++a) d[a] = g.faceCentres(f, a) - g.cellCentres(cell, a);
          difference = (g.robinG(bs) * dn + rb * value) / (ra * dn + rb) - value;
        } else {  // the (co)normal derivative is known: n, or Gamma n / n.Gamma.n
          for (int a = 0; a < 3; ++a) d[a] = g.normals(f, a);
          if (hasTensor) {
            Real conormal[3], normal = 0;
            gamma.conormal(f, g.normals, conormal);
            for (int a = 0; a < 3; ++a) normal += g.normals(f, a) * conormal[a];
            for (int a = 0; a < 3; ++a) d[a] = conormal[a] / normal;
          }
          difference = g.robinG(bs) / rb;
        }
      }
      if (n >= 0 || g.robinA(g.faceSlots(f)) > 0)
        weight = Real(1) / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      for (int a = 0; a < 3; ++a) {
        r[a] += weight * d[a] * difference;
        for (int b = 0; b < 3; ++b) M[a][b] += weight * d[a] * d[b];
      }
    }
    for (int a = dimension; a < 3; ++a) {  // no gradient off the mesh's plane
      for (int b = 0; b < 3; ++b) M[a][b] = M[b][a] = 0;
      M[a][a] = 1;
      r[a] = 0;
    }
    const Real c00 = M[1][1] * M[2][2] - M[1][2] * M[2][1];
    const Real c01 = M[1][2] * M[2][0] - M[1][0] * M[2][2];
    const Real c02 = M[1][0] * M[2][1] - M[1][1] * M[2][0];
    const Real det = M[0][0] * c00 + M[0][1] * c01 + M[0][2] * c02;
    const Real scale = M[0][0] * M[1][1] * M[2][2];
    if (!(Compat::abs(det) > Real(1e-10) * scale)) {
      GradientKernel<ExecSpace>{g, x, gradient, GradientBoundary::Robin}(cell);
      return;
    }
    const Real inverse[3][3] = {{c00, M[0][2] * M[2][1] - M[0][1] * M[2][2],
                                 M[0][1] * M[1][2] - M[0][2] * M[1][1]},
                                {c01, M[0][0] * M[2][2] - M[0][2] * M[2][0],
                                 M[0][2] * M[1][0] - M[0][0] * M[1][2]},
                                {c02, M[0][1] * M[2][0] - M[0][0] * M[2][1],
                                 M[0][0] * M[1][1] - M[0][1] * M[1][0]}};
    for (int a = 0; a < 3; ++a)
      gradient(cell, a) =
          (inverse[a][0] * r[0] + inverse[a][1] * r[1] + inverse[a][2] * r[2]) / det;
  }
};

}  // namespace kfvm::Details

#endif
