#ifndef KFVM_EQUATION_HPP
#define KFVM_EQUATION_HPP

#include <kfvm_BoundaryCondition.hpp>
#include <kfvm_Coefficient.hpp>
#include <kfvm_Convection.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_Polynomial.hpp>
#include <kfvm_TensorField.hpp>

namespace kfvm {

/// The signs a diffusion coefficient may take (Equation::diffusion).
enum class DiffusionSign {
  /// kfvm's default: D >= 0, checked (a negative D is backward heat flow, ill-posed).
  NonNegative,
  /// FiPy's DiffusionTerm with a coefficient of either sign, finite (checked): what
  /// FiPy's Cahn-Hilliard scripts give, DiffusionTerm(coeff=D f''(phi_f)) with f'' < 0
  /// in the spinodal region, next to the fourth-order term that keeps it well posed.
  /// Constants and face values only (the harmonic mean to faces needs D >= 0).
  Either
};

/// How Equation::implicitSource(c) enters the discrete equation.
enum class ImplicitSourceForm {
  /// kfvm's default: all of c phi in the matrix.
  Matrix,
  /// FiPy's ImplicitSourceTerm rule: in the matrix only where it adds to the diagonal
  /// (c <= 0 in kfvm's form); where c > 0, c phi* at the latest iterate phi* on the
  /// right-hand side.
  DiagonalOnly
};

/// The boundary of Equation::explicitDiffusion.
enum class ExplicitDiffusionBoundary {
  /// The equation's boundary conditions, with the explicit coefficient.
  EquationConditions,
  /// No flux through any boundary face: FiPy's ExplicitDiffusionTerm on a variable with
  /// hasOld=True, which reads the constraints of var.old (a copy that has none).
  ZeroFlux
};

/// Non-orthogonal correction of the diffusion term (Equation::diffusionCorrection). The
/// matrix holds each face's orthogonal part D A (phi_N - phi_P) / d, d the centroids'
/// distance along the normal (Mesh); the correction adds D (A n - A d_PN / d) .
/// grad(phi)_f at the latest iterate to the right-hand side (OpenFOAM's over-relaxed
/// `corrected` scheme, a deferred correction converged by sweeps), through interior and
/// Dirichlet faces. On orthogonal faces (any Cartesian grid) it is zero.
enum class DiffusionCorrection {
  None,        ///< FiPy's DiffusionTermNoCorrection, kfvm's default
  OverRelaxed  ///< with the cell gradients below
};

/// Cell gradients for the correction: Gauss (linear face interpolation, Robin face
/// values) or least squares over the face neighbours, Dirichlet values and the normal
/// derivative of Neumann faces (exact for linear fields).
enum class CellGradient { Gauss, LeastSquares };

/// One scalar transport equation built from FiPy's terms:
///
///   TransientTerm(rho) + ConvectionTerm(u) == DiffusionTerm(D) + ImplicitSourceTerm(c)
///                                             + source(s)
///   i.e.   rho dphi/dt + div(u phi) = div(D grad phi) + c phi + s
///
/// The convection velocity is a constant vector or a face field of normal components
/// u . n_f (n_f points from the face's owner cell to its neighbour; outward on the
/// boundary). Its scheme is one of ConvectionScheme (kfvm_Convection.hpp).
///
/// A diffusion coefficient given per cell is averaged to faces harmonically (exact for
/// layered media); one given per face is used as it is. Terms not added are zero; without
/// a TransientTerm the equation is steady. Boundary conditions default to zero flux.
template <class ExecSpace>
class Equation {
 public:
  explicit Equation(const Mesh<ExecSpace>& mesh);

