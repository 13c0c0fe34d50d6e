#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_ExplicitTermKernels.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_KokkosCompat.hpp>

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

/// FiPy's van Leer limiter of VanLeerConvectionTerm: the gradient to move the upwind
/// value along, from the cell's normal gradient and the gradient across the face.
KOKKOS_INLINE_FUNCTION Real vanLeerGradient(Real normalGradient, Real gradUpwind) {
  const Real gradUpUpwind = 2 * normalGradient - gradUpwind;
  const Real average = Real(0.5) * (Compat::abs(gradUpwind) + Compat::abs(gradUpUpwind));
  Real smallest = Compat::abs(2 * gradUpwind);
  if (Compat::abs(2 * gradUpUpwind) < smallest) smallest = Compat::abs(2 * gradUpUpwind);
  if (average < smallest) smallest = average;
  if (gradUpwind * gradUpUpwind < 0) return 0;
  return gradUpUpwind > 0 ? smallest : -smallest;
}

/// FiPy's explicit convection per cell: -F_f phi_f through interior faces on the
/// right-hand side (phi_f the upwind previous value, van Leer-corrected), and through
/// open boundary faces the outflow F (g d + b phi_P) / (a d + b) of the face's Robin
/// condition (its phi_P part in the matrix).
template <class ExecSpace>
struct ExplicitConvectionKernel {
  AssemblyGeometry<ExecSpace> g;
  ConvectionVelocity<ExecSpace> u;
  bool vanLeer;
  Real dt;
  ExplicitTermArguments<ExecSpace> r;

  /// The value cell `upwind` convects through face f (n: the face normal oriented away
  /// from that cell; gradUpwind: the gradient across the face along n).
  KOKKOS_INLINE_FUNCTION Real faceValue(Ordinal upwind, Ordinal f, Real n, Real F,
                                        Real gradUpwind) const {
    Real value = r.old(upwind);
    if (!vanLeer) return value;
    Real normalGradient = 0;
    for (int a = 0; a < 3; ++a) normalGradient += r.gradient(upwind, a) * g.normals(f, a);
    const Real depth = (g.volumes(upwind) - Compat::abs(F) * dt) / g.areas(f);
    return value +
           Real(0.5) * vanLeerGradient(n * normalGradient, n * gradUpwind) * depth;
  }

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real inflow = 0, diagonal = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      const Real F = u.normal(f, g.normals) * g.areas(f);  // from o to n (outward)
      if (n >= 0) {
        const Real gradUpwind = (r.old(n) - r.old(o)) / g.distances(f);
        const Real value = F > 0 ? faceValue(o, f, 1, F, gradUpwind)
                                 : faceValue(n, f, -1, F, gradUpwind);
        inflow += o == cell ? -F * value : F * value;
        continue;
      }
      const Ordinal bs = g.faceSlots(f);
      if (g.convectsThroughSlotsOnly && g.convectingSlots(bs) == 0) continue;
      const Real a = g.robinA(bs), b = g.robinB(bs), d = g.distances(f);
      diagonal += F * b / (a * d + b);
      inflow -= F * g.robinG(bs) * d / (a * d + b);
    }
    r.rhs(cell) += inflow;
    if (diagonal != 0) {
      if (r.values.extent(0) > 0) r.values(r.diagonalEntries(cell)) += diagonal;
      r.diagonal(cell) += diagonal;
    }
  }
};

}  // namespace

template <class ExecSpace>
void addExplicitTerms(const Equation<ExecSpace>& equation,
                      const ExplicitTermArguments<ExecSpace>& r) {
  const AssemblyGeometry<ExecSpace> geometry(equation);
  if (equation.hasExplicitDiffusion())
    forEachCell("kfvm::Assembler::explicitDiffusion", equation.mesh(),
                ExplicitDiffusionKernel<ExecSpace>{
                    geometry, equation.explicitDiffusionCoefficient(),
                    equation.explicitDiffusionBoundary() ==
                        ExplicitDiffusionBoundary::EquationConditions,
                    r.iterate, r.rhs});
  if (!equation.hasExplicitConvection()) return;
  const bool vanLeer =
      equation.explicitConvectionScheme() == ExplicitConvectionScheme::VanLeer;
  if (vanLeer) {
    require(r.invDt > 0,
            "FiPy's VanLeerConvectionTerm needs a time step (its limiter "
            "reads dt), got 1/dt = ",
            r.invDt);
    forEachCell(
        "kfvm::Assembler::explicitGradient", equation.mesh(),
        GradientKernel<ExecSpace>{geometry, r.old, r.gradient,
                                  equation.explicitGradientBoundary() ==
                                          ExplicitGradientBoundary::DirichletValues
                                      ? GradientBoundary::Dirichlet
                                      : GradientBoundary::CellValue});
  }
  forEachCell("kfvm::Assembler::explicitConvection", equation.mesh(),
              ExplicitConvectionKernel<ExecSpace>{
                  geometry, equation.explicitConvectionVelocity(), vanLeer,
                  r.invDt > 0 ? Real(1) / r.invDt : Real(0), r});
}

#define KFVM_INSTANTIATE_EXPLICIT_TERM_KERNELS(Space)           \
  template void addExplicitTerms<Space>(const Equation<Space>&, \
                                        const ExplicitTermArguments<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_EXPLICIT_TERM_KERNELS)

}  // namespace kfvm::Details
