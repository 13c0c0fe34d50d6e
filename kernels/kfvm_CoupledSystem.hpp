#ifndef KFVM_COUPLED_SYSTEM_HPP
#define KFVM_COUPLED_SYSTEM_HPP

#include <kfvm_BoundaryCondition.hpp>
#include <kfvm_Coefficient.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Equation.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_Polynomial.hpp>

#include <vector>

namespace kfvm {

/// Coefficients of a coupled system as kernels read them: entry [e][v] acts in equation
/// e on variable v; each is a constant or one value per cell (per face for D).
template <class ExecSpace>
struct CoupledCoefficients {
  static constexpr int maxVariables = maxCoupledVariables;
  int numVariables = 0;
  Coefficient<ExecSpace> rho[maxVariables][maxVariables];
  Coefficient<ExecSpace> D[maxVariables][maxVariables];
  Coefficient<ExecSpace> c[maxVariables][maxVariables];
  bool cDiagonalOnly[maxVariables][maxVariables] = {};
  Polynomial S[maxVariables][maxVariables];
  bool hasS[maxVariables][maxVariables] = {};
  Coefficient<ExecSpace> s[maxVariables];
};

/// Several cell variables solved together as one block system (FiPy's eq1 & eq2).
/// Equation e reads
///
///   sum_v rho_ev dphi_v/dt = sum_v [ div(D_ev grad phi_v) + c_ev phi_v + S_ev(phi_v) ] +
///   s_e
///
/// with coefficients that are constants or fields (rho_ev, c_ev and s_e per cell, D_ev
/// per face, any sign but rho_ev >= 0: the coupling blocks of FiPy's eq1 & eq2 take
/// either) and polynomial sources S_ev, linearized by Newton around the latest iterate
/// (so sweeps converge quadratically). A field coefficient is read at every assembly:
/// refill its values between steps and the next step uses them (CoupledStepper checks
/// them at every step: checkValues()). c_ev may take FiPy's
/// ImplicitSourceForm::DiagonalOnly: cells where c_ev <= 0 keep c_ev in block (e, v) of
/// the matrix; elsewhere c_ev phi_v* at the latest iterate goes to the right-hand side.
/// Boundary conditions belong to
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
  CoupledSystem& transient(int equation, int variable, const CellField<ExecSpace>& rho);
  CoupledSystem& diffusion(int equation, int variable, Real D);
  CoupledSystem& diffusion(int equation, int variable, const FaceField<ExecSpace>& D);
  CoupledSystem& implicitSource(int equation, int variable, Real c,
                                ImplicitSourceForm form = ImplicitSourceForm::Matrix);
  CoupledSystem& implicitSource(int equation, int variable, const CellField<ExecSpace>& c,
                                ImplicitSourceForm form = ImplicitSourceForm::Matrix);
  CoupledSystem& source(int equation, int variable, const Polynomial& S);
  CoupledSystem& source(int equation, Real s);
  CoupledSystem& source(int equation, const CellField<ExecSpace>& s);
  /// Sets variable's condition on a patch; throws kfvm::Error naming the variable, patch
  /// or value (see BoundaryConditions::set).
  CoupledSystem& boundary(int variable, const std::string& patch,
                          const BoundaryCondition& condition);
  CoupledSystem& boundary(int variable, Patch patch, const BoundaryCondition& condition);
  /// Variable's Robin coefficients face by face (BoundaryConditions::setSlots).
  CoupledSystem& boundarySlots(int variable, const std::vector<Ordinal>& slots,
                               const std::vector<Real>& a, const std::vector<Real>& b,
                               const std::vector<Real>& g);

  /// Throws kfvm::Error when an equation has no term or a variable appears in none.
  void validate() const;
  /// Throws kfvm::Error naming the block, the cell or face and the value when a field
  /// coefficient holds a value that is not finite (or a negative transient coefficient):
  /// fields are checked when set, and again here, since their values may be refilled.
  void checkValues() const;

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
  /// Variable's boundary conditions (throws kfvm::Error for a variable out of range).
  const BoundaryConditions<ExecSpace>& boundaryConditions(int variable) const;
  /// True when equation has a transient term on some variable (else it is algebraic:
  /// a constraint that holds at every instant, as Cahn-Hilliard's mu equation).
  bool hasTransient(int equation) const;

 private:
  void checkIndices(int equation, int variable) const;
  /// variable < 0: a field of the equation alone (its source).
  template <Centering Where>
  Coefficient<ExecSpace> checkedField(const Field<ExecSpace, Where>& field, int equation,
                                      int variable, const char* role,
                                      bool nonNegative) const;
  static void checkCoefficient(const Coefficient<ExecSpace>& coefficient, int equation,
                               int variable, const char* role, const char* where,
                               bool nonNegative);
  void buildStructure();

  Mesh<ExecSpace> mesh_;
  CoupledCoefficients<ExecSpace> coefficients_;
  CrsMatrix<ExecSpace> scalarPattern_;  // the cell-to-cell stencil
  CrsMatrix<ExecSpace> matrix_;
  std::vector<BoundaryConditions<ExecSpace>> boundaries_;  // one per variable
};

}  // namespace kfvm

#endif