  Equation& transient(Real rho = 1);
  Equation& transient(const CellField<ExecSpace>& rho);
  Equation& diffusion(Real D);
  /// Anisotropic diffusion div(Gamma grad phi) with a constant tensor (Gamma[a][b]:
  /// symmetric and positive definite over the mesh's dimensions; the rest is ignored).
  /// The matrix takes n.Gamma.n on each face, the right-hand side the cross terms
  /// (Gamma n - (n.Gamma.n) d_PN / d) A . grad(phi)_f at the latest iterate, with the
  /// non-orthogonal correction (DiffusionCorrection); the equation then sweeps.
  Equation& diffusion(const Tensor3& tensor);
  /// The same with a tensor per cell: on a face, the distance-weighted matrix harmonic
  /// mean of its two cells' tensors (a scalar's harmonic mean for multiples of the
  /// identity), the owner's on the boundary. Positive definiteness over the mesh's axes
  /// is checked here and, with the face means, redone at every updateNonlinear (each
  /// step and sweep of the steppers): the field's values may change between steps.
  Equation& diffusion(const CellTensorField<ExecSpace>& tensor);
  /// The same with a tensor per face, used as it is (checked likewise).
  Equation& diffusion(const FaceTensorField<ExecSpace>& tensor);
  Equation& diffusion(const CellField<ExecSpace>& D);
  Equation& diffusion(const FaceField<ExecSpace>& D);
  /// The same, with the signs D may take (DiffusionSign; DiffusionSign::Either is
  /// FiPy's form).
  Equation& diffusion(Real D, DiffusionSign sign);
  Equation& diffusion(const FaceField<ExecSpace>& D, DiffusionSign sign);
  /// FiPy's ExplicitDiffusionTerm: div(D_e grad phi*) on the right-hand side, phi* the
  /// latest iterate (the values a step or sweep starts from: FiPy's var.value), under
  /// the equation's boundary conditions with D_e as their coefficient, nothing in the
  /// matrix. Next to diffusion(D) it gives FiPy's mixed sums, e.g. Crank-Nicolson as
  /// DiffusionTerm(0.5) + ExplicitDiffusionTerm(0.5). D_e: a number or face values, of
  /// either sign, finite.
  Equation& explicitDiffusion(Real D, ExplicitDiffusionBoundary boundary =
                                          ExplicitDiffusionBoundary::EquationConditions);
  Equation& explicitDiffusion(
      const FaceField<ExecSpace>& D,
      ExplicitDiffusionBoundary boundary = ExplicitDiffusionBoundary::EquationConditions);
  Equation& implicitSource(Real c);
  Equation& implicitSource(const CellField<ExecSpace>& c);
  /// The same, in the given form (ImplicitSourceForm::DiagonalOnly is FiPy's).
  Equation& implicitSource(Real c, ImplicitSourceForm form);
  Equation& implicitSource(const CellField<ExecSpace>& c, ImplicitSourceForm form);
  Equation& source(Real s);
  Equation& source(const CellField<ExecSpace>& s);
  Equation& convection(Real ux, Real uy, Real uz,
                       ConvectionScheme scheme = ConvectionScheme::Upwind);
  Equation& convection(const FaceField<ExecSpace>& normalVelocity,
                       ConvectionScheme scheme = ConvectionScheme::Upwind);
  /// FiPy's explicit convection terms, an option: div(u phi_f) taken to the right-hand
  /// side with phi_f from the previous step's values (FiPy's var.old) on interior faces
  /// (ExplicitConvectionScheme; the normal velocity's sign picks the upwind cell). A
  /// boundary face open to convection (convectionThroughSlots, or every boundary face
  /// without it) convects FiPy's face value (g d + b phi_P) / (a d + b) of its Robin
  /// condition: the Dirichlet value on the right-hand side, phi_P + d g / b on a gradient
  /// face in the matrix (as FiPy's constraint terms do, whatever theta). Needs a
  /// TransientTerm (FiPy's too); VanLeer reads dt. Beside convection() or not.
  Equation& explicitConvection(
      Real ux, Real uy, Real uz, ExplicitConvectionScheme scheme,
      ExplicitGradientBoundary gradientBoundary = ExplicitGradientBoundary::CellValues);
  Equation& explicitConvection(
      const FaceField<ExecSpace>& normalVelocity, ExplicitConvectionScheme scheme,
      ExplicitGradientBoundary gradientBoundary = ExplicitGradientBoundary::CellValues);
  /// Non-orthogonal correction of the diffusion term (see DiffusionCorrection); the
  /// equation then needs sweeps (ImplicitStepper::setSweeps).
  Equation& diffusionCorrection(DiffusionCorrection scheme,
                                CellGradient gradient = CellGradient::LeastSquares);
  /// The condition on a patch, by name (Mesh::patchNames()) or as a Cartesian side.
  Equation& boundary(const std::string& patch, const BoundaryCondition& condition);
  Equation& boundary(Patch patch, const BoundaryCondition& condition);
  /// Robin coefficients face by face, on any boundary faces (by boundary slot; see
  /// BoundaryConditions::setSlots): what FiPy's constrain(value, where=mask) sets.
  Equation& boundarySlots(const std::vector<Ordinal>& slots, const std::vector<Real>& a,
                          const std::vector<Real>& b, const std::vector<Real>& g);
  /// FiPy's convection boundary, an option: convection passes through the given boundary
  /// slots only (FiPy's constrained faces) and no other boundary face is open to it. On
  /// a gradient face (a = 0) the convected value is FiPy's phi_P + (1 - alpha) d g / b,
  /// alpha the scheme's weight; Dirichlet faces are as without the option. Without it
  /// (kfvm's default) every boundary face convects the value its condition gives.
  Equation& convectionThroughSlots(const std::vector<Ordinal>& slots);
  bool convectsThroughSlotsOnly() const { return convectsThroughSlotsOnly_; }
  /// 1 at the slots convection passes through (convectionThroughSlots), 0 elsewhere.
  DeviceView<const Real*, ExecSpace> convectingSlots() const { return convectingSlots_; }

