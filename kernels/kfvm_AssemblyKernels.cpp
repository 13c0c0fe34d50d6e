#include <detail/kfvm_AssemblyKernels.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <cmath>
#include <string>

namespace kfvm::Details {

namespace {

/// Half the TVD limiter on interior face f for field x: the fraction of (phi_D - phi_U)
/// that the TVD face value adds to the upwind value.
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION Real limitedFraction(
    const AssemblyGeometry<ExecSpace>& g, Ordinal f, Real F, const Vector<ExecSpace>& x,
    const DeviceView<Real* [3], ExecSpace>& grad) {
  const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
  const Ordinal up = F > 0 ? o : n, down = F > 0 ? n : o;
  const Real delta = x(down) - x(up);
  if (delta == 0) return 0;
  Real projected = 0;
  const Real sign = F > 0 ? Real(1) : Real(-1);  // up to down: owner to neighbour or back
  for (int a = 0; a < 3; ++a) projected += grad(up, a) * sign * g.centreStep(f, a);
  return Real(0.5) * tvdLimiter(g.scheme, 2 * projected / delta - 1);
}

template <class ExecSpace>
struct FaceWeightKernel {
  AssemblyGeometry<ExecSpace> g;
  DeviceView<Real*, ExecSpace> owner, neighbour;

  KOKKOS_FUNCTION void operator()(Ordinal f) const {
    const Ordinal n = g.faceCells(f, 1);
    const Real Df = g.faceDiffusivity(f);
    if (n < 0) {
      owner(f) = Df * g.areas(f);
      return;
    }
    const Real k = Df * g.areas(f) / g.distances(f);
    if (!g.convection) {
      owner(f) = k;
      return;
    }
    const Real F = g.volumeFlux(f);
    const Real alpha = convectionAlpha(g.scheme, pecletNumber(F, k));
    owner(f) = k + F * alpha;
    neighbour(f) = k - F * (1 - alpha);
  }
};

/// The most negative diffusion coefficient the face loop reads, and where (a cell or a
/// face index): a MinLoc in which non-finite values rank below every finite one.
using CoefficientMinimum = Kokkos::ValLocScalar<Real, Ordinal>;

KOKKOS_INLINE_FUNCTION void noteCoefficient(Real value, Ordinal where, bool finiteOnly,
                                            CoefficientMinimum& smallest) {
  // With finiteOnly (DiffusionSign::Either) every finite value ranks as 0.
  const Real key = Compat::isfinite(value) ? (finiteOnly ? Real(0) : value)
                                           : Kokkos::reduction_identity<Real>::max();
  if (key < smallest.val) {
    smallest.val = key;
    smallest.loc = where;
  }
}

/// FaceWeightKernel that also notes the diffusion coefficients it reads (the values are
/// read here once; the weights' own reads of them hit the cache).
template <class ExecSpace>
struct CheckedFaceWeightKernel {
  FaceWeightKernel<ExecSpace> weights;
  bool finiteOnly;

  KOKKOS_FUNCTION void operator()(Ordinal f, CoefficientMinimum& smallest) const {
    const auto& g = weights.g;
    if (g.diffusionPerFace) {
      noteCoefficient(g.D(f), f, finiteOnly, smallest);
    } else {
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      noteCoefficient(g.D(o), o, finiteOnly, smallest);
      if (n >= 0) noteCoefficient(g.D(n), n, finiteOnly, smallest);
    }
    weights(f);
  }
};

/// Deferred TVD correction per interior face: theta C(phi) + (1 - theta) C(phiOld),
/// C = F (phi_f^TVD - phi_U) = F s (phi_D - phi_U), s = psi(r) / 2.
template <class ExecSpace>
struct TvdCorrectionKernel {
  AssemblyGeometry<ExecSpace> g;
  Real theta;
  Vector<ExecSpace> phi, phiOld;
  DeviceView<Real*[3], ExecSpace> gradient, gradientOld;
  DeviceView<Real*, ExecSpace> correction;

  KOKKOS_INLINE_FUNCTION Real flux(Ordinal f, Real F, const Vector<ExecSpace>& x,
                                   const DeviceView<Real* [3], ExecSpace>& grad) const {
    const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
    const Ordinal up = F > 0 ? o : n, down = F > 0 ? n : o;
    return F * limitedFraction(g, f, F, x, grad) * (x(down) - x(up));
  }

