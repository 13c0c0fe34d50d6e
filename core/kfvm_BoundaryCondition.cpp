#include <kfvm_Backends.hpp>
#include <kfvm_BoundaryCondition.hpp>
#include <kfvm_Error.hpp>

#include <cmath>

namespace kfvm {

namespace {
void requireFinite(Real value, const char* what, std::size_t index) {
  require(std::isfinite(value), "boundary ", what, " must be finite, got ", value,
          " at face ", index);
}
}  // namespace

BoundaryCondition::BoundaryCondition(Kind kind, Real a, Real b, Real value,
                                     std::vector<Real> faceValues)
    : kind_(kind), a_(a), b_(b), value_(value), faceValues_(std::move(faceValues)) {
  require(std::isfinite(a_) && a_ >= 0,
          "Robin coefficient a must be finite and >= 0, got ", a_);
  require(std::isfinite(b_) && b_ >= 0,
          "Robin coefficient b must be finite and >= 0, got ", b_);
  require(a_ > 0 || b_ > 0, "Robin coefficients a and b cannot both be zero");
  const char* what = kind_ == Kind::Dirichlet ? "value"
                     : kind_ == Kind::Neumann ? "gradient"
                                              : "Robin value g";
  requireFinite(value_, what, 0);
  for (std::size_t i = 0; i < faceValues_.size(); ++i)
    requireFinite(faceValues_[i], what, i);
}

BoundaryCondition BoundaryCondition::dirichlet(Real value) {
  return BoundaryCondition(Kind::Dirichlet, 1, 0, value, {});
}
BoundaryCondition BoundaryCondition::dirichlet(std::vector<Real> faceValues) {
  return BoundaryCondition(Kind::Dirichlet, 1, 0, 0, std::move(faceValues));
}
BoundaryCondition BoundaryCondition::neumann(Real gradient) {
  return BoundaryCondition(Kind::Neumann, 0, 1, gradient, {});
}
BoundaryCondition BoundaryCondition::neumann(std::vector<Real> faceGradients) {
  return BoundaryCondition(Kind::Neumann, 0, 1, 0, std::move(faceGradients));
}
BoundaryCondition BoundaryCondition::robin(Real a, Real b, Real g) {
  return BoundaryCondition(Kind::Robin, a, b, g, {});
}
BoundaryCondition BoundaryCondition::robin(Real a, Real b, std::vector<Real> faceValues) {
  return BoundaryCondition(Kind::Robin, a, b, 0, std::move(faceValues));
}

std::string BoundaryCondition::describe() const {
  const std::string values = perFace() ? "per-face values" : Details::concatenate(value_);
  switch (kind_) {
    case Kind::Dirichlet:
      return "Dirichlet(" + values + ")";
    case Kind::Neumann:
      return "Neumann(" + values + ")";
    default:
      return Details::concatenate("Robin(a=", a_, ", b=", b_, ", g=", values, ")");
  }
}

template <class ExecSpace>
BoundaryConditions<ExecSpace>::BoundaryConditions(const Mesh<ExecSpace>& mesh)
    : meshId_(mesh.id()),
      patchNames_(mesh.patchNames()),
      isSet_(mesh.patchNames().size(), false),
      fixesValue_(mesh.patchNames().size(), false),
      hasPatch_(mesh.patchNames().size(), false),
      a_("kfvm::BoundaryConditions::a", mesh.numBoundaryFaces()),
      b_("kfvm::BoundaryConditions::b", mesh.numBoundaryFaces()),
      g_("kfvm::BoundaryConditions::g", mesh.numBoundaryFaces()) {
  for (int p = 0; p < mesh.patchCount(); ++p) {
    patchFirstSlot_.push_back(mesh.patchFirstSlot(p));
    patchSize_.push_back(mesh.patchSize(p));
    hasPatch_[std::size_t(p)] = mesh.findPatch(patchNames_[std::size_t(p)]) == p;
  }
  Kokkos::deep_copy(a_, Real(0));
  Kokkos::deep_copy(b_, Real(1));
  Kokkos::deep_copy(g_, Real(0));
}

template <class ExecSpace>
int BoundaryConditions<ExecSpace>::patchIndex(const std::string& name) const {
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    if (hasPatch_[p] && patchNames_[p] == name) return int(p);
  }
  std::string known;
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    if (hasPatch_[p]) known += (known.empty() ? "'" : ", '") + patchNames_[p] + "'";
  }
  fail("unknown boundary patch '", name, "'; this mesh has ", known);
}

