#ifndef KFVM_DETAIL_ASSEMBLY_KERNELS_HPP
#define KFVM_DETAIL_ASSEMBLY_KERNELS_HPP

// The face and cell kernels behind Assembler (kernels/kfvm_Assembler.cpp). Interior
// face f with owner O and neighbour N carries the outflow from O
//   J_f = a_O phi_O - a_N phi_N,   a_O = k + F alpha,  a_N = k - F (1 - alpha),
// k = D_f A_f / d_f, F = (u . n)_f A_f; pure diffusion has a_O = a_N = k. A boundary
// face keeps k = D_f A_f and is finished in the row loop (boundaryFlux).

#include <kfvm_Equation.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_GridInterior.hpp>

namespace kfvm::Details {

/// Peclet number F / k of a face; +-huge without diffusion, so that the weighted schemes
/// fall back to upwind.
KOKKOS_INLINE_FUNCTION Real pecletNumber(Real flux, Real k) {
  const Real huge = Real(1e30);
  if (k > 0) return flux / k;
  return flux > 0 ? huge : (flux < 0 ? -huge : Real(0));
}

/// Outflow J = aB phi_P - cB through a boundary face: diffusion under the Robin condition
/// a phi + b dphi/dn = g (k = D_f A_f, d the centre-to-face distance) plus convection
/// with volume flux F. A Dirichlet face (b = 0) convects through the scheme between phi_P
/// and the boundary value g / a; otherwise the face value follows from the Robin
/// relation, phi_f = (g d + b phi_P) / (a d + b).
struct BoundaryFlux {
  Real aB, cB;
};
KOKKOS_INLINE_FUNCTION BoundaryFlux boundaryFlux(Real k, Real a, Real b, Real g, Real d,
                                                 Real F, ConvectionScheme scheme) {
  const Real w = k / (a * d + b);
  BoundaryFlux flux{w * a, w * g};
  if (F != 0) {
    if (b == 0) {
      const Real alpha = convectionAlpha(scheme, pecletNumber(F, k / d));
      flux.aB += F * alpha;
      flux.cB -= F * (1 - alpha) * g / a;
    } else {
      flux.aB += F * b / (a * d + b);
      flux.cB -= F * g * d / (a * d + b);
    }
  }
  return flux;
}

/// boundaryFlux() under FiPy's convection boundary (Equation::convectionThroughSlots):
/// convection only where the face is open to it (FiPy's constrained faces); on a
/// gradient face (a = 0) with FiPy's face value phi_P + (1 - alpha) d g / b.
KOKKOS_INLINE_FUNCTION BoundaryFlux fipyBoundaryFlux(Real k, Real a, Real b, Real g,
                                                     Real d, Real F, bool open,
                                                     ConvectionScheme scheme) {
  if (!open || F == 0) return boundaryFlux(k, a, b, g, d, 0, scheme);
  if (a != 0) return boundaryFlux(k, a, b, g, d, F, scheme);
  BoundaryFlux flux = boundaryFlux(k, a, b, g, d, 0, scheme);
  const Real alpha = convectionAlpha(scheme, pecletNumber(F, k / d));
  flux.aB += F;
  flux.cB -= F * (1 - alpha) * d * g / b;
  return flux;
}

/// Everything the kernels read from the mesh, equation and boundary conditions.
template <class ExecSpace>
struct AssemblyGeometry {
  using Mesh_ = Mesh<ExecSpace>;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*, ExecSpace> areas, distances, volumes;
  DeviceView<const Real*[3], ExecSpace> normals, faceCentres, cellCentres, faceShifts;
  DeviceView<const Offset*, ExecSpace> cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> cellFaces, faceSlots;
  DeviceView<const Real*, ExecSpace> robinA, robinB, robinG;
  Coefficient<ExecSpace> D, rho, c, s;
  bool diffusionPerFace, transient, convection, sourceDiagonalOnly;
  ConvectionVelocity<ExecSpace> velocity;
  ConvectionScheme scheme;
  bool convectsThroughSlotsOnly;
  DeviceView<const Real*, ExecSpace> convectingSlots;

