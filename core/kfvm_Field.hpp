#ifndef KFVM_FIELD_HPP
#define KFVM_FIELD_HPP

#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_Mesh.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kfvm {

/// Where a field's values sit.
enum class Centering { Cell, Face };

/// Values at the cells or faces of one mesh, in a View on ExecSpace. Copies share
/// their values, as Views do.
template <class ExecSpace, Centering Where>
class Field {
 public:
  using execution_space = ExecSpace;

  Field(const Mesh<ExecSpace>& mesh, const std::string& name, Real initial = 0)
      : name_(name),
        meshId_(mesh.id()),
        space_(mesh.space()),
        values_("kfvm::Field::" + name,
                Where == Centering::Cell ? mesh.numCells() : mesh.numFaces()) {
    fill(initial);
  }

  const std::string& name() const { return name_; }
  std::uint64_t meshId() const { return meshId_; }
  Ordinal size() const { return static_cast<Ordinal>(values_.extent(0)); }
  /// The values, in ExecSpace's memory.
  Vector<ExecSpace> values() const { return values_; }

  void fill(Real value) { Kokkos::deep_copy(space_, values_, value); }

  /// Copies the values to a host vector (setup or output only: this synchronizes).
  std::vector<Real> toHost() const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values_);
    return std::vector<Real>(host.data(), host.data() + host.extent(0));
  }

  /// Sets the values from a host vector of size() entries (converted to Real).
  template <class T>
  void fromHost(const std::vector<T>& values) {
    require(static_cast<Ordinal>(values.size()) == size(), "field '", name_, "' has ",
            size(), " values, got ", values.size());
    auto host = Kokkos::create_mirror_view(values_);
    for (Ordinal i = 0; i < size(); ++i) host(i) = Real(values[i]);
    Kokkos::deep_copy(values_, host);
  }
  void fromHost(std::initializer_list<Real> values) {
    fromHost(std::vector<Real>(values));
  }

  /// Throws kfvm::Error unless this field lives on mesh; role says what it is used as.
  void requireOn(const Mesh<ExecSpace>& mesh, const std::string& role) const {
    require(meshId_ == mesh.id(), role, " field '", name_, "' belongs to mesh #", meshId_,
            ", not to mesh #", mesh.id(), " it is used with");
  }

 private:
  std::string name_;
  std::uint64_t meshId_;
  ExecSpace space_;
  Vector<ExecSpace> values_;
};

template <class ExecSpace>
using CellField = Field<ExecSpace, Centering::Cell>;
template <class ExecSpace>
using FaceField = Field<ExecSpace, Centering::Face>;

// Header templates use named functors, not KOKKOS_LAMBDA (see kfvm_Blas1.hpp: nvcc's
// lambda wrappers break the one-definition rule across translation units).
namespace Details {
template <class ExecSpace, class Centres, class Function>
struct SetFromCentres {
  Vector<ExecSpace> values;
  Centres centres;
  Function f;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const {
    values(i) = f(centres(i, 0), centres(i, 1), centres(i, 2));
  }
};

template <class ExecSpace>
struct VolumeIntegral {
  Vector<ExecSpace> values;
  DeviceView<const Real*, ExecSpace> volumes;
  Vector<ExecSpace> weights;  // empty: every cell counts once
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal c, Real& sum) const {
    sum += values(c) * volumes(c) * (weights.extent(0) ? weights(c) : Real(1));
  }
};

template <class ExecSpace, class Centres, class Function>
void setFromCentres(const char* label, const ExecSpace& space,
                    const Vector<ExecSpace>& values, const Centres& centres,
                    const Function& f) {
  forEachIndex(label, space, Ordinal(values.extent(0)),
               SetFromCentres<ExecSpace, Centres, Function>{values, centres, f});
}
}  // namespace Details

/// Sets each cell value to f(x, y, z) at the cell centre; f must be callable on the
/// device: a KOKKOS_LAMBDA, or a named functor where the caller is an inline function or
/// a template that several translation units compile (see above).
template <class ExecSpace, class Function>
void setFromCellCentres(CellField<ExecSpace>& field, const Mesh<ExecSpace>& mesh,
                        const Function& f) {
  field.requireOn(mesh, "target");
  Details::setFromCentres("kfvm::setFromCellCentres", mesh.space(), field.values(),
                          mesh.cellCentres(), f);
}

/// Sets each face value to f(x, y, z) at the face centre (device-callable f).
template <class ExecSpace, class Function>
void setFromFaceCentres(FaceField<ExecSpace>& field, const Mesh<ExecSpace>& mesh,
                        const Function& f) {
  field.requireOn(mesh, "target");
  Details::setFromCentres("kfvm::setFromFaceCentres", mesh.space(), field.values(),
                          mesh.faceCentres(), f);
}

/// Integral of a cell field over the mesh: sum of value times cell volume; with weights
/// (one per cell: a distributed run's 1 on owned cells, 0 on ghosts), of value times
/// volume times weight.
template <class ExecSpace>
Real integrate(const CellField<ExecSpace>& field, const Mesh<ExecSpace>& mesh,
               const Vector<ExecSpace>& weights = {}) {
  field.requireOn(mesh, "integrated");
  require(weights.extent(0) == 0 || weights.extent(0) == std::size_t(mesh.numCells()),
          "integrate: ", weights.extent(0), " weights for ", mesh.numCells(), " cells");
  return sumOverIndex(
      "kfvm::integrate", mesh.space(), mesh.numCells(),
      Details::VolumeIntegral<ExecSpace>{field.values(), mesh.cellVolumes(), weights});
}

}  // namespace kfvm

#endif