  /// Diffusion coefficients, whichever form, must be finite and >= 0 (unless
  /// DiffusionSign::Either was asked for): a negative D is
  /// anti-diffusion (backward heat flow, ill-posed), and the harmonic mean to faces is
  /// defined for D >= 0 only. Constants and fields are checked here and when the
  /// assembler is built; fields, whose values may be changed afterwards, and D(phi),
  /// re-evaluated at every sweep, are checked again at every assembly (one MinLoc
  /// reduction fused into the face loop that reads them), so that a step on a negative
  /// D throws kfvm::Error naming the cell or face, its centre and the value (and phi
  /// for D(phi)). The one legitimately negative second-order coefficient is the
  /// D g'(phi) inside higherOrderDiffusion (Cahn-Hilliard's spinodal region, where the
  /// fourth-order part keeps the problem well posed); it is not a diffusion() term.
  ///
  /// Solution-dependent terms, re-evaluated from the latest iterate at every sweep:
  /// a diffusion coefficient D(phi) (per cell, averaged to faces harmonically), and a
  /// source S(phi), linearized as S(phi*) + S'(phi*) (phi - phi*) where S' < 0 (that part
  /// goes into the matrix, as FiPy's ImplicitSourceTerm) and explicit otherwise. They
  /// replace any constant diffusion or source given before.
  Equation& diffusion(const Polynomial& D);
  Equation& source(const Polynomial& S);

  /// FiPy's fourth-order DiffusionTerm in the form phase-field equations take it: adds
  ///
  ///   div(D grad mu),   mu = g(phi) - div(kappa grad phi),
  ///
  /// FiPy's DiffusionTerm(coeff=D g'(phi)) - DiffusionTerm(coeff=(D, kappa)); with
  /// g = f' it is Cahn-Hilliard's right-hand side, with g = 0 the bare
  /// -DiffusionTerm(coeff=(D, kappa)). Discretely mu = g(phi) - V^-1 L_kappa phi per cell
  /// and the term is L_D mu: the product of the two face operators, a matrix with the
  /// neighbours' neighbours in every row (FiPy builds the same product). g is linearized
  /// by Newton around the latest iterate (sweeps when g is nonlinear). The inner
  /// operator takes phi's boundary conditions (boundary()); the outer one takes mu's
  /// (higherOrderBoundary(); zero flux where not set). D >= 0 and kappa >= 0, finite;
  /// the second-order part D g'(phi) may be negative (anti-diffusive where g' < 0, as
  /// in Cahn-Hilliard's spinodal region): the fourth-order part dominates it.
  Equation& higherOrderDiffusion(Real D, Real kappa, const Polynomial& g = Polynomial{0});
  /// The same with D and kappa given per cell (finite and >= 0; checked here and, as
  /// fields may change, at every validate()). On a face each is the distance-weighted
  /// harmonic mean of its two cells' values, as for a diffusion field, the cell's own
  /// on a boundary face. (FiPy takes cell coefficients' arithmetic means, its
  /// arithmeticFaceValue: give those as face fields.)
  Equation& higherOrderDiffusion(const CellField<ExecSpace>& D,
                                 const CellField<ExecSpace>& kappa,
                                 const Polynomial& g = Polynomial{0});
  /// The same with D and kappa given per face, used as they are.
  Equation& higherOrderDiffusion(const FaceField<ExecSpace>& D,
                                 const FaceField<ExecSpace>& kappa,
                                 const Polynomial& g = Polynomial{0});
  /// Boundary condition on mu of the higher-order term, a mu + b dmu/dn = g: FiPy's
  /// NthOrderBoundaryCondition of order 2 (or phi.faceGrad.divergence.constrain) when
  /// g(phi) vanishes on the patch.
  Equation& higherOrderBoundary(const std::string& patch,
                                const BoundaryCondition& condition);
  Equation& higherOrderBoundary(Patch patch, const BoundaryCondition& condition);
  /// The same face by face (BoundaryConditions::setSlots).
  Equation& higherOrderBoundarySlots(const std::vector<Ordinal>& slots,
                                     const std::vector<Real>& a,
                                     const std::vector<Real>& b,
                                     const std::vector<Real>& g);

