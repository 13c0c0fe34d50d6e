#ifndef KFVM_TENSOR_FIELD_HPP
#define KFVM_TENSOR_FIELD_HPP

// Symmetric rank-2 tensors at the cells or faces of a mesh (an anisotropic diffusion
// coefficient per cell or per face).

#include <kfvm_Error.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kfvm {

/// A symmetric 3x3 tensor as a nested array, T[a][b].
using Tensor3 = std::array<std::array<Real, 3>, 3>;

/// Throws kfvm::Error unless T is finite and symmetric (to 1e-12 relative); what names
/// the tensor in the message.
inline void requireSymmetricTensor(const Tensor3& T, const std::string& what) {
  for (std::size_t a = 0; a < 3; ++a) {
    for (std::size_t b = 0; b < 3; ++b) {
      const Real value = T[a][b], other = T[b][a];
      require(std::isfinite(value), what, " entry [", a, "][", b, "] is ", value);
      require(
          std::abs(value - other) <= Real(1e-12) * (std::abs(value) + std::abs(other)),
          what, " is not symmetric: [", a, "][", b, "] = ", value, ", [", b, "][", a,
          "] = ", other);
    }
  }
}

/// Symmetric tensors, one at each cell or face of one mesh, stored as 6 components
/// (symmetricIndex) in a View on ExecSpace. Copies share their values, as Views do. On a
/// 1D or 2D mesh the entries off the mesh's axes are stored but not read.
template <class ExecSpace, Centering Where>
class TensorField {
 public:
  using execution_space = ExecSpace;

  TensorField(const Mesh<ExecSpace>& mesh, const std::string& name)
      : name_(name),
        meshId_(mesh.id()),
        values_("kfvm::TensorField::" + name,
                Where == Centering::Cell ? mesh.numCells() : mesh.numFaces()) {}

  const std::string& name() const { return name_; }
  std::uint64_t meshId() const { return meshId_; }
  Ordinal size() const { return static_cast<Ordinal>(values_.extent(0)); }
  /// The 6 components of each tensor, in ExecSpace's memory.
  DeviceView<Real* [6], ExecSpace> values() const {
    return values_;
  }

  /// Sets every tensor to T (finite and symmetric, checked).
  void fill(const Tensor3& T) {
    requireSymmetricTensor(T, "tensor field '" + name_ + "'");
    std::vector<Tensor3> all(static_cast<std::size_t>(size()), T);
    fromHost(all);
  }

  /// Sets the tensors from size() host tensors, each finite and symmetric (checked,
  /// naming the first that is not).
  void fromHost(const std::vector<Tensor3>& tensors) {
    require(static_cast<Ordinal>(tensors.size()) == size(), "tensor field '", name_,
            "' has ", size(), " tensors, got ", tensors.size());
    auto host = Kokkos::create_mirror_view(values_);
    for (Ordinal i = 0; i < size(); ++i) {
      const Tensor3& T = tensors[std::size_t(i)];
      requireSymmetricTensor(T,
                             "tensor " + std::to_string(i) + " of field '" + name_ + "'");
      for (int a = 0; a < 3; ++a) {
        for (int b = a; b < 3; ++b)
          host(i, symmetricIndex(a, b)) = T[std::size_t(a)][std::size_t(b)];
      }
    }
    Kokkos::deep_copy(values_, host);
  }

  /// Copies the tensors to the host (setup or output only: this synchronizes).
  std::vector<Tensor3> toHost() const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values_);
    std::vector<Tensor3> tensors(static_cast<std::size_t>(size()));
    for (Ordinal i = 0; i < size(); ++i) {
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b)
          tensors[std::size_t(i)][std::size_t(a)][std::size_t(b)] =
              host(i, symmetricIndex(a, b));
      }
    }
    return tensors;
  }

  /// Throws kfvm::Error unless this field lives on mesh; role says what it is used as.
  void requireOn(const Mesh<ExecSpace>& mesh, const std::string& role) const {
    require(meshId_ == mesh.id(), role, " tensor field '", name_, "' belongs to mesh #",
            meshId_, ", not to mesh #", mesh.id(), " it is used with");
  }

 private:
  std::string name_;
  std::uint64_t meshId_;
  DeviceView<Real* [6], ExecSpace> values_;
};

template <class ExecSpace>
using CellTensorField = TensorField<ExecSpace, Centering::Cell>;
template <class ExecSpace>
using FaceTensorField = TensorField<ExecSpace, Centering::Face>;

}  // namespace kfvm

#endif
