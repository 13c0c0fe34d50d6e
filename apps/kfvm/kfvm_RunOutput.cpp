#include "kfvm_RunOutput.hpp"

#include "kfvm_CommandContext.hpp"

#ifdef KFVM_HAVE_PNG
#include "kfvm_PngWriter.hpp"
#endif

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

namespace kfvm::app {

Statistics statisticsOf(const CellField<DeckSpace>& phi, const Mesh<DeckSpace>& mesh) {
  Kokkos::MinMaxScalar<Real> range;
  auto values = phi.values();
  Kokkos::parallel_reduce(
      "kfvm::app::run::minMax", indexRange(DeckSpace(), mesh.numCells()),
      KOKKOS_LAMBDA(Ordinal c, Kokkos::MinMaxScalar<Real> & r) {
        if (values(c) < r.min_val) r.min_val = values(c);
        if (values(c) > r.max_val) r.max_val = values(c);
      },
      Kokkos::MinMax<Real>(range));
  return {double(range.min_val), double(range.max_val), double(integrate(phi, mesh))};
}

RunOutput::RunOutput(const Deck& deck, const std::string& directory,
                     const Mesh<DeckSpace>& mesh, const CellField<DeckSpace>& phi,
                     Verbosity verbosity, double restartTime)
    : deck_(deck),
      directory_(directory),
      mesh_(mesh),
      phi_(phi),
      verbosity_(verbosity),
      terminal_(isatty(fileno(stdout)) != 0),
      series_(directory + "/" + deck.variable + ".pvd"),
      start_(std::chrono::steady_clock::now()) {
  std::filesystem::create_directories(directory);
  const bool resumed = restartTime >= 0;
  if (resumed) series_.resumeUpTo(restartTime);
  const auto mode = resumed ? std::ios::app : std::ios::trunc;
  if (deck.csv) {
    csv_.open(directory + "/series.csv", std::ios::out | mode);
    require(bool(csv_), "cannot write ", directory, "/series.csv");
    if (!resumed) csv_ << "step,time,dt,sweeps,iterations,residual,min,max,integral\n";
    csv_.precision(12);
  }
  const auto& grid = mesh.grid();
  for (const auto& point : deck.probes) {
    int index[3] = {0, 0, 0};
    for (int a = 0; a < grid.dimension(); ++a) {
      const auto& v = grid.vertices(a);
      const auto above = std::upper_bound(v.begin(), v.end(), point[a]);
      index[a] = std::min(int(above - v.begin()) - 1, grid.cells(a) - 1);
    }
    probeCells_.push_back(index[0] +
                          grid.cells(0) * (index[1] + grid.cells(1) * index[2]));
  }
  if (!probeCells_.empty()) {
    probes_.open(directory + "/probes.csv", std::ios::out | mode);
    require(bool(probes_), "cannot write ", directory, "/probes.csv");
    if (!resumed) {
      probes_ << "step,time";
      for (const auto& p : deck.probes)
        probes_ << ",\"(" << p[0] << " " << p[1] << " " << p[2] << ")\"";
      probes_ << '\n';
    }
    probes_.precision(12);
  }
}

void RunOutput::writeVtk(int step, double time) {
  if (!deck_.vtk) return;
  char name[80];
  std::snprintf(name, sizeof(name), "%s_%06d.vtr", deck_.variable.c_str(), step);
  ++written_;
  writeVtkRectilinear<DeckSpace>(directory_ + "/" + name, mesh_, {&phi_}, time);
  series_.add(time, name);
}

void RunOutput::writePng(int step) {
  if (!deck_.png) return;
#ifdef KFVM_HAVE_PNG
  char name[80];
  std::snprintf(name, sizeof(name), "%s_%06d.png", deck_.variable.c_str(), step);
  ++pngs_;
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi_.values());
  writeFieldPng(directory_ + "/" + name, mesh_.grid(),
                std::vector<double>(values.data(), values.data() + values.extent(0)));
#else
  fail(deck_.path, ": [output] png = true, but this kfvm was built without stb");
#endif
}

Statistics RunOutput::record(int step, double time, double dt, const StepReport& report,
                             int total) {
  const auto s = statisticsOf(phi_, mesh_);
  if (csv_.is_open())
    csv_ << step << ',' << time << ',' << dt << ',' << report.sweeps << ','
         << report.totalIterations << ',' << report.finalResidual << ',' << s.minimum
         << ',' << s.maximum << ',' << s.integral << '\n';
  if (probes_.is_open()) {
    probes_ << step << ',' << time;
    for (Ordinal cell : probeCells_) {
      Real value = 0;
      Kokkos::deep_copy(value, Kokkos::subview(phi_.values(), cell));
      probes_ << ',' << double(value);
    }
    probes_ << '\n';
  }
  const bool due = verbosity_ == Verbosity::Verbose ||
                   (verbosity_ == Verbosity::Normal && step % deck_.progressEvery == 0);
  if (!due) return s;
  const double seconds = secondsSince(start_);
  const double done =
      total > 0 ? double(step) / total : (deck_.end > 0 ? time / deck_.end : 1);
  const double eta = done > 0 ? seconds * (1 - done) / done : 0;
  std::printf(
      "%sstep %6d  t = %-10.4g dt = %-9.3g sweeps %2d  iterations %5d  residual "
      "%.2e  min %.4g max %.4g  elapsed %.1f s  ETA %.1f s%s",
      terminal_ ? "\r" : "", step, time, dt, report.sweeps, report.totalIterations,
      report.finalResidual, s.minimum, s.maximum, seconds, eta, terminal_ ? "   " : "\n");
  std::fflush(stdout);
  return s;
}

void RunOutput::finish() {
  if (terminal_ && verbosity_ != Verbosity::Quiet) std::printf("\n");
  std::printf("output            %s (%d VTK files, %d PNG%s%s), %.3f s\n",
              directory_.c_str(), written_, pngs_, deck_.csv ? ", series.csv" : "",
              probes_.is_open() ? ", probes.csv" : "", secondsSince(start_));
}

}  // namespace kfvm::app