  explicit AssemblyGeometry(const Equation<ExecSpace>& equation) {
    const auto& mesh = equation.mesh();
    const auto& bcs = equation.boundaryConditions();
    faceCells = mesh.faceCells();
    areas = mesh.faceAreas();
    distances = mesh.faceDistances();
    volumes = mesh.cellVolumes();
    normals = mesh.faceNormals();
    faceCentres = mesh.faceCentres();
    cellCentres = mesh.cellCentres();
    faceShifts = mesh.faceShifts();
    cellFaceOffsets = mesh.cellFaceOffsets();
    cellFaces = mesh.cellFaces();
    faceSlots = mesh.faceBoundarySlots();
    robinA = bcs.robinA();
    robinB = bcs.robinB();
    robinG = bcs.robinG();
    D = equation.diffusionCoefficient();
    rho = equation.transientCoefficient();
    c = equation.implicitSourceCoefficient();
    s = equation.sourceCoefficient();
    diffusionPerFace = equation.diffusionPerFace();
    sourceDiagonalOnly =
        equation.implicitSourceForm() == ImplicitSourceForm::DiagonalOnly;
    transient = equation.hasTransient();
    convection = equation.hasConvection();
    velocity = equation.convectionVelocity();
    scheme = equation.convectionScheme();
    convectsThroughSlotsOnly = equation.convectsThroughSlotsOnly();
    convectingSlots = equation.convectingSlots();
  }

  /// Component a of the vector from the owner's centre to the neighbour's across
  /// interior face f (the neighbour's image beside the owner on a periodic grid).
  KOKKOS_INLINE_FUNCTION Real centreStep(Ordinal f, int a) const {
    const Real shift = faceShifts.extent(0) > 0 ? faceShifts(f, a) : Real(0);
    return cellCentres(faceCells(f, 1), a) + shift - cellCentres(faceCells(f, 0), a);
  }

  /// Distance from the owner's centre to face f, along the face normal.
  KOKKOS_INLINE_FUNCTION Real ownerDistance(Ordinal f) const {
    const Ordinal owner = faceCells(f, 0);
    Real d = 0;
    for (int a = 0; a < 3; ++a)
      d += (faceCentres(f, a) - cellCentres(owner, a)) * normals(f, a);
    return d;
  }

  /// D_f: the face value, the constant, the owner's on the boundary, or the
  /// distance-weighted harmonic mean of the two cells' values.
  KOKKOS_INLINE_FUNCTION Real faceDiffusivity(Ordinal f) const {
    return diffusionPerFace ? D(f) : faceValue(D, f);
  }

  /// A coefficient given per cell (or a constant, of either sign) at face f: the
  /// distance-weighted harmonic mean of the two cells' values (0 unless both are > 0),
  /// the owner's on a boundary face.
  KOKKOS_INLINE_FUNCTION Real faceValue(const Coefficient<ExecSpace>& c,
                                        Ordinal f) const {
    if (c.values.extent(0) == 0) return c.constant;
    const Ordinal o = faceCells(f, 0), n = faceCells(f, 1);
    if (n < 0) return c(o);
    const Real dOwner = ownerDistance(f);
    const Real dNeighbour = distances(f) - dOwner;
    const Real co = c(o), cn = c(n);
    return (co > 0 && cn > 0) ? distances(f) / (dOwner / co + dNeighbour / cn) : Real(0);
  }

