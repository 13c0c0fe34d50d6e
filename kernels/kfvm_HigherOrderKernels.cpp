#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_HigherOrderKernels.hpp>
#include <detail/kfvm_StencilStructure.hpp>
#include <kfvm_Backends.hpp>

namespace kfvm::Details {

namespace {

/// Per cell: potentialSlope = diag(M) = g'(phi*) + (K_kappa)_cc / V, and potential =
/// theta m + (1 - theta) mu(phiOld), m = g(phi*) - g'(phi*) phi* - b_kappa / V.
template <class ExecSpace>
struct PotentialKernel {
  AssemblyGeometry<ExecSpace> g;
  Coefficient<ExecSpace> kappa;
  bool perFace;  // kappa per face, else per cell or a number
  Real theta;
  Polynomial law;
  Vector<ExecSpace> old, iterate, potential, slope;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real diagonal = 0, boundaryPart = 0, kOld = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      const Real kappaFace = perFace ? kappa(f) : g.faceValue(kappa, f);
      if (n >= 0) {
        const Real k = kappaFace * g.areas(f) / g.distances(f);
        diagonal += k;
        kOld += k * (old(cell) - old(o == cell ? n : o));
      } else {
        const Ordinal bs = g.faceSlots(f);
        const BoundaryFlux flux =
            boundaryFlux(kappaFace * g.areas(f), g.robinA(bs), g.robinB(bs), g.robinG(bs),
                         g.distances(f), Real(0), g.scheme);
        diagonal += flux.aB;
        boundaryPart += flux.cB;
        kOld += flux.aB * old(cell);
      }
    }
    const Real volume = g.volumes(cell);
    const Real phi = iterate(cell), gPrime = law.derivative(phi);
    slope(cell) = gPrime + diagonal / volume;
    Real value = theta * (law(phi) - gPrime * phi - boundaryPart / volume);
    if (theta < 1)
      value += (1 - theta) * (law(old(cell)) + (kOld - boundaryPart) / volume);
    potential(cell) = value;
  }
};

/// Row `cell` of theta K_D M into the matrix, b_D - K_D potential into the right-hand
/// side.
template <class ExecSpace>
struct HigherOrderRowKernel {
  AssemblyGeometry<ExecSpace> g;
  Coefficient<ExecSpace> D, kappa;
  bool perFace;  // D and kappa per face, else per cell or numbers
  Real theta;
  DeviceView<const Real*, ExecSpace> muA, muB, muG;
  Vector<ExecSpace> potential, slope;
  DeviceView<const Offset*, ExecSpace> rowOffsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<Real*, ExecSpace> values;
  DeviceView<const Offset*, ExecSpace> diagonalEntries;
  Vector<ExecSpace> diagonal, rhs;

  KOKKOS_INLINE_FUNCTION Real faceOf(const Coefficient<ExecSpace>& c, Ordinal f) const {
    return perFace ? c(f) : g.faceValue(c, f);
  }

  /// Adds weight * (row j of M) to row cell.
  KOKKOS_INLINE_FUNCTION void addRowOfM(Ordinal cell, Ordinal j, Real weight) const {
    values(entryOf<ExecSpace>(rowOffsets, columns, cell, j)) += weight * slope(j);
    const Real scale = weight / g.volumes(j);
    for (Offset s = g.cellFaceOffsets(j); s < g.cellFaceOffsets(j + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n < 0) continue;
      const Ordinal k = o == j ? n : o;
      values(entryOf<ExecSpace>(rowOffsets, columns, cell, k)) -=
          scale * faceOf(kappa, f) * g.areas(f) / g.distances(f);
    }
  }

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real outerDiagonal = 0, boundaryPart = 0, kPotential = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      const Real DFace = faceOf(D, f);
      if (n >= 0) {
        const Ordinal other = o == cell ? n : o;
        const Real k = DFace * g.areas(f) / g.distances(f);
        outerDiagonal += k;
        kPotential += k * (potential(cell) - potential(other));
        addRowOfM(cell, other, -theta * k);
      } else {
        const Ordinal bs = g.faceSlots(f);
        const BoundaryFlux flux =
            boundaryFlux(DFace * g.areas(f), muA(bs), muB(bs), muG(bs), g.distances(f),
                         Real(0), g.scheme);
        outerDiagonal += flux.aB;
        boundaryPart += flux.cB;
        kPotential += flux.aB * potential(cell);
      }
    }
    addRowOfM(cell, cell, theta * outerDiagonal);
    rhs(cell) += boundaryPart - kPotential;
    diagonal(cell) = values(diagonalEntries(cell));
  }
};

}  // namespace

template <class ExecSpace>
void addHigherOrderTerm(const Equation<ExecSpace>& equation, Real theta,
                        const Vector<ExecSpace>& phiOld, const Vector<ExecSpace>& iterate,
                        const Vector<ExecSpace>& potential,
                        const Vector<ExecSpace>& potentialSlope,
                        const DeviceView<const Offset*, ExecSpace>& rowOffsets,
                        const DeviceView<const Ordinal*, ExecSpace>& columns,
                        const DeviceView<Real*, ExecSpace>& values,
                        const DeviceView<const Offset*, ExecSpace>& diagonalEntries,
                        const Vector<ExecSpace>& diagonal, const Vector<ExecSpace>& rhs) {
  const AssemblyGeometry<ExecSpace> geometry(equation);
  const Coefficient<ExecSpace> kappa = equation.higherOrderKappa();
  forEachCell("kfvm::Assembler::higherOrderPotential", equation.mesh(),
              PotentialKernel<ExecSpace>{geometry, kappa, equation.higherOrderPerFace(),
                                         theta, equation.higherOrderLaw(), phiOld,
                                         iterate, potential, potentialSlope});
  const auto& bcs = equation.higherOrderBoundaryConditions();
  forEachCell(
      "kfvm::Assembler::higherOrderRows", equation.mesh(),
      HigherOrderRowKernel<ExecSpace>{
          geometry, equation.higherOrderMobility(), kappa, equation.higherOrderPerFace(),
          theta, bcs.robinA(), bcs.robinB(), bcs.robinG(), potential, potentialSlope,
          rowOffsets, columns, values, diagonalEntries, diagonal, rhs});
}

#define KFVM_INSTANTIATE_HIGHER_ORDER_KERNELS(Space)                                     \
  template void addHigherOrderTerm<Space>(                                               \
      const Equation<Space>&, Real, const Vector<Space>&, const Vector<Space>&,          \
      const Vector<Space>&, const Vector<Space>&,                                        \
      const DeviceView<const Offset*, Space>&, const DeviceView<const Ordinal*, Space>&, \
      const DeviceView<Real*, Space>&, const DeviceView<const Offset*, Space>&,          \
      const Vector<Space>&, const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_HIGHER_ORDER_KERNELS)

}  // namespace kfvm::Details