  /// Re-evaluates the solution-dependent coefficients at phi (ImplicitStepper and
  /// ExplicitStepper call it before each assembly).
  void updateNonlinear(const CellField<ExecSpace>& phi) const;

  /// Throws kfvm::Error naming the first coefficient value that is NaN, infinite, or (for
  /// D and rho) negative. Called by the assembler on construction; every assembly checks
  /// the diffusion coefficient again (see diffusion()), but call it after changing the
  /// values of another coefficient field (rho, c, s, a velocity).
  void validate() const;

  const Mesh<ExecSpace>& mesh() const { return mesh_; }
  const BoundaryConditions<ExecSpace>& boundaryConditions() const { return bcs_; }
  bool hasTransient() const { return hasTransient_; }
  bool diffusionPerFace() const { return diffusionPerFace_; }
  DiffusionSign diffusionSign() const { return diffusionSign_; }
  ImplicitSourceForm implicitSourceForm() const { return implicitSourceForm_; }
  bool hasExplicitDiffusion() const { return hasExplicitDiffusion_; }
  /// The explicit diffusion coefficient: a constant or one value per face.
  const Coefficient<ExecSpace>& explicitDiffusionCoefficient() const {
    return explicitD_;
  }
  ExplicitDiffusionBoundary explicitDiffusionBoundary() const {
    return explicitBoundary_;
  }
  /// True when the diffusion coefficient is D(phi) (diffusion(Polynomial)).
  bool diffusionIsPolynomial() const { return nonlinearDiffusion_; }
  DiffusionCorrection diffusionCorrection() const { return correction_; }
  bool hasDiffusionTensor() const { return hasTensor_; }
  /// The diffusion tensor as kernels read it (a constant, or one per face).
  const TensorCoefficient<ExecSpace>& diffusionTensor() const { return tensor_; }
  /// True when the right-hand side takes the diffusion's cross terms: the correction,
  /// or a tensor.
  bool hasDiffusionCrossTerms() const {
    return correction_ != DiffusionCorrection::None || hasTensor_;
  }
  CellGradient correctionGradient() const { return correctionGradient_; }
  const Coefficient<ExecSpace>& transientCoefficient() const { return rho_; }
  const Coefficient<ExecSpace>& diffusionCoefficient() const { return D_; }
  const Coefficient<ExecSpace>& implicitSourceCoefficient() const { return c_; }
  const Coefficient<ExecSpace>& sourceCoefficient() const { return s_; }
  bool hasConvection() const { return hasConvection_; }
  ConvectionScheme convectionScheme() const { return scheme_; }
  /// The convection velocity as kernels read it: velocity.normal(f, normals).
  const ConvectionVelocity<ExecSpace>& convectionVelocity() const { return velocity_; }
  bool hasExplicitConvection() const { return hasExplicitConvection_; }
  ExplicitConvectionScheme explicitConvectionScheme() const { return explicitScheme_; }
  ExplicitGradientBoundary explicitGradientBoundary() const {
    return explicitGradientBoundary_;
  }
  const ConvectionVelocity<ExecSpace>& explicitConvectionVelocity() const {
    return explicitVelocity_;
  }
  /// True when the discrete equation is nonlinear in phi and a solve needs sweeps (TVD
  /// convection's deferred correction).
  bool needsSweeps() const {
    return (hasConvection_ && isTvd(scheme_)) || nonlinearDiffusion_ ||
           hasDiffusionCrossTerms() || nonlinearSource_ ||
           (hasHigherOrder_ && higherOrderLaw_.terms > 2);
  }
  /// The higher-order term, when there is one.
  bool hasHigherOrder() const { return hasHigherOrder_; }
  Coefficient<ExecSpace> higherOrderMobility() const { return higherOrderD_; }
  Coefficient<ExecSpace> higherOrderKappa() const { return higherOrderKappa_; }
  /// True when the two are given per face (else per cell, or numbers).
  bool higherOrderPerFace() const { return higherOrderPerFace_; }
  const Polynomial& higherOrderLaw() const { return higherOrderLaw_; }
  const BoundaryConditions<ExecSpace>& higherOrderBoundaryConditions() const {
    return higherOrderBcs_;
  }

