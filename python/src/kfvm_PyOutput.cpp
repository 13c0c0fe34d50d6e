// Output and state: VTK files and their .pvd series, PNG snapshots, HDF5 checkpoints,
// decks run in-process, deck expressions, and the allocation/copy watch.
#include "kfvm_PyBindings.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ResourceWatch.hpp>
#include <kfvm_VtkUnstructured.hpp>
#include <kfvm_VtkWriter.hpp>

#include <kfvm_Checkpoint.hpp>
#include <kfvm_Expression.hpp>
#include <kfvm_PngWriter.hpp>

#ifdef KFVM_HAVE_DECKS
#include "kfvm_Deck.hpp"
#include "kfvm_DeckRun.hpp"

#include <kfvm_Convection.hpp>
#endif

#include <string>
#include <vector>

namespace kfvm::python {

namespace {

#ifdef KFVM_HAVE_DECKS
/// A deck as `kfvm run` reads it (before Kokkos starts: a bad deck fails first).
app::Deck readDeckFile(const std::string& path) {
  return app::readDeck(path, convectionSchemeNames());
}
#else
[[noreturn]] void withoutDecks(const char* what) {
  fail(what, ": this kfvm was built without decks (toml++: libtomlplusplus-dev)");
}
#endif

}  // namespace

template <class Space>
void bindBackendOutput(py::module_& backend) {
  backend.def(
      "write_vtk",
      [](const std::string& path, const PyMesh<Space>& mesh,
         const std::vector<const PyCellField<Space>*>& fields, double time) {
        std::vector<const CellField<Space>*> pointers;
        for (const auto* field : fields) {
          require(field != nullptr, "write_vtk: a field is None");
          pointers.push_back(&field->value);
        }
        if (mesh.value.hasGridLayout())
          writeVtkRectilinear(path, mesh.value, pointers, time);
        else
          writeVtkUnstructured(path, mesh.value, pointers, time);
      },
      py::arg("path"), py::arg("mesh"), py::arg("fields"), py::arg("time"));
}

void bindSharedOutput(py::module_& module) {
  py::class_<VtkTimeSeries>(module, "VtkTimeSeries")
      .def(py::init<std::string>(), py::arg("pvd_path"))
      .def("add", &VtkTimeSeries::add, py::arg("time"), py::arg("file"))
      .def("resume_up_to", &VtkTimeSeries::resumeUpTo, py::arg("time"))
      .def_property_readonly("path", &VtkTimeSeries::path);

  using PyWatch = Held<ResourceWatch>;
  py::class_<PyWatch>(module, "ResourceWatch")
      .def(py::init([] { return new PyWatch(); }))
      .def("counts", [](const PyWatch& w) {
        Kokkos::fence();
        const ResourceCounts c = w.value.counts();
        py::dict out;
        out["allocations"] = c.allocations;
        out["cross_space_copies"] = c.crossSpaceCopies;
        out["first_allocation"] = c.firstAllocation;
        out["first_copy"] = c.firstCopy;
        return out;
      });

#ifdef KFVM_HAVE_PNG
  module.attr("has_png") = true;
#else
  module.attr("has_png") = false;
#endif
  py::class_<Expression>(module, "Expression",
                         "An expression in x, y, z and t as decks write them")
      .def(py::init<std::string>(), py::arg("text"))
      .def_property_readonly("text", &Expression::text)
      .def_property_readonly("uses_time", &Expression::usesTime)
      .def(
          "evaluate",
          [](const Expression& e, const py::array_t<double, py::array::forcecast>& x,
             const py::array_t<double, py::array::forcecast>& y,
             const py::array_t<double, py::array::forcecast>& z, double t) {
            require(x.ndim() == 1 && y.ndim() == 1 && z.ndim() == 1 &&
                        x.shape(0) == y.shape(0) && x.shape(0) == z.shape(0),
                    "Expression.evaluate takes three 1D arrays of one length");
            auto xs = x.unchecked<1>(), ys = y.unchecked<1>(), zs = z.unchecked<1>();
            py::array_t<double> out(x.shape(0));
            auto o = out.mutable_unchecked<1>();
            for (py::ssize_t i = 0; i < x.shape(0); ++i) o(i) = e(xs(i), ys(i), zs(i), t);
            return out;
          },
          py::arg("x"), py::arg("y"), py::arg("z"), py::arg("t") = 0.0);

  module.def(
      "write_polygons_png",
      [](const std::string& path, const std::vector<Polygon>& cells,
         const std::vector<double>& values) {
#ifdef KFVM_HAVE_PNG
        writePolygonsPng(path, cells, values);
#else
        (void)cells, (void)values;
        fail("cannot write '", path, "': this kfvm was built without stb (libstb-dev)");
#endif
      },
      py::arg("path"), py::arg("cells"), py::arg("values"));
  module.def(
      "write_png",
      [](const std::string& path, const std::vector<double>& xs,
         const std::vector<double>& ys, const std::vector<double>& zs,
         const std::vector<double>& values) {
#ifdef KFVM_HAVE_PNG
        writeFieldPng(path, CartesianGrid::fromVertices(xs, ys, zs), values);
#else
        (void)xs, (void)ys, (void)zs, (void)values;
        fail("cannot write '", path, "': this kfvm was built without stb (libstb-dev)");
#endif
      },
      py::arg("path"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("values"));

  module.def(
      "write_checkpoint",
      [](const std::string& path, int step, double time, double dt,
         const std::array<int, 3>& cells, const std::vector<std::string>& names,
         const std::vector<std::vector<double>>& values, const std::string& fingerprint) {
        CheckpointState state;
        state.step = step;
        state.time = time;
        state.dt = dt;
        state.cells = cells;
        state.variables = names;
        state.values = values;
        state.fingerprint = fingerprint;
        writeCheckpoint(path, state);
      },
      py::arg("path"), py::arg("step"), py::arg("time"), py::arg("dt"), py::arg("cells"),
      py::arg("names"), py::arg("values"), py::arg("fingerprint"));
  module.def(
      "read_checkpoint",
      [](const std::string& path) {
        const CheckpointState state = readCheckpoint(path);
        py::dict out;
        out["step"] = state.step;
        out["time"] = state.time;
        out["dt"] = state.dt;
        out["cells"] = state.cells;
        out["names"] = state.variables;
        out["values"] = state.values;
        out["fingerprint"] = state.fingerprint;
        return out;
      },
      py::arg("path"));

#ifdef KFVM_HAVE_DECKS
  module.attr("has_decks") = true;
  module.def(
      "run_deck",
      [](const std::string& path, const std::string& output, const std::string& restart,
         long long maxSteps, int cells, bool quiet, bool verbose) {
        require(maxSteps >= 0, "max_steps must be >= 1, got ", maxSteps);
        require(cells >= 0 && cells <= 100000, "cells must be in [1, 100000], got ",
                cells);
        require(!(quiet && verbose), "quiet and verbose exclude each other");
        app::Deck deck = readDeckFile(path);
        if (cells > 0) app::setCellsPerDirection(deck, cells);
        app::RunOptions options;
        options.output = output;
        options.restart = restart;
        options.maxSteps = maxSteps;
        options.cells = cells;
        options.quiet = quiet;
        options.verbose = verbose;
        const SessionRef running = session();
        int status;
        {
          py::gil_scoped_release release;
          status = app::runDeck(deck, options);
        }
        std::fflush(stdout);
        return status;
      },
      py::arg("path"), py::arg("output") = "", py::arg("restart") = "",
      py::arg("max_steps") = 0, py::arg("cells") = 0, py::arg("quiet") = false,
      py::arg("verbose") = false);
  module.def(
      "check_deck",
      [](const std::string& path) {
        const app::Deck deck = readDeckFile(path);
        const SessionRef running = session();
        const int status = app::checkDeck(deck);
        std::fflush(stdout);
        return status;
      },
      py::arg("path"));
#else
  module.attr("has_decks") = false;
  module.def("run_deck", [](py::args, py::kwargs) { withoutDecks("run_deck"); });
  module.def("check_deck", [](py::args, py::kwargs) { withoutDecks("check_deck"); });
#endif
}

#define KFVM_PY_BIND_OUTPUT(Space) template void bindBackendOutput<Space>(py::module_&);
KFVM_FOR_EACH_BACKEND(KFVM_PY_BIND_OUTPUT)

}  // namespace kfvm::python
