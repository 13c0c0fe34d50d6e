#include <kfvm_Backends.hpp>
#include <kfvm_Equation.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include "detail/kfvm_CoefficientChecks.hpp"

#include <cmath>
#include <string>

namespace kfvm {

template <class ExecSpace>
Equation<ExecSpace>::Equation(const Mesh<ExecSpace>& mesh)
    : mesh_(mesh), bcs_(mesh), higherOrderBcs_(mesh) {}

template <class ExecSpace>
Coefficient<ExecSpace> Equation<ExecSpace>::checkedCellCoefficient(
    const CellField<ExecSpace>& field, const char* role) const {
  field.requireOn(mesh_, role);
  return Coefficient<ExecSpace>{0, field.values()};
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::transient(Real rho) {
  rho_ = Coefficient<ExecSpace>{rho, {}};
  Details::requireValidCoefficient(rho_, "transient", "cell", true);
  hasTransient_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::transient(const CellField<ExecSpace>& rho) {
  rho_ = checkedCellCoefficient(rho, "transient");
  Details::requireValidCoefficient(rho_, "transient", "cell", true);
  hasTransient_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(Real D) {
  return diffusion(D, DiffusionSign::NonNegative);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(Real D, DiffusionSign sign) {
  Details::requireValidCoefficient(Coefficient<ExecSpace>{D, {}}, "diffusion", "cell",
                                   sign == DiffusionSign::NonNegative);
  nonlinearDiffusion_ = false;
  D_ = Coefficient<ExecSpace>{D, {}};
  hasTensor_ = false;
  diffusionPerFace_ = false;
  diffusionSign_ = sign;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(const CellField<ExecSpace>& D) {
  nonlinearDiffusion_ = false;
  D_ = checkedCellCoefficient(D, "diffusion");
  hasTensor_ = false;
  diffusionPerFace_ = false;
  diffusionSign_ = DiffusionSign::NonNegative;
  Details::requireValidCoefficient(D_, "diffusion", "cell", true);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(const FaceField<ExecSpace>& D) {
  return diffusion(D, DiffusionSign::NonNegative);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(const FaceField<ExecSpace>& D,
                                                    DiffusionSign sign) {
  D.requireOn(mesh_, "diffusion");
  Details::requireValidCoefficient(Coefficient<ExecSpace>{0, D.values()}, "diffusion",
                                   "face", sign == DiffusionSign::NonNegative);
  nonlinearDiffusion_ = false;
  D_ = Coefficient<ExecSpace>{0, D.values()};
  diffusionPerFace_ = true;
  hasTensor_ = false;
  diffusionSign_ = sign;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::explicitDiffusion(
    Real D, ExplicitDiffusionBoundary boundary) {
  Details::requireValidCoefficient(Coefficient<ExecSpace>{D, {}}, "explicit diffusion",
                                   "face", false);
  explicitD_ = Coefficient<ExecSpace>{D, {}};
  hasExplicitDiffusion_ = true;
  explicitBoundary_ = boundary;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::explicitDiffusion(
    const FaceField<ExecSpace>& D, ExplicitDiffusionBoundary boundary) {
  D.requireOn(mesh_, "explicit diffusion");
  explicitD_ = Coefficient<ExecSpace>{0, D.values()};
  Details::requireValidCoefficient(explicitD_, "explicit diffusion", "face", false);
  hasExplicitDiffusion_ = true;
  explicitBoundary_ = boundary;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::implicitSource(Real c) {
  return implicitSource(c, ImplicitSourceForm::Matrix);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::implicitSource(Real c,
                                                         ImplicitSourceForm form) {
  require(!nonlinearSource_, "the source Polynomial sets the implicit source; add ", c,
          " phi to the Polynomial instead");
  c_ = Coefficient<ExecSpace>{c, {}};
  Details::requireValidCoefficient(c_, "implicit source", "cell", false);
  implicitSourceForm_ = form;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::implicitSource(const CellField<ExecSpace>& c) {
  return implicitSource(c, ImplicitSourceForm::Matrix);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::implicitSource(const CellField<ExecSpace>& c,
                                                         ImplicitSourceForm form) {
  require(!nonlinearSource_, "the source Polynomial sets the implicit source; field '",
          c.name(), "' cannot be added to it");
  c_ = checkedCellCoefficient(c, "implicit source");
  Details::requireValidCoefficient(c_, "implicit source", "cell", false);
  implicitSourceForm_ = form;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::source(Real s) {
  if (nonlinearSource_) c_ = Coefficient<ExecSpace>{};  // drop the linearized part
  nonlinearSource_ = false;
  s_ = Coefficient<ExecSpace>{s, {}};
  Details::requireValidCoefficient(s_, "source", "cell", false);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::source(const CellField<ExecSpace>& s) {
  if (nonlinearSource_) c_ = Coefficient<ExecSpace>{};
  nonlinearSource_ = false;
  s_ = checkedCellCoefficient(s, "source");
  Details::requireValidCoefficient(s_, "source", "cell", false);
  return *this;
}

template <class ExecSpace>
ConvectionVelocity<ExecSpace> Equation<ExecSpace>::checkedVelocity(
    Real ux, Real uy, Real uz, const char* role) const {
  const Real components[3] = {ux, uy, uz};
  const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    require(std::isfinite(components[a]), role, " ", names[a],
            " component must be finite, got ", components[a]);
    require(a < mesh_.dimension() || components[a] == 0, role, " has a ", names[a],
            " component (", components[a], ") on a ", mesh_.dimension(), "D mesh");
  }
  ConvectionVelocity<ExecSpace> velocity;
  for (int a = 0; a < 3; ++a) velocity.vector[a] = components[a];
  return velocity;
}

template <class ExecSpace>
ConvectionVelocity<ExecSpace> Equation<ExecSpace>::checkedVelocity(
    const FaceField<ExecSpace>& normalVelocity, const char* role) const {
  normalVelocity.requireOn(mesh_, role);
  Details::requireValidCoefficient(Coefficient<ExecSpace>{0, normalVelocity.values()},
                                   role, "face", false);
  ConvectionVelocity<ExecSpace> velocity;
  velocity.normalValues = normalVelocity.values();
  return velocity;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::convection(Real ux, Real uy, Real uz,
                                                     ConvectionScheme scheme) {
  velocity_ = checkedVelocity(ux, uy, uz, "convection velocity");
  scheme_ = scheme;
  hasConvection_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::convection(
    const FaceField<ExecSpace>& normalVelocity, ConvectionScheme scheme) {
  velocity_ = checkedVelocity(normalVelocity, "convection velocity");
  scheme_ = scheme;
  hasConvection_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::explicitConvection(
    Real ux, Real uy, Real uz, ExplicitConvectionScheme scheme,
    ExplicitGradientBoundary gradientBoundary) {
  explicitVelocity_ = checkedVelocity(ux, uy, uz, "explicit convection velocity");
  explicitScheme_ = scheme;
  explicitGradientBoundary_ = gradientBoundary;
  hasExplicitConvection_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::explicitConvection(
    const FaceField<ExecSpace>& normalVelocity, ExplicitConvectionScheme scheme,
    ExplicitGradientBoundary gradientBoundary) {
  explicitVelocity_ = checkedVelocity(normalVelocity, "explicit convection velocity");
  explicitScheme_ = scheme;
  explicitGradientBoundary_ = gradientBoundary;
  hasExplicitConvection_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusionCorrection(DiffusionCorrection scheme,
                                                              CellGradient gradient) {
  require(scheme == DiffusionCorrection::None ||
              mesh().geometryConvention() == GeometryConvention::Centroids,
          "the non-orthogonal correction needs a mesh of GeometryConvention::Centroids "
          "(distances projected on the normals); this one follows FiPy's");
  correction_ = scheme;
  correctionGradient_ = gradient;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::boundary(const std::string& patch,
                                                   const BoundaryCondition& condition) {
  bcs_.set(patch, condition);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::boundary(Patch patch,
                                                   const BoundaryCondition& condition) {
  return boundary(patchName(patch), condition);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::boundarySlots(const std::vector<Ordinal>& slots,
                                                        const std::vector<Real>& a,
                                                        const std::vector<Real>& b,
                                                        const std::vector<Real>& g) {
  bcs_.setSlots(slots, a, b, g);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::convectionThroughSlots(
    const std::vector<Ordinal>& slots) {
  const Ordinal numSlots = mesh_.numBoundaryFaces();
  auto host =
      Kokkos::View<Real*, Kokkos::HostSpace>("kfvm::Equation::convectingSlots", numSlots);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    require(slots[i] >= 0 && slots[i] < numSlots, "convectionThroughSlots: slot ",
            slots[i], " (entry ", i, ") is not one of the mesh's ", numSlots,
            " boundary faces");
    host(slots[i]) = 1;
  }
  convectingSlots_ =
      DeviceView<Real*, ExecSpace>("kfvm::Equation::convectingSlots", numSlots);
  Kokkos::deep_copy(convectingSlots_, host);
  convectsThroughSlotsOnly_ = true;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderBoundarySlots(
    const std::vector<Ordinal>& slots, const std::vector<Real>& a,
    const std::vector<Real>& b, const std::vector<Real>& g) {
  higherOrderBcs_.setSlots(slots, a, b, g);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(const Polynomial& D) {
  require(D.terms > 0, "diffusion Polynomial has no coefficients");
  diffusionLaw_ = D;
  nonlinearDiffusion_ = true;
  nonlinearD_ = Vector<ExecSpace>("kfvm::Equation::nonlinearDiffusion", mesh_.numCells());
  D_ = Coefficient<ExecSpace>{0, nonlinearD_};
  hasTensor_ = false;
  diffusionPerFace_ = false;
  diffusionSign_ = DiffusionSign::NonNegative;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::source(const Polynomial& S) {
  require(S.terms > 0, "source Polynomial has no coefficients");
  sourceLaw_ = S;
  nonlinearSource_ = true;
  nonlinearC_ =
      Vector<ExecSpace>("kfvm::Equation::linearizedImplicitSource", mesh_.numCells());
  nonlinearS_ = Vector<ExecSpace>("kfvm::Equation::linearizedSource", mesh_.numCells());
  c_ = Coefficient<ExecSpace>{0, nonlinearC_};
  s_ = Coefficient<ExecSpace>{0, nonlinearS_};
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderDiffusion(Real D, Real kappa,
                                                               const Polynomial& g) {
  require(std::isfinite(D) && D >= 0,
          "higher-order diffusion coefficient D must be finite and >= 0, got ", D);
  require(std::isfinite(kappa) && kappa >= 0,
          "higher-order diffusion coefficient kappa must be finite and >= 0, got ",
          kappa);
  return setHigherOrder({D, {}}, {kappa, {}}, false, g);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderDiffusion(
    const CellField<ExecSpace>& D, const CellField<ExecSpace>& kappa,
    const Polynomial& g) {
  return setHigherOrder(checkedCellCoefficient(D, "higher-order diffusion D"),
                        checkedCellCoefficient(kappa, "higher-order diffusion kappa"),
                        false, g);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderDiffusion(
    const FaceField<ExecSpace>& D, const FaceField<ExecSpace>& kappa,
    const Polynomial& g) {
  D.requireOn(mesh_, "higher-order diffusion D");
  kappa.requireOn(mesh_, "higher-order diffusion kappa");
  return setHigherOrder({0, D.values()}, {0, kappa.values()}, true, g);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::setHigherOrder(
    const Coefficient<ExecSpace>& D, const Coefficient<ExecSpace>& kappa, bool perFace,
    const Polynomial& g) {
  const char* where = perFace ? "face" : "cell";
  Details::requireValidCoefficient(D, "higher-order diffusion D", where, true);
  Details::requireValidCoefficient(kappa, "higher-order diffusion kappa", where, true);
  require(g.terms > 0, "higher-order diffusion Polynomial g has no coefficients");
  hasHigherOrder_ = true;
  higherOrderD_ = D;
  higherOrderKappa_ = kappa;
  higherOrderPerFace_ = perFace;
  higherOrderLaw_ = g;
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderBoundary(
    const std::string& patch, const BoundaryCondition& condition) {
  higherOrderBcs_.set(patch, condition);
  return *this;
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::higherOrderBoundary(
    Patch patch, const BoundaryCondition& condition) {
  return higherOrderBoundary(patchName(patch), condition);
}

namespace Details {

template <class ExecSpace>
struct NonlinearUpdate {
  Vector<ExecSpace> phi, D, c, s;
  Polynomial diffusionLaw, sourceLaw;
  bool diffusion, source;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const Real value = phi(cell);
    if (diffusion) D(cell) = diffusionLaw(value);
    if (source) {
      const Real slope = sourceLaw.derivative(value);
      const Real implicitPart = slope < 0 ? slope : Real(0);
      c(cell) = implicitPart;
      s(cell) = sourceLaw(value) - implicitPart * value;
    }
  }
};

}  // namespace Details

template <class ExecSpace>
void Equation<ExecSpace>::updateNonlinear(const CellField<ExecSpace>& phi) const {
  if (hasTensor_ && tensor_.isField()) refreshDiffusionTensor();
  if (!nonlinearDiffusion_ && !nonlinearSource_) return;
  phi.requireOn(mesh_, "nonlinear-coefficient");
  forEachCell("kfvm::Equation::updateNonlinear", mesh_,
              Details::NonlinearUpdate<ExecSpace>{phi.values(), nonlinearD_, nonlinearC_,
                                                  nonlinearS_, diffusionLaw_, sourceLaw_,
                                                  nonlinearDiffusion_, nonlinearSource_});
}

template <class ExecSpace>
void Equation<ExecSpace>::validate() const {
  Details::requireValidCoefficient(rho_, "transient", "cell", true);
  Details::requireValidCoefficient(D_, "diffusion", diffusionPerFace_ ? "face" : "cell",
                                   diffusionSign_ == DiffusionSign::NonNegative);
  if (hasExplicitDiffusion_)
    Details::requireValidCoefficient(explicitD_, "explicit diffusion", "face", false);
  Details::requireValidCoefficient(c_, "implicit source", "cell", false);
  Details::requireValidCoefficient(s_, "source", "cell", false);
  if (hasHigherOrder_) {
    const char* where = higherOrderPerFace_ ? "face" : "cell";
    Details::requireValidCoefficient(higherOrderD_, "higher-order diffusion D", where,
                                     true);
    Details::requireValidCoefficient(higherOrderKappa_, "higher-order diffusion kappa",
                                     where, true);
  }
  if (velocity_.normalValues.extent(0) > 0)
    Details::requireValidCoefficient(Coefficient<ExecSpace>{0, velocity_.normalValues},
                                     "convection velocity", "face", false);
  if (explicitVelocity_.normalValues.extent(0) > 0)
    Details::requireValidCoefficient(
        Coefficient<ExecSpace>{0, explicitVelocity_.normalValues},
        "explicit convection velocity", "face", false);
}

#define KFVM_INSTANTIATE_EQUATION(Space) template class Equation<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_EQUATION)

}  // namespace kfvm
