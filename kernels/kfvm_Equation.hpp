#ifndef KFVM_EQUATION_HPP
#define KFVM_EQUATION_HPP

#include <kfvm_BoundaryCondition.hpp>
#include <kfvm_Coefficient.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

namespace kfvm {

/// One scalar transport equation built from FiPy's terms:
///
///   TransientTerm(rho) == DiffusionTerm(D) + ImplicitSourceTerm(c) + source(s)
///   i.e.   rho dphi/dt = div(D grad phi) + c phi + s
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
  Equation& diffusion(const CellField<ExecSpace>& D);
  Equation& diffusion(const FaceField<ExecSpace>& D);
  Equation& implicitSource(Real c);
  Equation& implicitSource(const CellField<ExecSpace>& c);
  Equation& source(Real s);
  Equation& source(const CellField<ExecSpace>& s);
  Equation& boundary(Patch patch, const BoundaryCondition& condition);

  /// Throws kfvm::Error naming the first coefficient value that is NaN, infinite, or (for
  /// D and rho) negative. Called by the assembler on construction; call it again after
  /// changing a coefficient field's values.
  void validate() const;

  const Mesh<ExecSpace>& mesh() const { return mesh_; }
  const BoundaryConditions<ExecSpace>& boundaryConditions() const { return bcs_; }
  bool hasTransient() const { return hasTransient_; }
  bool diffusionPerFace() const { return diffusionPerFace_; }
  const Coefficient<ExecSpace>& transientCoefficient() const { return rho_; }
  const Coefficient<ExecSpace>& diffusionCoefficient() const { return D_; }
  const Coefficient<ExecSpace>& implicitSourceCoefficient() const { return c_; }
  const Coefficient<ExecSpace>& sourceCoefficient() const { return s_; }

 private:
  Coefficient<ExecSpace> checkedCellCoefficient(const CellField<ExecSpace>& field,
                                                const char* role) const;

  Mesh<ExecSpace> mesh_;
  BoundaryConditions<ExecSpace> bcs_;
  bool hasTransient_ = false;
  bool diffusionPerFace_ = false;
  Coefficient<ExecSpace> rho_, D_, c_, s_;
};

}  // namespace kfvm

#endif
