#ifndef KFVM_BOUNDARY_CONDITION_HPP
#define KFVM_BOUNDARY_CONDITION_HPP

#include <kfvm_Mesh.hpp>
#include <kfvm_Patch.hpp>
#include <kfvm_Types.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// What holds on one boundary patch, in Robin form a*phi + b*dphi/dn = g with n the
/// outward normal:
///  - dirichlet(v): phi = v                  (a = 1, b = 0, g = v)
///  - neumann(q):   dphi/dn = q (outward)    (a = 0, b = 1, g = q); for a diffusion term
///                  the outward flux through the face is D * q * area; q = 0 is no flux
///  - robin(a, b, g)
/// g is one value for the whole patch or one per face, in the mesh's boundary-slot order
/// of that patch (see Mesh).
class BoundaryCondition {
 public:
  enum class Kind { Dirichlet, Neumann, Robin };

  static BoundaryCondition dirichlet(Real value);
  static BoundaryCondition dirichlet(std::vector<Real> faceValues);
  static BoundaryCondition neumann(Real gradient);
  static BoundaryCondition neumann(std::vector<Real> faceGradients);
  static BoundaryCondition robin(Real a, Real b, Real g);
  static BoundaryCondition robin(Real a, Real b, std::vector<Real> faceValues);

  Kind kind() const { return kind_; }
  Real a() const { return a_; }
  Real b() const { return b_; }
  bool perFace() const { return !faceValues_.empty(); }
  /// g on the i-th face of the patch.
  Real value(std::size_t i) const { return perFace() ? faceValues_.at(i) : value_; }
  std::size_t numFaceValues() const { return faceValues_.size(); }
  std::string describe() const;

 private:
  BoundaryCondition(Kind kind, Real a, Real b, Real value, std::vector<Real> faceValues);

  Kind kind_;
  Real a_, b_, value_;
  std::vector<Real> faceValues_;
};

/// Boundary conditions of one variable on every patch of a mesh, as Robin coefficients
/// per boundary slot in ExecSpace's memory. Patches not set are zero-flux (FiPy's
/// default).
template <class ExecSpace>
class BoundaryConditions {
 public:
  explicit BoundaryConditions(const Mesh<ExecSpace>& mesh);

  /// Sets the condition on a patch, by name (Mesh::patchNames()) or as a Cartesian
  /// side; throws kfvm::Error naming the patch or value when the mesh has no such patch
  /// (listing the ones it has), the per-face count is wrong, or a value is not finite.
  BoundaryConditions& set(const std::string& patch, const BoundaryCondition& condition);
  BoundaryConditions& set(Patch patch, const BoundaryCondition& condition);

  /// Sets Robin coefficients face by face: slots[i] is a boundary slot (Mesh), which
  /// gets a[i] phi + b[i] dphi/dn = g[i] (a, b finite and >= 0, not both zero; g
  /// finite). Faces not named keep what they had. This is how a condition on any set of
  /// boundary faces (FiPy's constrain(value, where=mask)) reaches the kernels. Throws
  /// kfvm::Error naming the first bad slot or value.
  BoundaryConditions& setSlots(const std::vector<Ordinal>& slots,
                               const std::vector<Real>& a, const std::vector<Real>& b,
                               const std::vector<Real>& g);

  std::uint64_t meshId() const { return meshId_; }
  bool isSet(Patch patch) const;
  bool isSet(const std::string& patch) const;
  /// The mesh's patch called name; throws kfvm::Error listing the patches otherwise.
  int patchIndex(const std::string& name) const;
  /// True when some patch fixes phi (Dirichlet or Robin with a > 0).
  bool fixesValue() const;

  DeviceView<const Real*, ExecSpace> robinA() const { return a_; }
  DeviceView<const Real*, ExecSpace> robinB() const { return b_; }
  DeviceView<const Real*, ExecSpace> robinG() const { return g_; }

 private:
  std::uint64_t meshId_;
  std::vector<std::string> patchNames_;
  std::vector<Ordinal> patchFirstSlot_, patchSize_;
  std::vector<bool> isSet_;
  std::vector<bool> fixesValue_;
  std::vector<bool> hasPatch_;
  DeviceView<Real*, ExecSpace> a_, b_, g_;
};

}  // namespace kfvm

#endif
