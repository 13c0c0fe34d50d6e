#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_LeastSquaresGradient.hpp>
#include <detail/kfvm_NonOrthogonalCorrection.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

namespace kfvm::Details {

namespace {

/// rhs(P) += scale * sum_f t_f . grad_f over the cell's interior and Dirichlet faces,
/// t_f = D_f (A n - A d_PN / d), or with a tensor A Gamma n - (n.Gamma.n) A d_PN / d.
template <class ExecSpace>
struct CorrectionKernel {
  AssemblyGeometry<ExecSpace> g;
  DeviceView<const Real* [3], ExecSpace> gradient;
  Real scale;
  Vector<ExecSpace> rhs;
  bool hasTensor;
  TensorCoefficient<ExecSpace> gamma;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real sum = 0;
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n < 0 && !(g.robinB(g.faceSlots(f)) == 0)) continue;  // flux given or mixed
      const Real w = n >= 0 ? g.ownerDistance(f) / g.distances(f) : Real(0);
      const Real A = g.areas(f), dn = g.distances(f);
      const Real D = g.faceDiffusivity(f);  // n.Gamma.n with a tensor
      Real conormal[3] = {0, 0, 0};         // Gamma n
      if (hasTensor) gamma.conormal(f, g.normals, conormal);
      Real flux = 0;
      for (int a = 0; a < 3; ++a) {
        const Real d =
            n >= 0 ? g.centreStep(f, a) : g.faceCentres(f, a) - g.cellCentres(o, a);
        const Real normal = hasTensor ? conormal[a] : D * g.normals(f, a);
        const Real t = A * normal - D * A * d / dn;
        const Real grad =
            n >= 0 ? (1 - w) * gradient(o, a) + w * gradient(n, a) : gradient(o, a);
        flux += t * grad;
      }
      sum += (o == cell ? Real(1) : Real(-1)) * flux;
    }
    rhs(cell) += scale * sum;
  }
};

}  // namespace

template <class ExecSpace>
void addNonOrthogonalCorrection(const Equation<ExecSpace>& equation, Real theta,
                                const Vector<ExecSpace>& phi,
                                const Vector<ExecSpace>& phiOld,
                                const DeviceView<Real* [3], ExecSpace>& gradient,
                                const Vector<ExecSpace>& rhs) {
  const AssemblyGeometry<ExecSpace> g(equation);
  const auto& mesh = equation.mesh();
  const bool hasTensor = equation.hasDiffusionTensor();
  const TensorCoefficient<ExecSpace> gamma = equation.diffusionTensor();
  LeastSquaresGradient<ExecSpace> leastSquares{
      g, phi, gradient, mesh.dimension(), hasTensor, gamma};
  CorrectionKernel<ExecSpace> correction{g, gradient, 0, rhs, hasTensor, gamma};
  for (int level = 0; level < 2; ++level) {
    const Real scale = level == 0 ? theta : 1 - theta;
    if (scale == 0) continue;
    const Vector<ExecSpace>& x = level == 0 ? phi : phiOld;
    leastSquares.x = x;
    correction.scale = scale;
    if (equation.correctionGradient() == CellGradient::LeastSquares)
      forEachCell("kfvm::Assembler::leastSquaresGradient", mesh, leastSquares);
    else
      forEachCell("kfvm::Assembler::gaussGradient", mesh,
                  GradientKernel<ExecSpace>{g, x, gradient, GradientBoundary::Robin});
    forEachCell("kfvm::Assembler::nonOrthogonalCorrection", mesh, correction);
  }
}

#define KFVM_INSTANTIATE_NON_ORTHOGONAL_CORRECTION(Space)                       \
  template void addNonOrthogonalCorrection<Space>(                              \
      const Equation<Space>&, Real, const Vector<Space>&, const Vector<Space>&, \
      const DeviceView<Real* [3], Space>&, const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_NON_ORTHOGONAL_CORRECTION)

}  // namespace kfvm::Details