  /// The implicit source's coefficient in the matrix, and the part taken explicitly
  /// (ImplicitSourceForm::DiagonalOnly: c > 0).
  KOKKOS_INLINE_FUNCTION Real matrixSource(Ordinal cell) const {
    const Real value = c(cell);
    return sourceDiagonalOnly && value > 0 ? Real(0) : value;
  }
  KOKKOS_INLINE_FUNCTION Real explicitSource(Ordinal cell) const {
    const Real value = c(cell);
    return sourceDiagonalOnly && value > 0 ? value : Real(0);
  }

  KOKKOS_INLINE_FUNCTION Real volumeFlux(Ordinal f) const {
    return convection ? velocity.normal(f, normals) * areas(f) : Real(0);
  }

  /// The Robin boundary face f of cell P, as J = aB phi_P - cB.
  KOKKOS_INLINE_FUNCTION BoundaryFlux boundary(Ordinal f, Real k) const {
    const Ordinal bs = faceSlots(f);
    if (convectsThroughSlotsOnly)
      return fipyBoundaryFlux(k, robinA(bs), robinB(bs), robinG(bs), distances(f),
                              volumeFlux(f), convectingSlots(bs) > 0, scheme);
    return boundaryFlux(k, robinA(bs), robinB(bs), robinG(bs), distances(f),
                        volumeFlux(f), scheme);
  }
};

/// Fills ownerWeights (a_O inside, D_f A_f on the boundary) and, with convection,
/// neighbourWeights (a_N); without convection the two are the same View. TVD schemes are
/// upwind here; their correction is deferred to the right-hand side.
///
/// A diffusion coefficient that can change after the equation was validated (a cell or
/// face field, whose values the caller may overwrite, or D(phi), re-evaluated at every
/// sweep) is checked in the same face loop, by one MinLoc reduction over the values the
/// loop reads: a negative or non-finite D throws kfvm::Error naming the cell (or face),
/// its centre, the value and, for D(phi), phi there (the iterate D was evaluated at).
/// Interior faces would otherwise take D_f = 0 from the harmonic mean and Dirichlet
/// faces the negative value: a silently wrong answer. A constant D was checked once.
template <class ExecSpace>
void computeFaceWeights(const Equation<ExecSpace>& equation,
                        const DeviceView<Real*, ExecSpace>& ownerWeights,
                        const DeviceView<Real*, ExecSpace>& neighbourWeights,
                        const Vector<ExecSpace>& iterate);

/// The face values a cell gradient reads on the boundary: the Robin condition's
/// (g d + b phi_P) / (a d + b) (kfvm's TVD schemes), a Dirichlet face's value and the
/// cell's own elsewhere, or the cell's own everywhere (FiPy's gradient of var.old with
/// and without its constraints: its VanLeerConvectionTerm).
enum class GradientBoundary { Robin, Dirichlet, CellValue };

/// Gauss cell gradient: sum_f phi_f A_f n_f / V, phi_f distance-weighted inside.
template <class ExecSpace>
struct GradientKernel {
  AssemblyGeometry<ExecSpace> g;
  Vector<ExecSpace> phi;
  DeviceView<Real* [3], ExecSpace> gradient;
  GradientBoundary boundary;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real sum[3] = {0, 0, 0};
    for (Offset slot = g.cellFaceOffsets(cell); slot < g.cellFaceOffsets(cell + 1);
         ++slot) {
      const Ordinal f = g.cellFaces(slot);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      Real faceValue = phi(cell);
      if (n >= 0) {
        const Real w = g.ownerDistance(f) / g.distances(f);  // weight of the neighbour
        faceValue = (1 - w) * phi(o) + w * phi(n);
      } else if (boundary != GradientBoundary::CellValue) {
        const Ordinal bs = g.faceSlots(f);
        const Real a = g.robinA(bs), b = g.robinB(bs), d = g.distances(f);
        if (boundary == GradientBoundary::Robin)
          faceValue = (g.robinG(bs) * d + b * phi(cell)) / (a * d + b);
        else if (b == 0)
          faceValue = g.robinG(bs) / a;
      }
      const Real sign = o == cell ? Real(1) : Real(-1);
      for (int a = 0; a < 3; ++a)
        sum[a] += sign * faceValue * g.areas(f) * g.normals(f, a);
    }
    for (int a = 0; a < 3; ++a) gradient(cell, a) = sum[a] / g.volumes(cell);
  }
};

