#include "kfvm_RunOutput.hpp"

#include <kfvm_Expression.hpp>
#include "kfvm_ExitStatus.hpp"

#include <kfvm_CellPolygons.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_PointLocation.hpp>
#include <kfvm_VtkUnstructured.hpp>

#ifdef KFVM_HAVE_PNG
#include <kfvm_PngWriter.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

NonFinite firstNonFinite(const CellField<DeckSpace>& phi) {
  auto values = phi.values();
  const Ordinal n = phi.size();
  Ordinal first = n;
  Kokkos::parallel_reduce(
      "kfvm::app::run::firstNonFinite", indexRange(DeckSpace(), n),
      KOKKOS_LAMBDA(Ordinal c, Ordinal & r) {
        if (!Compat::isfinite(values(c)) && c < r) r = c;
      },
      Kokkos::Min<Ordinal>(first));
  NonFinite result;
  if (first < n) {
    Real value = 0;
    Kokkos::deep_copy(value, Kokkos::subview(values, first));
    result = {first, double(value)};
  }
  return result;
}

int checkResult(const Deck& deck, const CellField<DeckSpace>& field,
                const std::vector<std::array<double, 3>>& centres, double time,
                double integral0, double integral, const RunRanks* ranks) {
  if (!deck.hasCheck) return exitOk;
  const bool printing = ranks == nullptr || ranks->rank == 0;
  const std::string& name = deck.variables[std::size_t(deck.checkVariable)].name;
  bool ok = true;
  if (!deck.exact.empty()) {
    const Expression exact(deck.exact);
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.values());
    Kokkos::View<Real*, Kokkos::HostSpace> owned;
    if (ranks)
      owned = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ranks->owned);
    double worst = 0;
    for (std::size_t c = 0; c < centres.size() && !std::isnan(worst); ++c) {
      if (ranks && owned(c) == 0) continue;  // a ghost: its owner counts it
      const auto& p = centres[c];
      const double difference =
          std::abs(double(values(c)) - exact(p[0], p[1], p[2], time));
      if (!(difference <= worst)) worst = difference;  // NaN sticks
    }
    if (ranks) {  // NaN does not survive a maximum: inf stands for it
      if (std::isnan(worst)) worst = INFINITY;
      ranks->reduce(&worst, 1, true);
    }
    const bool met = worst <= deck.checkTolerance;
    if (printing)
      std::printf("check             max |%s - exact| = %.3e, tolerance %.3e: %s\n",
                  name.c_str(), worst, deck.checkTolerance, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  if (deck.integralDrift >= 0) {
    double volume = 1;
    for (int a = 0; a < deck.dimension; ++a) volume *= deck.length[a];
    const double drift = std::abs(integral - integral0) / volume;
    const bool met = drift <= deck.integralDrift;
    if (printing)
      std::printf(
          "check             integral of %s drifts %.3e per unit volume, tolerance %.3e: "
          "%s\n",
          name.c_str(), drift, deck.integralDrift, met ? "ok" : "FAILED");
    ok = ok && met;
  }
  return ok ? exitOk : exitCheckFailed;
}

namespace {

/// name_000042.ext: files named by step (six digits at least).
std::string stepFile(const std::string& stem, int step, const char* extension) {
  std::string digits = std::to_string(step);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return stem + "_" + digits + extension;
}

/// Opens a CSV file: new (header first), or a restart's, cut to the checkpoint's size.
void openCsv(AppendFile& file, const std::string& path, long long keepBytes, bool resumed,
             const std::string& header) {
  std::error_code error;
  const bool present = std::filesystem::exists(path, error);
  require(!error, "cannot look at '", path, "': ", error.message());
  if (resumed && keepBytes >= 0 && present) {
    file.open(path, keepBytes);
    return;
  }
  if (resumed)
    log::warn("%s %s: starting it anew, the rows before the restart are not in it",
              path.c_str(),
              keepBytes < 0 ? "was not written by the checkpointed run" : "is missing");
  file.open(path);
  file.write(header);
}

}  // namespace