  KOKKOS_FUNCTION void operator()(Ordinal f) const {
    const Real F = g.faceCells(f, 1) < 0 ? Real(0) : g.volumeFlux(f);
    if (F == 0) {
      correction(f) = 0;
      return;
    }
    Real c = theta * flux(f, F, phi, gradient);
    if (theta < 1) c += (1 - theta) * flux(f, F, phiOld, gradientOld);
    correction(f) = c;
  }
};

/// Interior face f seen from one of its cells: that cell's weight, the other cell's
/// weight and the other cell (the outflow from the cell is aSelf phi_cell - aOther
/// phi_other).
struct InteriorSide {
  Real aSelf, aOther;
  Ordinal other;
};
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION InteriorSide
interiorSide(Ordinal cell, Ordinal owner, Ordinal neighbour,
             const DeviceView<const Real*, ExecSpace>& ownerWeights,
             const DeviceView<const Real*, ExecSpace>& neighbourWeights, Ordinal f) {
  return owner == cell ? InteriorSide{ownerWeights(f), neighbourWeights(f), neighbour}
                       : InteriorSide{neighbourWeights(f), ownerWeights(f), owner};
}

template <class ExecSpace>
struct RowFillKernel {
  AssemblyGeometry<ExecSpace> g;
  RowFillArguments<ExecSpace> r;

  /// The row's cell terms: its diagonal and right-hand side before the faces, and
  /// (K phiOld) of the row so far.
  struct CellTerms {
    Real diag, b, Kold, oldValue;
  };
  KOKKOS_INLINE_FUNCTION CellTerms cellTerms(Ordinal cell) const {
    const Real volume = g.volumes(cell);
    const Real mass = g.transient ? r.invDt * g.rho(cell) * volume : Real(0);
    const Real oldValue = r.old(cell);
    const Real c = g.matrixSource(cell);
    CellTerms t{mass - r.theta * c * volume, mass * oldValue + g.s(cell) * volume,
                -c * volume * oldValue, oldValue};
    if (g.sourceDiagonalOnly) t.b += g.explicitSource(cell) * volume * r.iterate(cell);
    return t;
  }

  /// A row of the structured grid (RowFillArguments::structured): its faces found by
  /// (i, j, k), in the order of the mesh's face lists (low x, high x, low y, ...); the
  /// cell is the neighbour of its low face and the owner of its high one.
  KOKKOS_INLINE_FUNCTION void structuredRow(Ordinal cell, const int idx[3]) const {
    CellTerms t = cellTerms(cell);
    const int n[3] = {r.structured.cells(0), r.structured.cells(1),
                      r.structured.cells(2)};
    for (int a = 0; a < r.structured.dimension(); ++a) {
      const Ordinal low =
          a == 0   ? r.firstFaces[0] + idx[0] + (n[0] + 1) * (idx[1] + n[1] * idx[2])
          : a == 1 ? r.firstFaces[1] + idx[0] + n[0] * (idx[1] + (n[1] + 1) * idx[2])
                   : r.firstFaces[2] + cell;
      const Ordinal high = low + (a == 0 ? 1 : a == 1 ? n[0] : Ordinal(n[0]) * n[1]);
      if (idx[a] > 0) {
        t.diag += r.theta * r.neighbourWeights(low);
      } else {
        boundaryFace(low, t);
      }
      if (idx[a] + 1 < n[a]) {
        t.diag += r.theta * r.ownerWeights(high);
      } else {
        boundaryFace(high, t);
      }
    }
    r.diagonal(cell) = t.diag;
    r.rhs(cell) = t.b;  // theta = 1: (1 - theta) K phiOld is 0
  }

