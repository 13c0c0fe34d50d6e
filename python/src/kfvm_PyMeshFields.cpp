// Meshes and fields of each backend: geometry as NumPy arrays (copies), field values
// shared without copies (DLPack, the CUDA array interface, the buffer protocol).
#include "kfvm_PyArrays.hpp"
#include "kfvm_PyBindings.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_CellPolygons.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_GmshMesh.hpp>
#include <kfvm_PointLocation.hpp>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace kfvm::python {

namespace {

template <class Space, Centering Where>
void assignFromArray(
    Field<Space, Where>& field,
    const py::array_t<double, py::array::c_style | py::array::forcecast>& values) {
  require(values.ndim() == 1 && values.shape(0) == py::ssize_t(field.size()), "field '",
          field.name(), "' has ", field.size(), " values; got an array of ",
          values.ndim() == 1 ? std::to_string(values.shape(0)) + " values"
                             : std::to_string(values.ndim()) + " dimensions");
  auto in = values.template unchecked<1>();
  auto host = Kokkos::create_mirror_view(field.values());
  for (py::ssize_t i = 0; i < in.shape(0); ++i) {
    require(std::isfinite(in(i)), "field '", field.name(), "': value ", in(i),
            " at index ", i, " is not finite");
    host(i) = Real(in(i));
  }
  Kokkos::deep_copy(field.values(), host);
}

template <class Space, Centering Where, class Class>
void defineFieldMethods(Class& cls, const char* kind) {
  using Py = Held<Field<Space, Where>>;
  cls.def(py::init([](const PyMesh<Space>& mesh, const std::string& name, double value) {
            require(std::isfinite(value), "field '", name, "': initial value ", value,
                    " is not finite");
            return new Py(mesh.value, name, Real(value));
          }),
          py::arg("mesh"), py::arg("name"), py::arg("value") = 0.0)
      .def_property_readonly("name", [](const Py& f) { return f.value.name(); })
      .def_property_readonly("size", [](const Py& f) { return f.value.size(); })
      .def_property_readonly("mesh_id", [](const Py& f) { return f.value.meshId(); })
      .def_property_readonly_static("backend", [](py::object) { return Space::name(); })
      .def("__len__", [](const Py& f) { return f.value.size(); })
      .def(
          "copy_to_numpy", [](const Py& f) { return copyToNumpy(f.value.values()); },
          "The values as a new NumPy array (a copy from the device).")
      .def(
          "assign",
          [](Py& f, const py::array_t<double, py::array::c_style | py::array::forcecast>&
                        values) { assignFromArray(f.value, values); },
          py::arg("values"), "Sets every value from a 1D array (converted to Real).")
      .def(
          "fill",
          [](Py& f, double value) {
            require(std::isfinite(value), "field '", f.value.name(), "': value ", value,
                    " is not finite");
            f.value.fill(Real(value));
          },
          py::arg("value"))
      .def(
          "copy_from",
          [](Py& f, const Py& other) {
            require(other.value.size() == f.value.size(), "field '", f.value.name(),
                    "' has ", f.value.size(), " values, '", other.value.name(), "' has ",
                    other.value.size());
            Kokkos::deep_copy(Space(), f.value.values(), other.value.values());
          },
          py::arg("other"), "Copies another field's values, on the device.")
      .def(
          "linear_combination",
          [](Py& f, double constant,
             const std::vector<std::pair<double, const Py*>>& parts) {
            for (const auto& part : parts)
              require(part.second && part.second->value.size() == f.value.size(),
                      "linear_combination: a part is not a field of ", f.value.size(),
                      " values");
            Blas::fill(f.value.values(), Real(constant));
            for (const auto& part : parts)
              Blas::axpby(Real(part.first), part.second->value.values(), Real(1),
                          f.value.values());
          },
          py::arg("constant"), py::arg("parts"),
          "Sets the values to constant + sum(scale * field) on the device (no copy).")
      .def(
          "values_at",
          [](const Py& f, const std::vector<Ordinal>& indices) {
            std::vector<double> values;
            for (Ordinal i : indices) {
              require(i >= 0 && i < f.value.size(), "field '", f.value.name(),
                      "': index ", i, " is not in [0, ", f.value.size(), ")");
              Real value;
              Kokkos::View<Real, Kokkos::HostSpace> host(&value);
              Kokkos::deep_copy(host, Kokkos::subview(f.value.values(), i));
              values.push_back(double(value));
            }
            return values;
          },
          py::arg("indices"), "The values at these indices (one small copy each).")
      .def_property_readonly(
          "data_pointer",
          [](const Py& f) {
            return reinterpret_cast<std::uintptr_t>(f.value.values().data());
          })
      .def(
          "__dlpack__",
          [](const Py& f, py::object, py::object, py::object, py::object) {
            return toDlpack<Space>(f.value.values(), f.session);
          },
          py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
          py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
          "A DLPack capsule of the values' memory itself (no copy).")
      .def("__dlpack_device__", [](const Py&) { return dlpackDevice<Space>(); });
  if constexpr (!hostAccessible<Space>()) {
    cls.def_property_readonly("__cuda_array_interface__", [](const Py& f) {
      return cudaArrayInterface<Space>(f.value.values());
    });
  }
  (void)kind;
}

template <class Space, Centering Where>
void bindField(py::module_& backend, const char* name) {
  using Py = Held<Field<Space, Where>>;
  if constexpr (hostAccessible<Space>()) {
    py::class_<Py> cls(backend, name, py::buffer_protocol());
    cls.def_buffer([](Py& f) {
      Space().fence();
      return py::buffer_info(f.value.values().data(), sizeof(Real),
                             py::format_descriptor<Real>::format(), 1,
                             {py::ssize_t(f.value.size())}, {py::ssize_t(sizeof(Real))});
    });
    defineFieldMethods<Space, Where>(cls, name);
  } else {
    py::class_<Py> cls(backend, name);
    defineFieldMethods<Space, Where>(cls, name);
  }
}

std::vector<double> checkedVertices(const std::vector<double>& vertices,
                                    const char* axis) {
  for (std::size_t i = 0; i < vertices.size(); ++i)
    require(std::isfinite(vertices[i]), "vertex ", i, " along ", axis, " is ",
            vertices[i], ", not a finite number");
  return vertices;
}

using PatchPairs = std::vector<std::array<std::string, 2>>;

/// A topology with its periodic patch pairs joined (MeshTopology::addPeriodicPair).
MeshTopology withPeriodicPairs(MeshTopology topology, const PatchPairs& pairs) {
  for (const auto& pair : pairs) topology.addPeriodicPair(pair[0], pair[1]);
  return topology;
}

/// A general mesh from Python lists: cells by their nodes (2D: polygons in order; 3D:
/// 4, 5, 6 or 8 nodes for a tetrahedron, pyramid, prism or hexahedron in Gmsh's order),
/// patches as {name: [face nodes, ...]}, periodic patch pairs joined.
template <class Space>
PyMesh<Space>* meshFromCells(
    int dimension, const std::vector<std::array<double, 3>>& nodes,
    const std::vector<std::vector<Ordinal>>& cells,
    const std::map<std::string, std::vector<std::vector<Ordinal>>>& patches,
    const std::string& convention, const PatchPairs& periodic) {
  MeshTopology topology(dimension, nodes);
  require(convention == "centroids" || convention == "fipy",
          "convention must be 'centroids' or 'fipy', got '", convention, "'");
  if (convention == "fipy") topology.setGeometryConvention(GeometryConvention::FiPy);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const auto& cell = cells[c];
    if (dimension == 2) {
      topology.addPolygon(cell, (long long)c);
      continue;
    }
    const std::size_t n = cell.size();
    require(n == 4 || n == 5 || n == 6 || n == 8, "3D cell ", c, " has ", n,
            " nodes; a tetrahedron has 4, a pyramid 5, a prism 6, a hexahedron 8");
    const CellShape shape = n == 4   ? CellShape::Tetrahedron
                            : n == 5 ? CellShape::Pyramid
                            : n == 6 ? CellShape::Prism
                                     : CellShape::Hexahedron;
    topology.addCell(shape, cell, (long long)c);
  }
  for (const auto& [name, faces] : patches) {
    for (const auto& face : faces) topology.addBoundaryFace(name, face);
  }
  return new PyMesh<Space>(withPeriodicPairs(std::move(topology), periodic));
}