 private:
  /// The higher-order term's coefficients, checked (finite, >= 0), and its law.
  Equation& setHigherOrder(const Coefficient<ExecSpace>& D,
                           const Coefficient<ExecSpace>& kappa, bool perFace,
                           const Polynomial& g);
  Coefficient<ExecSpace> checkedCellCoefficient(const CellField<ExecSpace>& field,
                                                const char* role) const;
  ConvectionVelocity<ExecSpace> checkedVelocity(Real ux, Real uy, Real uz,
                                                const char* role) const;
  ConvectionVelocity<ExecSpace> checkedVelocity(
      const FaceField<ExecSpace>& normalVelocity, const char* role) const;
  /// Makes tensor_ the diffusion coefficient: n.Gamma.n per face into D_.
  Equation& setDiffusionTensor(const TensorCoefficient<ExecSpace>& tensor);
  /// Checks a tensor field again and recomputes its face means and n.Gamma.n.
  void refreshDiffusionTensor() const;

  Mesh<ExecSpace> mesh_;
  BoundaryConditions<ExecSpace> bcs_, higherOrderBcs_;
  bool hasTransient_ = false;
  bool diffusionPerFace_ = false;
  DiffusionSign diffusionSign_ = DiffusionSign::NonNegative;
  ImplicitSourceForm implicitSourceForm_ = ImplicitSourceForm::Matrix;
  bool hasExplicitDiffusion_ = false;
  Coefficient<ExecSpace> explicitD_;
  ExplicitDiffusionBoundary explicitBoundary_ =
      ExplicitDiffusionBoundary::EquationConditions;
  bool hasConvection_ = false;
  ConvectionScheme scheme_ = ConvectionScheme::Upwind;
  Coefficient<ExecSpace> rho_, D_, c_, s_;
  ConvectionVelocity<ExecSpace> velocity_;
  bool hasExplicitConvection_ = false;
  ExplicitConvectionScheme explicitScheme_ = ExplicitConvectionScheme::Upwind;
  ExplicitGradientBoundary explicitGradientBoundary_ =
      ExplicitGradientBoundary::CellValues;
  ConvectionVelocity<ExecSpace> explicitVelocity_;
  bool convectsThroughSlotsOnly_ = false;
  DeviceView<Real*, ExecSpace> convectingSlots_;
  bool nonlinearDiffusion_ = false, nonlinearSource_ = false;
  DiffusionCorrection correction_ = DiffusionCorrection::None;
  bool hasTensor_ = false;
  TensorCoefficient<ExecSpace> tensor_;
  DeviceView<const Real* [6], ExecSpace> cellTensors_;  // diffusion(CellTensorField)
  DeviceView<Real* [6], ExecSpace> faceTensorMeans_;    // their face means
  DeviceView<Real*, ExecSpace> tensorNormalNormal_;     // n.Gamma.n per face
  CellGradient correctionGradient_ = CellGradient::LeastSquares;
  Polynomial diffusionLaw_, sourceLaw_;
  bool hasHigherOrder_ = false;
  Coefficient<ExecSpace> higherOrderD_, higherOrderKappa_;
  bool higherOrderPerFace_ = false;
  Polynomial higherOrderLaw_;
  Vector<ExecSpace> nonlinearD_, nonlinearC_, nonlinearS_;  // filled by updateNonlinear
};

}  // namespace kfvm

#endif