  KOKKOS_INLINE_FUNCTION void boundaryFace(Ordinal f, CellTerms& t) const {
    const BoundaryFlux flux = g.boundary(f, r.ownerWeights(f));
    t.diag += r.theta * flux.aB;
    t.b += flux.cB;
  }

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    if (r.structured.dimension() > 0) {
      int idx[3];
      r.structured.indices(cell, idx);
      structuredRow(cell, idx);
      return;
    }
    const bool fillMatrix = r.values.extent(0) > 0;  // else diagonal and rhs only
    CellTerms t = cellTerms(cell);
    if (fillMatrix && r.repeatedNeighbours) {
      for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
           ++slot)
        if (g.faceCells(g.cellFaces(slot), 1) >= 0) r.values(r.faceEntries(slot)) = 0;
    }
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n >= 0) {
        const auto side =
            interiorSide<ExecSpace>(cell, o, n, r.ownerWeights, r.neighbourWeights, f);
        if (fillMatrix && r.repeatedNeighbours)
          r.values(r.faceEntries(slot)) -= r.theta * side.aOther;
        else if (fillMatrix)
          r.values(r.faceEntries(slot)) = -r.theta * side.aOther;
        t.diag += r.theta * side.aSelf;
        t.Kold += side.aSelf * t.oldValue - side.aOther * r.old(side.other);
        if (r.tvd) t.b += o == cell ? -r.correction(f) : r.correction(f);
      } else {
        const BoundaryFlux flux = g.boundary(f, r.ownerWeights(f));
        t.diag += r.theta * flux.aB;
        t.b += flux.cB;
        t.Kold += flux.aB * t.oldValue;
      }
    }
    if (fillMatrix) r.values(r.diagonalEntries(cell)) = t.diag;
    r.diagonal(cell) = t.diag;
    r.rhs(cell) = t.b - (1 - r.theta) * t.Kold;
  }
};

template <class ExecSpace>
struct SpatialOperatorKernel {
  AssemblyGeometry<ExecSpace> g;
  DeviceView<const Real*, ExecSpace> ownerWeights, neighbourWeights;
  Vector<ExecSpace> x, y;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const Real value = x(cell);
    Real sum = -g.matrixSource(cell) * g.volumes(cell) * value;
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n >= 0) {
        const auto side =
            interiorSide<ExecSpace>(cell, o, n, ownerWeights, neighbourWeights, f);
        sum += side.aSelf * value - side.aOther * x(side.other);
      } else {
        sum += g.boundary(f, ownerWeights(f)).aB * value;
      }
    }
    y(cell) = sum;
  }
};

template <class ExecSpace>
struct StableTimeStepKernel {
  AssemblyGeometry<ExecSpace> g;

  KOKKOS_FUNCTION void operator()(Ordinal cell, Real& smallest) const {
    const Real volume = g.volumes(cell);
    const Real mass = g.rho(cell) * volume;
    Real rate = -g.c(cell) * volume > 0 ? -g.c(cell) * volume : Real(0);
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal n = g.faceCells(f, 1);
      const Real DA = g.faceDiffusivity(f) * g.areas(f);
      Real k;
      if (n >= 0) {
        k = DA / g.distances(f);
      } else {
        const Ordinal bs = g.faceSlots(f);
        const Real a = g.robinA(bs), b = g.robinB(bs);
        k = DA * a / (a * g.distances(f) + b);
      }
      const Real outflow = g.faceCells(f, 0) == cell ? g.volumeFlux(f) : -g.volumeFlux(f);
      rate += k + (outflow > 0 ? outflow : Real(0));
    }
    if (rate > 0 && mass / rate < smallest) smallest = mass / rate;
  }
};

}  // namespace

template <class ExecSpace>
Real explicitStableTimeStep(const Equation<ExecSpace>& equation) {
  Real smallest = Kokkos::reduction_identity<Real>::min();
  Kokkos::parallel_reduce(
      "kfvm::ExplicitStepper::stableTimeStep",
      indexRange(equation.mesh().space(), equation.mesh().numCells()),
      StableTimeStepKernel<ExecSpace>{AssemblyGeometry<ExecSpace>(equation)},
      Kokkos::Min<Real>(smallest));
  const bool tvd = equation.hasConvection() && isTvd(equation.convectionScheme());
  return tvd ? smallest / 2 : smallest;
}