RunOutput::RunOutput(const Deck& deck, const std::string& directory,
                     const Mesh<DeckSpace>& mesh,
                     const std::vector<CellField<DeckSpace>>& fields,
                     const OutputResume& resume, const RunRanks* ranks)
    : deck_(deck),
      ranks_(ranks),
      writes_(ranks == nullptr || ranks->rank == 0),
      directory_(directory),
      mesh_(mesh),
      fields_(fields),
      terminal_(isatty(fileno(stdout)) != 0 && log::level() == log::Level::Normal),
      series_(directory + "/" + deck.runName() + ".pvd"),
      start_(std::chrono::steady_clock::now()) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);  // every rank: its VTK piece
  require(!error, "cannot create the output folder '", directory, "': ", error.message());
  if (ranks) {
    probeCells_ = ranks->probeCells;
    if (!writes_) return;  // rank 0 writes the CSV files and the collection
  }
  const bool resumed = resume.time >= 0;
  if (resumed) series_.resumeUpTo(resume.time);
  row_.precision(12);
  if (const char* kill = std::getenv("KFVM_KILL_DURING_CSV"))
    killAtRecord_ = std::atoi(kill);
  if (deck.csv) {
    std::string header = "step,time,dt,sweeps,iterations,residual";
    for (const auto& v : deck.variables) {  // one variable: min,max,integral
      const std::string prefix = deck.variables.size() > 1 ? v.name + "_" : "";
      header += "," + prefix + "min," + prefix + "max," + prefix + "integral";
    }
    openCsv(csv_, directory + "/series.csv", resume.seriesBytes, resumed, header + "\n");
  }
  for (std::size_t p = 0; !ranks && !mesh.isCartesian() && p < deck.probes.size(); ++p) {
    const auto& point = deck.probes[p];
    const Ordinal cell = cellContaining(mesh, point);
    require(cell >= 0, deck.path, ": [[output.probe]] point (", point[0], ", ", point[1],
            ", ", point[2], ") is in no cell of the mesh '", deck.meshFile, "'");
    probeCells_.push_back(cell);
  }
  for (std::size_t p = 0; !ranks && mesh.isCartesian() && p < deck.probes.size(); ++p) {
    const auto& grid = mesh.grid();
    const auto& point = deck.probes[p];
    int index[3] = {0, 0, 0};
    for (int a = 0; a < grid.dimension(); ++a) {
      const auto& v = grid.vertices(a);
      const auto above = std::upper_bound(v.begin(), v.end(), point[a]);
      index[a] = std::max(0, std::min(int(above - v.begin()) - 1, grid.cells(a) - 1));
    }
    probeCells_.push_back(index[0] +
                          grid.cells(0) * (index[1] + grid.cells(1) * index[2]));
  }
  if (!deck.probes.empty()) {
    std::ostringstream header;
    header.precision(12);
    header << "step,time";
    for (const auto& p : deck.probes)
      for (const auto& v : deck.variables)
        header << ",\"" << (deck.variables.size() > 1 ? v.name + " " : "") << "(" << p[0]
               << " " << p[1] << " " << p[2] << ")\"";
    header << '\n';
    openCsv(probes_, directory + "/probes.csv", resume.probesBytes, resumed,
            header.str());
  }
}

void RunOutput::writeVtk(int step, double time) {
  if (!deck_.vtk) return;
  const std::string name =
      stepFile(deck_.runName(), step, mesh_.isCartesian() ? ".vtr" : ".vtu");
  ++written_;
  if (ranks_) {  // name.pvtr and its pieces, by every rank
    const std::string stem = stepFile(deck_.runName(), step, "");
    ranks_->writeVtk(directory_ + "/" + stem, time);
    const std::string collection = stem + ranks_->collectionExtension;
    if (writes_) series_.add(time, collection);
    log::debug("wrote %s/%s (t = %.10g)", directory_.c_str(), collection.c_str(), time);
    return;
  }
  std::vector<const CellField<DeckSpace>*> fields;
  for (const auto& field : fields_) fields.push_back(&field);
  if (mesh_.isCartesian())
    writeVtkRectilinear<DeckSpace>(directory_ + "/" + name, mesh_, fields, time);
  else
    writeVtkUnstructured<DeckSpace>(directory_ + "/" + name, mesh_, fields, time);
  series_.add(time, name);
  log::debug("wrote %s/%s (t = %.10g)", directory_.c_str(), name.c_str(), time);
}

void RunOutput::writePng(int step) {
  if (!deck_.png) return;
#ifdef KFVM_HAVE_PNG
  for (std::size_t v = 0; v < fields_.size(); ++v) {
    const std::string name = stepFile(deck_.variables[v].name, step, ".png");
    ++pngs_;
    // Across ranks, rank 0 writes the gathered field and every rank learns how it went.
    std::vector<double> whole;
    if (ranks_) {
      whole = ranks_->gather(fields_[v]);
    } else {
      const auto values =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields_[v].values());
      whole.assign(values.data(), values.data() + values.extent(0));
    }
    onEveryRank(ranks_, [&] {
      if (!writes_) return;
      if (ranks_ && ranks_->polygons) {  // a general mesh across ranks
        writePolygonsPng(directory_ + "/" + name, *ranks_->polygons, whole);
        return;
      }
      if (ranks_ || mesh_.isCartesian()) {
        writeFieldPng(directory_ + "/" + name, ranks_ ? *ranks_->grid : mesh_.grid(),
                      whole);
        return;
      }
      if (polygons_.empty()) polygons_ = cellPolygons(mesh_);  // once, on the host
      writePolygonsPng(directory_ + "/" + name, polygons_, whole);
    });
    log::debug("wrote %s/%s", directory_.c_str(), name.c_str());
  }
#else
  fail(deck_.path, ": [output] png = true, but this kfvm was built without stb");
#endif
}