template <class ExecSpace>
BoundaryConditions<ExecSpace>& BoundaryConditions<ExecSpace>::set(
    Patch patch, const BoundaryCondition& condition) {
  return set(patchName(patch), condition);
}

template <class ExecSpace>
bool BoundaryConditions<ExecSpace>::isSet(Patch patch) const {
  return isSet(patchName(patch));
}

template <class ExecSpace>
bool BoundaryConditions<ExecSpace>::isSet(const std::string& patch) const {
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    if (hasPatch_[p] && patchNames_[p] == patch) return isSet_[p];
  }
  return false;
}

template <class ExecSpace>
BoundaryConditions<ExecSpace>& BoundaryConditions<ExecSpace>::set(
    const std::string& patch, const BoundaryCondition& condition) {
  const std::size_t p = std::size_t(patchIndex(patch));
  const Ordinal size = patchSize_[p], first = patchFirstSlot_[p];
  require(!condition.perFace() || condition.numFaceValues() == std::size_t(size),
          "boundary condition on patch '", patch, "' has ", condition.numFaceValues(),
          " face values, but the patch has ", size, " faces");
  std::vector<Ordinal> slots(static_cast<std::size_t>(size));
  std::vector<Real> a(slots.size(), condition.a()), b(slots.size(), condition.b()),
      g(slots.size());
  for (Ordinal i = 0; i < size; ++i) {
    slots[std::size_t(i)] = first + i;
    g[std::size_t(i)] = condition.value(std::size_t(i));
  }
  setSlots(slots, a, b, g);
  isSet_[p] = true;  // even for zero flux, which leaves the defaults as they were
  return *this;
}

template <class ExecSpace>
BoundaryConditions<ExecSpace>& BoundaryConditions<ExecSpace>::setSlots(
    const std::vector<Ordinal>& slots, const std::vector<Real>& a,
    const std::vector<Real>& b, const std::vector<Real>& g) {
  require(
      a.size() == slots.size() && b.size() == slots.size() && g.size() == slots.size(),
      "setSlots takes one a, b and g per slot: ", slots.size(), " slots, ", a.size(),
      " a, ", b.size(), " b, ", g.size(), " g");
  const Ordinal numSlots = Ordinal(a_.extent(0));
  auto hostA = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_);
  auto hostB = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_);
  auto hostG = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g_);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Ordinal slot = slots[i];
    require(slot >= 0 && slot < numSlots, "boundary slot ", slot, " (entry ", i,
            ") is not one of the mesh's ", numSlots, " boundary faces");
    require(std::isfinite(a[i]) && a[i] >= 0 && std::isfinite(b[i]) && b[i] >= 0 &&
                (a[i] > 0 || b[i] > 0),
            "Robin coefficients at boundary slot ", slot,
            " must be finite, >= 0 and not ", "both zero, got a = ", a[i],
            ", b = ", b[i]);
    requireFinite(g[i], "value g", std::size_t(slot));
    hostA(slot) = a[i];
    hostB(slot) = b[i];
    hostG(slot) = g[i];
  }
  Kokkos::deep_copy(a_, hostA);
  Kokkos::deep_copy(b_, hostB);
  Kokkos::deep_copy(g_, hostG);
  for (std::size_t p = 0; p < patchNames_.size(); ++p) {
    bool touched = false, fixes = false;
    for (Ordinal i = 0; i < patchSize_[p]; ++i) {
      const Ordinal slot = patchFirstSlot_[p] + i;
      fixes = fixes || hostA(slot) > 0;
      touched = touched || hostA(slot) != 0 || hostB(slot) != 1 || hostG(slot) != 0;
    }
    if (touched) isSet_[p] = true;
    fixesValue_[p] = fixes;
  }
  return *this;
}

template <class ExecSpace>
bool BoundaryConditions<ExecSpace>::fixesValue() const {
  for (bool fixes : fixesValue_) {
    if (fixes) return true;
  }
  return false;
}

#define KFVM_INSTANTIATE_BCS(Space) template class BoundaryConditions<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_BCS)

}  // namespace kfvm