namespace {

/// Throws the error of a negative or non-finite diffusion coefficient found at index
/// where (a cell, or a face when D is given per face). Reads the few values it names
/// from the device: the error path only.
template <class ExecSpace>
[[noreturn]] void failDiffusionCoefficient(const Equation<ExecSpace>& equation,
                                           Ordinal where, const Vector<ExecSpace>& phi) {
  const auto& mesh = equation.mesh();
  const bool perFace = equation.diffusionPerFace();
  const auto& D = equation.diffusionCoefficient().values;
  Real value = 0;
  Kokkos::deep_copy(value, Kokkos::subview(D, where));
  // One coordinate at a time: the row is strided on devices (LayoutLeft), and a strided
  // view has no direct copy to the host.
  const auto centres = perFace ? mesh.faceCentres() : mesh.cellCentres();
  Real centre[3] = {0, 0, 0};
  for (int a = 0; a < 3 && std::size_t(a) < centres.extent(1); ++a)
    Kokkos::deep_copy(centre[a], Kokkos::subview(centres, where, a));
  const std::string label = D.label(), fieldPrefix = "kfvm::Field::";
  std::string what = "diffusion coefficient";
  if (equation.diffusionIsPolynomial()) {
    what += " D(phi)";
  } else if (label.compare(0, fieldPrefix.size(), fieldPrefix) == 0) {
    what += " field '" + label.substr(fieldPrefix.size()) + "'";
  }
  std::string phiText;
  if (equation.diffusionIsPolynomial() && phi.extent(0) > std::size_t(where)) {
    Real phiValue = 0;
    Kokkos::deep_copy(phiValue, Kokkos::subview(phi, where));
    phiText = concatenate(", phi = ", phiValue);
  }
  const bool finite = std::isfinite(value);
  if (equation.diffusionSign() == DiffusionSign::Either)
    fail(what, " = ", value, " (not finite) at face ", where, " (centre (", centre[0],
         ", ", centre[1], ", ", centre[2], ")): diffusion coefficients must be finite");
  fail(what, " = ", value, finite ? " < 0" : " (not finite)", " at ",
       perFace ? "face " : "cell ", where, " (centre (", centre[0], ", ", centre[1], ", ",
       centre[2], ")", phiText,
       "): diffusion coefficients must be finite and >= 0 (a negative D is "
       "anti-diffusion, ill-posed; only higherOrderDiffusion's second-order part may "
       "be negative)");
}

}  // namespace

template <class ExecSpace>
void computeFaceWeights(const Equation<ExecSpace>& equation,
                        const DeviceView<Real*, ExecSpace>& ownerWeights,
                        const DeviceView<Real*, ExecSpace>& neighbourWeights,
                        const Vector<ExecSpace>& iterate) {
  const FaceWeightKernel<ExecSpace> weights{AssemblyGeometry<ExecSpace>(equation),
                                            ownerWeights, neighbourWeights};
  const auto& mesh = equation.mesh();
  if (!equation.diffusionCoefficient().isField()) {
    forEachFace("kfvm::Assembler::faceWeights", mesh, weights);
    return;
  }
  CoefficientMinimum smallest;
  Kokkos::parallel_reduce("kfvm::Assembler::faceWeightsChecked",
                          indexRange(mesh.space(), mesh.numFaces()),
                          CheckedFaceWeightKernel<ExecSpace>{
                              weights, equation.diffusionSign() == DiffusionSign::Either},
                          Kokkos::MinLoc<Real, Ordinal>(smallest));
  if (smallest.val < 0) failDiffusionCoefficient(equation, smallest.loc, iterate);
}

template <class ExecSpace>
void tvdGradients(const Equation<ExecSpace>& equation, Real theta,
                  const Vector<ExecSpace>& phi, const Vector<ExecSpace>& phiOld,
                  const DeviceView<Real* [3], ExecSpace>& gradient,
                  const DeviceView<Real* [3], ExecSpace>& gradientOld) {
  const AssemblyGeometry<ExecSpace> geometry(equation);
  forEachCell(
      "kfvm::Assembler::gradient", equation.mesh(),
      GradientKernel<ExecSpace>{geometry, phi, gradient, GradientBoundary::Robin});
  if (theta < 1)
    forEachCell("kfvm::Assembler::gradientOld", equation.mesh(),
                GradientKernel<ExecSpace>{geometry, phiOld, gradientOld,
                                          GradientBoundary::Robin});
}