/// Gauss gradients (linear face interpolation, Robin face values on the boundary) of
/// phi and, when theta < 1, phiOld.
template <class ExecSpace>
void tvdGradients(const Equation<ExecSpace>& equation, Real theta,
                  const Vector<ExecSpace>& phi, const Vector<ExecSpace>& phiOld,
                  const DeviceView<Real* [3], ExecSpace>& gradient,
                  const DeviceView<Real* [3], ExecSpace>& gradientOld);

/// Per interior face the deferred TVD correction flux theta C(phi) + (1 - theta)
/// C(phiOld), C = F (phi_f^TVD - phi_U), from the gradients of tvdGradients().
template <class ExecSpace>
void tvdCorrectionFluxes(const Equation<ExecSpace>& equation, Real theta,
                         const Vector<ExecSpace>& phi, const Vector<ExecSpace>& phiOld,
                         const DeviceView<Real* [3], ExecSpace>& gradient,
                         const DeviceView<Real* [3], ExecSpace>& gradientOld,
                         const DeviceView<Real*, ExecSpace>& correction);

/// Matrix values, diagonal and right-hand side, one gathering row per cell.
template <class ExecSpace>
struct RowFillArguments {
  DeviceView<const Real*, ExecSpace> ownerWeights, neighbourWeights, correction;
  DeviceView<Real*, ExecSpace> values;  // empty: the diagonal and rhs only
  Vector<ExecSpace> diagonal;
  DeviceView<const Offset*, ExecSpace> diagonalEntries, faceEntries;
  Vector<ExecSpace> old, rhs;
  Real invDt, theta;
  bool tvd;
  Vector<ExecSpace> iterate;  // where explicit parts are evaluated
  /// Two faces of a row may share an entry (StencilStructure::repeatedNeighbours): the
  /// row's face entries are zeroed and summed into instead of written once.
  bool repeatedNeighbours = false;
  /// When set (dimension > 0: theta = 1, without TVD and without the matrix, where a
  /// row is its diagonal and right-hand side alone), every row is filled through its
  /// cell's (i, j, k), its faces found by index, instead of the face lists: the same
  /// sums in the same order.
  GridInterior structured;
  Ordinal firstFaces[3] = {0, 0, 0};  // the mesh's firstFace(axis)
};

template <class ExecSpace>
void fillRows(const Equation<ExecSpace>& equation,
              const RowFillArguments<ExecSpace>& rows);

/// The largest dt for which forward Euler keeps every update a convex combination
/// (positivity): min over cells of rho V / (sum_f (k_f + max(F_out, 0)) + max(-c V, 0)),
/// halved for TVD schemes (their limiter may double the upwind gradient).
template <class ExecSpace>
Real explicitStableTimeStep(const Equation<ExecSpace>& equation);

/// The face form of the operator (Assembler::faceForm()).
template <class ExecSpace>
void faceFormCoefficients(const Equation<ExecSpace>& equation,
                          const DeviceView<const Real*, ExecSpace>& ownerWeights,
                          const DeviceView<const Real*, ExecSpace>& neighbourWeights,
                          Real theta, const DeviceView<Real*, ExecSpace>& faces);

/// y = K x (the spatial operator without the transient term) from the face weights.
template <class ExecSpace>
void applySpatialOperator(const Equation<ExecSpace>& equation,
                          const DeviceView<const Real*, ExecSpace>& ownerWeights,
                          const DeviceView<const Real*, ExecSpace>& neighbourWeights,
                          const Vector<ExecSpace>& x, const Vector<ExecSpace>& y);

}  // namespace kfvm::Details

#endif
