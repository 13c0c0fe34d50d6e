#ifndef KFVM_KRYLOV_METHOD_HPP
#define KFVM_KRYLOV_METHOD_HPP

#include <kfvm_LinearOperator.hpp>
#include <kfvm_Parameters.hpp>
#include <kfvm_Preconditioner.hpp>
#include <kfvm_SolverReport.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kfvm {

/// A Krylov method: solves A x = b for any LinearOperator with any Preconditioner, on
/// one process or many (dot products through the operator's VectorSpace). Written once:
/// the same code serves the assembled matrix, the matrix-free stencil, a coupled block
/// matrix and a rank's owned rows. Create one by name with makeKrylovMethod().
template <class ExecSpace>
class KrylovMethod {
 public:
  virtual ~KrylovMethod() = default;
  KrylovMethod(const KrylovMethod&) = delete;
  KrylovMethod& operator=(const KrylovMethod&) = delete;

  const std::string& name() const { return name_; }
  /// Allocates the workspaces for vectors of n entries; solve() allocates nothing.
  virtual void allocate(Ordinal n) = 0;
  /// Solves with x as the initial guess; x holds the answer. M must be set up for A.
  /// A solve that stops without converging says so in the report (it does not throw).
  virtual SolverReport solve(const LinearOperator<ExecSpace>& A,
                             const Preconditioner<ExecSpace>& M,
                             const Vector<ExecSpace>& b, const Vector<ExecSpace>& x,
                             const StoppingCriterion& criterion) = 0;
  /// True for a method that accepts a preconditioner that changes between applications
  /// (fcg, fgmres).
  virtual bool flexible() const { return false; }

 protected:
  explicit KrylovMethod(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

/// Creates a Krylov method:
///  - "cg": preconditioned conjugate gradients (symmetric positive definite A and M).
///    With Jacobi or no preconditioner on one process, the fused iteration: three
///    kernels and one host round trip per iteration;
///  - "fcg": flexible CG (Notay's FCG(1): the Polak-Ribiere beta), for a preconditioner
///    that is not a fixed symmetric operator;
///  - "bicgstab": right-preconditioned BiCGStab, for non-symmetric A;
///  - "gmres": restarted GMRES(m), right-preconditioned (parameter restart, default 30);
///  - "fgmres": flexible GMRES(m), which keeps each preconditioned basis vector;
///  - "richardson": x += M (b - A x), the preconditioner as a stationary solver
///    (standalone multigrid with "mg").
template <class ExecSpace>
std::unique_ptr<KrylovMethod<ExecSpace>> makeKrylovMethod(const std::string& name,
                                                          const Parameters& parameters);

/// Names makeKrylovMethod() accepts, and the parameter keys method name reads.
std::vector<std::string> krylovMethodNames();
std::set<std::string> krylovMethodParameters(const std::string& name);

}  // namespace kfvm

#endif
