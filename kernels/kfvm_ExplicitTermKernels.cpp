#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_ExplicitTermKernels.hpp>
#include <kfvm_Backends.hpp>

namespace kfvm::Details {

namespace {

template <class ExecSpace>
struct ExplicitDiffusionKernel {
  AssemblyGeometry<ExecSpace> g;
  Coefficient<ExecSpace> D;
  bool throughBoundary;
  Vector<ExecSpace> x, rhs;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const Real value = x(cell);
    Real inflow = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n >= 0) {
        const Ordinal other = o == cell ? n : o;
        inflow += D(f) * g.areas(f) / g.distances(f) * (x(other) - value);
      } else if (throughBoundary) {
        const Ordinal bs = g.faceSlots(f);
        const BoundaryFlux flux =
            boundaryFlux(D(f) * g.areas(f), g.robinA(bs), g.robinB(bs), g.robinG(bs),
                         g.distances(f), Real(0), g.scheme);
        inflow += flux.cB - flux.aB * value;
      }
    }
    rhs(cell) += inflow;
  }
};

}  // namespace

template <class ExecSpace>
void addExplicitTerms(const Equation<ExecSpace>& equation,
                      const Vector<ExecSpace>& iterate, const Vector<ExecSpace>& rhs) {
  if (!equation.hasExplicitDiffusion()) return;
  forEachCell(
      "kfvm::Assembler::explicitDiffusion", equation.mesh(),
      ExplicitDiffusionKernel<ExecSpace>{
          AssemblyGeometry<ExecSpace>(equation), equation.explicitDiffusionCoefficient(),
          equation.explicitDiffusionBoundary() ==
              ExplicitDiffusionBoundary::EquationConditions,
          iterate, rhs});
}

#define KFVM_INSTANTIATE_EXPLICIT_TERM_KERNELS(Space)                                 \
  template void addExplicitTerms<Space>(const Equation<Space>&, const Vector<Space>&, \
                                        const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_EXPLICIT_TERM_KERNELS)

}  // namespace kfvm::Details