OutputSizes RunOutput::sync() {
  OutputSizes sizes;
  if (csv_.isOpen()) {
    csv_.sync();
    sizes.seriesBytes = csv_.size();
  }
  if (probes_.isOpen()) {
    probes_.sync();
    sizes.probesBytes = probes_.size();
  }
  return sizes;
}

std::vector<Statistics> RunOutput::statistics() const {
  std::vector<Statistics> all;
  for (const auto& field : fields_) all.push_back(statisticsOf(field, mesh_));
  if (!ranks_) return all;
  // Ghosts hold owners' values: the local extrema are the owned ones; the integral
  // counts owned cells only. Then over the ranks: -min and max by maxima, sums.
  std::vector<double> extrema, sums;
  for (std::size_t v = 0; v < fields_.size(); ++v) {
    extrema.push_back(-all[v].minimum);
    extrema.push_back(all[v].maximum);
    sums.push_back(double(integrate(fields_[v], mesh_, ranks_->owned)));
  }
  ranks_->reduce(extrema.data(), int(extrema.size()), true);
  ranks_->reduce(sums.data(), int(sums.size()), false);
  for (std::size_t v = 0; v < fields_.size(); ++v)
    all[v] = {-extrema[2 * v], extrema[2 * v + 1], sums[v]};
  return all;
}

std::vector<Statistics> RunOutput::record(int step, double time, double dt,
                                          const StepReport& report, int total) {
  const std::vector<Statistics> statistics = this->statistics();
  std::vector<double> probeValues;  // per probe and variable
  for (Ordinal cell : probeCells_)
    for (const auto& field : fields_) {
      Real value = 0;
      if (cell >= 0) Kokkos::deep_copy(value, Kokkos::subview(field.values(), cell));
      probeValues.push_back(double(value));
    }
  if (ranks_ && !probeValues.empty())  // the owner's value; 0 from every other rank
    ranks_->reduce(probeValues.data(), int(probeValues.size()), false);
  if (!writes_) return statistics;
  const bool kill = ++records_ == killAtRecord_;  // KFVM_KILL_DURING_CSV
  if (csv_.isOpen()) {
    row_.str("");
    row_ << step << ',' << time << ',' << dt << ',' << report.sweeps << ','
         << report.totalIterations << ',' << report.finalResidual;
    for (const auto& s : statistics)
      row_ << ',' << s.minimum << ',' << s.maximum << ',' << s.integral;
    row_ << '\n';
    if (kill) csv_.writeHalfAndDie(row_.str());
    csv_.write(row_.str());
  }
  if (probes_.isOpen()) {
    row_.str("");
    row_ << step << ',' << time;
    for (double value : probeValues) row_ << ',' << value;
    row_ << '\n';
    if (kill) probes_.writeHalfAndDie(row_.str());
    probes_.write(row_.str());
  }
  const bool periodic = step % deck_.progressEvery == 0;
  const bool verbose = log::level() == log::Level::Verbose;
  if (log::level() == log::Level::Quiet || !(periodic || verbose)) return statistics;
  const double seconds = secondsSince(start_);
  const double done =
      total > 0 ? double(step) / total : (deck_.end > 0 ? time / deck_.end : 1);
  const double eta = done > 0 ? seconds * (1 - done) / done : 0;
  std::string ranges;
  for (std::size_t v = 0; v < statistics.size(); ++v) {
    char range[96];
    if (statistics.size() == 1)
      std::snprintf(range, sizeof(range), "min %.4g max %.4g", statistics[v].minimum,
                    statistics[v].maximum);
    else
      std::snprintf(range, sizeof(range), "%s%s [%.4g, %.4g]", v > 0 ? " " : "",
                    deck_.variables[v].name.c_str(), statistics[v].minimum,
                    statistics[v].maximum);
    ranges += range;
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "step %6d  t = %-10.4g dt = %-9.3g sweeps %2d  iterations %5d  residual "
                "%.2e  %s  elapsed %.1f s  ETA %.1f s",
                step, time, dt, report.sweeps, report.totalIterations,
                report.finalResidual, ranges.c_str(), seconds, eta);
  if (terminal_) {  // one line, rewritten in place
    std::printf("\r%s   ", line);
    std::fflush(stdout);
  } else if (periodic) {
    log::info("%s", line);
  } else {
    log::debug("%s", line);
  }
  if (verbose && report.sweepResiduals.size() > 1) {
    std::string residuals;
    for (double r : report.sweepResiduals) {
      char text[32];
      std::snprintf(text, sizeof(text), " %.2e", r);
      residuals += text;
    }
    log::debug("step %6d  sweep residuals%s", step, residuals.c_str());
  }
  return statistics;
}

void RunOutput::finish() {
  csv_.close();
  probes_.close();
  if (!writes_) return;
  if (terminal_) std::printf("\n");
  std::printf("output            %s (%d VTK files, %d PNG%s%s), %.3f s\n",
              directory_.c_str(), written_, pngs_, deck_.csv ? ", series.csv" : "",
              probeCells_.empty() ? "" : ", probes.csv", secondsSince(start_));
}

}  // namespace kfvm::app