template <class ExecSpace>
void tvdCorrectionFluxes(const Equation<ExecSpace>& equation, Real theta,
                         const Vector<ExecSpace>& phi, const Vector<ExecSpace>& phiOld,
                         const DeviceView<Real* [3], ExecSpace>& gradient,
                         const DeviceView<Real* [3], ExecSpace>& gradientOld,
                         const DeviceView<Real*, ExecSpace>& correction) {
  forEachFace(
      "kfvm::Assembler::tvdCorrection", equation.mesh(),
      TvdCorrectionKernel<ExecSpace>{AssemblyGeometry<ExecSpace>(equation), theta, phi,
                                     phiOld, gradient, gradientOld, correction});
}

template <class ExecSpace>
void fillRows(const Equation<ExecSpace>& equation,
              const RowFillArguments<ExecSpace>& rows) {
  forEachCell("kfvm::Assembler::fillRows", equation.mesh(),
              RowFillKernel<ExecSpace>{AssemblyGeometry<ExecSpace>(equation), rows});
}

namespace {

template <class ExecSpace>
struct FaceFormKernel {
  AssemblyGeometry<ExecSpace> g;
  DeviceView<const Real*, ExecSpace> ownerWeights, neighbourWeights;
  Real theta;
  DeviceView<Real*, ExecSpace> faces;
  KOKKOS_FUNCTION void operator()(Ordinal f) const {
    faces(f) = g.faceCells(f, 1) >= 0
                   ? theta * Real(0.5) * (ownerWeights(f) + neighbourWeights(f))
                   : theta * ownerWeights(f);  // theta D A on a boundary face
  }
};

}  // namespace

template <class ExecSpace>
void faceFormCoefficients(const Equation<ExecSpace>& equation,
                          const DeviceView<const Real*, ExecSpace>& ownerWeights,
                          const DeviceView<const Real*, ExecSpace>& neighbourWeights,
                          Real theta, const DeviceView<Real*, ExecSpace>& faces) {
  forEachFace("kfvm::Assembler::faceForm", equation.mesh(),
              FaceFormKernel<ExecSpace>{AssemblyGeometry<ExecSpace>(equation),
                                        ownerWeights, neighbourWeights, theta, faces});
}

template <class ExecSpace>
void applySpatialOperator(const Equation<ExecSpace>& equation,
                          const DeviceView<const Real*, ExecSpace>& ownerWeights,
                          const DeviceView<const Real*, ExecSpace>& neighbourWeights,
                          const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) {
  forEachCell("kfvm::Assembler::applySpatialOperator", equation.mesh(),
              SpatialOperatorKernel<ExecSpace>{AssemblyGeometry<ExecSpace>(equation),
                                               ownerWeights, neighbourWeights, x, y});
}

#define KFVM_INSTANTIATE_ASSEMBLY_KERNELS(Space)                                         \
  template void computeFaceWeights<Space>(                                               \
      const Equation<Space>&, const DeviceView<Real*, Space>&,                           \
      const DeviceView<Real*, Space>&, const Vector<Space>&);                            \
  template void tvdGradients<Space>(                                                     \
      const Equation<Space>&, Real, const Vector<Space>&, const Vector<Space>&,          \
      const DeviceView<Real* [3], Space>&, const DeviceView<Real* [3], Space>&);         \
  template void tvdCorrectionFluxes<Space>(                                              \
      const Equation<Space>&, Real, const Vector<Space>&, const Vector<Space>&,          \
      const DeviceView<Real* [3], Space>&, const DeviceView<Real* [3], Space>&,          \
      const DeviceView<Real*, Space>&);                                                  \
  template Real explicitStableTimeStep<Space>(const Equation<Space>&);                   \
  template void fillRows<Space>(const Equation<Space>&, const RowFillArguments<Space>&); \
  template void faceFormCoefficients<Space>(                                             \
      const Equation<Space>&, const DeviceView<const Real*, Space>&,                     \
      const DeviceView<const Real*, Space>&, Real, const DeviceView<Real*, Space>&);     \
  template void applySpatialOperator<Space>(const Equation<Space>&,                      \
                                            const DeviceView<const Real*, Space>&,       \
                                            const DeviceView<const Real*, Space>&,       \
                                            const Vector<Space>&, const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_ASSEMBLY_KERNELS)

}  // namespace kfvm::Details
