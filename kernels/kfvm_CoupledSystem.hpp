#ifndef KFVM_COUPLED_SYSTEM_HPP
#define KFVM_COUPLED_SYSTEM_HPP

#include <kfvm_BoundaryCondition.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_Polynomial.hpp>

#include <vector>

namespace kfvm {

/// Coefficients of a coupled system as kernels read them: entry [e][v] acts in equation
/// e on variable v.
struct CoupledCoefficients {
  static constexpr int maxVariables = 4;
  int numVariables = 0;
  Real rho[maxVariables][maxVariables] = {};
  Real D[maxVariables][maxVariables] = {};
  Real c[maxVariables][maxVariables] = {};
  Polynomial S[maxVariables][maxVariables];
  bool hasS[maxVariables][maxVariables] = {};
  Real s[maxVariables] = {};
};

/// Several cell variables solved together as one block system (FiPy's eq1 & eq2).
/// Equation e reads
///
///   sum_v rho_ev dphi_v/dt = sum_v [ div(D_ev grad phi_v) + c_ev phi_v + S_ev(phi_v) ] +
///   s_e
///
/// with constant coefficients and polynomial sources S_ev, linearized by Newton around
/// the latest iterate (so sweeps converge quadratically). Boundary conditions belong to
/// the variables: boundary(v, patch, condition) holds for variable v on that patch, in
/// every diffusion term D_ev acting on it (Robin form, as for Equation); patches not set
/// are zero flux (the usual phase-field setting). The block matrix interleaves
/// the variables per cell (unknown cell * n + v); its structure is built once, and values
/// and right-hand side are refilled on the device by one gathering loop per block row.
/// The off-diagonal blocks (e != v) are the coupling terms.
///
/// Cahn-Hilliard in (phi, mu): equation 0: dphi/dt = div(M grad mu); equation 1:
/// 0 = div(eps^2 grad phi) + mu + (phi - phi^3).
template <class ExecSpace>
class CoupledSystem {
 public:
  CoupledSystem(const Mesh<ExecSpace>& mesh, int numVariables);

  CoupledSystem& transient(int equation, int variable, Real rho = 1);
  CoupledSystem& diffusion(int equation, int variable, Real D);
  CoupledSystem& implicitSource(int equation, int variable, Real c);
  CoupledSystem& source(int equation, int variable, const Polynomial& S);
  CoupledSystem& source(int equation, Real s);
  /// Sets variable's condition on a patch; throws kfvm::Error naming the variable, patch
  /// or value (see BoundaryConditions::set).
  CoupledSystem& boundary(int variable, Patch patch, const BoundaryCondition& condition);
  /// Variable's Robin coefficients face by face (BoundaryConditions::setSlots).
  CoupledSystem& boundarySlots(int variable, const std::vector<Ordinal>& slots,
                               const std::vector<Real>& a, const std::vector<Real>& b,
                               const std::vector<Real>& g);

  /// Throws kfvm::Error when an equation has no term or a variable appears in none.
  void validate() const;

  /// Refills matrix() and rhs for a backward-Euler step (invDt = 0: steady) from the
  /// previous values and the iterate, both interleaved block vectors.
  void assemble(Real invDt, const Vector<ExecSpace>& previous,
                const Vector<ExecSpace>& iterate, const Vector<ExecSpace>& rhs);

  /// Interleaved block vector <-> one field per variable.
  void pack(const std::vector<CellField<ExecSpace>>& fields,
            const Vector<ExecSpace>& x) const;
  void unpack(const Vector<ExecSpace>& x,
              std::vector<CellField<ExecSpace>>& fields) const;

  const Mesh<ExecSpace>& mesh() const { return mesh_; }
  int numVariables() const { return coefficients_.numVariables; }
  Ordinal size() const { return mesh_.numCells() * numVariables(); }
  const CrsMatrix<ExecSpace>& matrix() const { return matrix_; }
  bool isNonlinear() const;

 private:
  void checkIndices(int equation, int variable) const;
  void buildStructure();

  Mesh<ExecSpace> mesh_;
  CoupledCoefficients coefficients_;
  CrsMatrix<ExecSpace> scalarPattern_;  // the cell-to-cell stencil
  CrsMatrix<ExecSpace> matrix_;
  std::vector<BoundaryConditions<ExecSpace>> boundaries_;  // one per variable
};

}  // namespace kfvm

#endif