/// A 3D general mesh from Python lists of polyhedra: each cell its faces, each face a
/// cycle of at least 3 nodes (FiPy's 3D meshes: cellFaceIDs over faceVertexIDs).
template <class Space>
PyMesh<Space>* meshFromPolyhedra(
    const std::vector<std::array<double, 3>>& nodes,
    const std::vector<std::vector<std::vector<Ordinal>>>& cells,
    const std::map<std::string, std::vector<std::vector<Ordinal>>>& patches,
    const std::string& convention, const PatchPairs& periodic) {
  MeshTopology topology(3, nodes);
  require(convention == "centroids" || convention == "fipy",
          "convention must be 'centroids' or 'fipy', got '", convention, "'");
  if (convention == "fipy") topology.setGeometryConvention(GeometryConvention::FiPy);
  for (std::size_t c = 0; c < cells.size(); ++c)
    topology.addPolyhedron(cells[c], (long long)c);
  for (const auto& [name, faces] : patches) {
    for (const auto& face : faces) topology.addBoundaryFace(name, face);
  }
  return new PyMesh<Space>(withPeriodicPairs(std::move(topology), periodic));
}

}  // namespace

template <class Space>
void bindMeshFields(py::module_& backend) {
  using Py = PyMesh<Space>;
  py::class_<Py>(backend, "Mesh")
      .def(py::init([](const std::vector<double>& xs, const std::vector<double>& ys,
                       const std::vector<double>& zs) {
             return new Py(CartesianGrid::fromVertices(checkedVertices(xs, "x"),
                                                       checkedVertices(ys, "y"),
                                                       checkedVertices(zs, "z")));
           }),
           py::arg("xs"), py::arg("ys") = std::vector<double>{},
           py::arg("zs") = std::vector<double>{})
      .def_static(
          "with_geometry",
          [](const std::vector<double>& xs, const std::vector<double>& ys,
             const std::vector<double>& zs, const std::string& coordinates,
             const std::array<bool, 3>& periodic) {
            GridGeometry geometry(Coordinates::Cartesian, periodic);
            if (coordinates == "cylindrical")
              geometry.coordinates = Coordinates::Cylindrical;
            else if (coordinates == "spherical")
              geometry.coordinates = Coordinates::Spherical;
            else
              require(coordinates == "cartesian",
                      "coordinates must be 'cartesian', 'cylindrical' or 'spherical', "
                      "got '",
                      coordinates, "'");
            return new Py(CartesianGrid::fromVertices(checkedVertices(xs, "x"),
                                                      checkedVertices(ys, "y"),
                                                      checkedVertices(zs, "z")),
                          geometry);
          },
          py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("coordinates"),
          py::arg("periodic"))
      .def_static(
          "from_gmsh",
          [](const std::string& path, const PatchPairs& periodic) {
            return new Py(withPeriodicPairs(readGmshTopology(path), periodic));
          },
          py::arg("path"), py::arg("periodic") = PatchPairs{})
      .def_static(
          "from_gmsh_script",
          [](const std::string& path, int dimension, const PatchPairs& periodic) {
            return new Py(withPeriodicPairs(meshGmshScript(path, dimension), periodic));
          },
          py::arg("path"), py::arg("dimension"), py::arg("periodic") = PatchPairs{})
      .def_static("from_cells", &meshFromCells<Space>, py::arg("dimension"),
                  py::arg("nodes"), py::arg("cells"), py::arg("patches"),
                  py::arg("convention") = "centroids", py::arg("periodic") = PatchPairs{})
      .def_static("from_polyhedra", &meshFromPolyhedra<Space>, py::arg("nodes"),
                  py::arg("cells"), py::arg("patches"),
                  py::arg("convention") = "centroids", py::arg("periodic") = PatchPairs{})
      .def_property_readonly("dimension", [](const Py& m) { return m.value.dimension(); })
      .def_property_readonly(
          "cell_counts", [](const Py& m) { return m.value.gridLayout().cellCounts(); })
      .def_property_readonly("num_cells", [](const Py& m) { return m.value.numCells(); })
      .def_property_readonly("num_faces", [](const Py& m) { return m.value.numFaces(); })
      .def_property_readonly("num_boundary_faces",
                             [](const Py& m) { return m.value.numBoundaryFaces(); })
      .def_property_readonly("id", [](const Py& m) { return m.value.id(); })
      .def("vertices",
           [](const Py& m, int axis) {
             require(axis >= 0 && axis < 3, "axis must be 0, 1 or 2, got ", axis);
             return m.value.gridLayout().vertices(axis);
           })
      .def_property_readonly("is_cartesian",
                             [](const Py& m) { return m.value.isCartesian(); })
      .def_property_readonly("periodic",
                             [](const Py& m) {
                               return std::array<bool, 3>{m.value.isPeriodic(0),
                                                          m.value.isPeriodic(1),
                                                          m.value.isPeriodic(2)};
                             })
      .def_property_readonly("has_grid_layout",
                             [](const Py& m) { return m.value.hasGridLayout(); })
      .def_property_readonly(
          "coordinates",
          [](const Py& m) { return std::string(coordinatesName(m.value.coordinates())); })
      .def_property_readonly("patch_names",
                             [](const Py& m) { return m.value.patchNames(); })
      .def_property_readonly("region_names",
                             [](const Py& m) { return m.value.regionNames(); })
      .def("has_patch",
           [](const Py& m, const std::string& patch) {
             return m.value.findPatch(patch) >= 0;
           })
      .def("patch_first_slot",
           [](const Py& m, const std::string& patch) {
             return m.value.patchFirstSlot(m.value.patchIndex(patch));
           })
      .def("patch_size",
           [](const Py& m, const std::string& patch) {
             return m.value.patchSize(m.value.patchIndex(patch));
           })
      .def("cell_regions",
           [](const Py& m) {
             std::vector<int> regions(std::size_t(m.value.numCells()), -1);
             if (m.value.cellRegions().extent(0) > 0) {
               auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                               m.value.cellRegions());
               for (std::size_t c = 0; c < regions.size(); ++c) regions[c] = host(c);
             }
             return regions;
           })
      .def("nodes", [](const Py& m) { return copyRowsToNumpy(m.value.nodes()); })
      .def("cell_polygons", [](const Py& m) { return cellPolygons(m.value); })
      .def("face_node_offsets",
           [](const Py& m) {
             auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                             m.value.faceNodeOffsets());
             return std::vector<Offset>(host.data(), host.data() + host.extent(0));
           })
      .def("face_nodes",
           [](const Py& m) {
             auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                             m.value.faceNodes());
             return std::vector<Ordinal>(host.data(), host.data() + host.extent(0));
           })
      .def(
          "cell_containing",
          [](const Py& m, const std::array<double, 3>& point) {
            return cellContaining(m.value, point);
          },
          py::arg("point"))
      .def("cell_volumes", [](const Py& m) { return copyToNumpy(m.value.cellVolumes()); })
      .def("cell_centres",
           [](const Py& m) { return copyRowsToNumpy(m.value.cellCentres()); })
      .def("face_areas", [](const Py& m) { return copyToNumpy(m.value.faceAreas()); })
      .def("face_normals",
           [](const Py& m) { return copyRowsToNumpy(m.value.faceNormals()); })
      .def("face_centres",
           [](const Py& m) { return copyRowsToNumpy(m.value.faceCentres()); })
      .def("face_distances",
           [](const Py& m) { return copyToNumpy(m.value.faceDistances()); })
      .def("face_cells",
           [](const Py& m) {
             auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                             m.value.faceCells());
             py::array_t<Ordinal> out({py::ssize_t(host.extent(0)), py::ssize_t(2)});
             auto o = out.mutable_unchecked<2>();
             for (py::ssize_t f = 0; f < py::ssize_t(host.extent(0)); ++f)
               for (int s = 0; s < 2; ++s) o(f, s) = host(f, s);
             return out;
           })
      .def("face_boundary_slots",
           [](const Py& m) {
             auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                             m.value.faceBoundarySlots());
             return std::vector<Ordinal>(host.data(), host.data() + host.extent(0));
           })
      .def("boundary_faces", [](const Py& m) {
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                        m.value.boundaryFaces());
        return std::vector<Ordinal>(host.data(), host.data() + host.extent(0));
      });

  bindField<Space, Centering::Cell>(backend, "CellField");
  bindField<Space, Centering::Face>(backend, "FaceField");
  backend.def(
      "integrate",
      [](const PyCellField<Space>& field, const Py& mesh) {
        return double(integrate(field.value, mesh.value));
      },
      py::arg("field"), py::arg("mesh"));
}

#define KFVM_PY_BIND_MESH_FIELDS(Space) template void bindMeshFields<Space>(py::module_&);
KFVM_FOR_EACH_BACKEND(KFVM_PY_BIND_MESH_FIELDS)

}  // namespace kfvm::python
