#include "kfvm_exchange_plan.hpp"

#include <kfvm_Decomposition.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Types.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace kfvm_bench {

std::vector<PlanRow> planRows(const std::array<int, 3>& cells,
                              const std::vector<int>& rankCounts) {
  std::vector<PlanRow> rows;
  for (const int ranks : rankCounts) {
    const auto split = kfvm::Decomposition::balanced(3, cells, ranks);
    PlanRow row;
    row.ranks = ranks;
    row.processGrid = split.processGrid();
    long long largest = 0;
    for (int r = 0; r < ranks; ++r) {
      const auto b = split.block(r);
      long long rankBytes = 0;
      int rankMessages = 0;
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          if (split.neighbour(r, a, side) < 0) continue;
          ++rankMessages;
          rankBytes += (long long)b.count[(a + 1) % 3] * b.count[(a + 2) % 3] *
                       (long long)sizeof(kfvm::Real);
        }
      if (b.numCells() > largest) {
        largest = b.numCells();
        row.largestBlock = b.count;
      }
      if (rankBytes > row.bytes) {
        row.bytes = rankBytes;
        row.messages = rankMessages;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

namespace {

/// The index-th number after "key": in one line of kfvm-mpi-bench's JSON.
double field(const std::string& line, const std::string& key, const std::string& path,
             int index = 0) {
  std::size_t at = line.find("\"" + key + "\":");
  kfvm::require(at != std::string::npos, "estimate: a line of ", path, " has no '", key,
                "': ", line);
  at += key.size() + 3;
  for (int i = 0; i < index; ++i) at = line.find(',', at) + 1;
  while (at < line.size() && (line[at] == ' ' || line[at] == '[')) ++at;
  return std::strtod(line.c_str() + at, nullptr);
}

std::string solverOf(const std::string& line) {
  const std::string key = "\"solver\": \"";
  const std::size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return line.substr(from, line.find('"', from) - from);
}

}  // namespace

ExchangeModel fitExchangeModel(const std::string& path, const std::string& solver) {
  std::ifstream in(path);
  kfvm::require(bool(in), "estimate: cannot read '", path, "'");
  ExchangeModel model;
  // Normal equations of t = m L + B w (w = 1 / bandwidth).
  double mm = 0, mb = 0, bb = 0, mt = 0, bt = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || solverOf(line) != solver) continue;
    const int ranks = int(field(line, "ranks", path));
    const double exchanges = field(line, "exchanges", path);
    if (ranks == 1) {
      const long long cells = (long long)field(line, "cells", path, 0) *
                              (long long)field(line, "cells", path, 1) *
                              (long long)field(line, "cells", path, 2);
      const double iterations = field(line, "iterations", path);
      if (cells > model.computeCells && iterations > 0) {
        model.computeCells = cells;
        model.secondsPerCell = field(line, "step_seconds", path) / (iterations * cells);
      }
      continue;
    }
    const double halo = field(line, "halo_seconds", path);
    if (exchanges <= 0 || halo <= 0) continue;
    const double m = field(line, "messages", path), b = field(line, "face_bytes", path);
    const double t = halo / exchanges;
    mm += m * m, mb += m * b, bb += b * b, mt += m * t, bt += b * t;
    ++model.exchangeSamples;
  }
  kfvm::require(model.computeCells > 0, "estimate: ", path, " has no 1-rank run of '",
                solver, "'");
  kfvm::require(model.exchangeSamples > 0, "estimate: ", path,
                " has no multi-rank run of '", solver, "' with exchanges");
  const double determinant = mm * bb - mb * mb;
  kfvm::require(determinant > 1e-12 * mm * bb, "estimate: the multi-rank runs of '",
                solver, "' in ", path,
                " do not separate latency from bandwidth: run two sizes or splits");
  double latency = (mt * bb - bt * mb) / determinant;
  double inverse = (mm * bt - mb * mt) / determinant;
  if (latency < 0) {  // noise: no measurable latency, bandwidth alone
    latency = 0;
    inverse = bt / bb;
  }
  kfvm::require(inverse > 0, "estimate: the runs in ", path,
                " give no positive bandwidth (exchange times do not grow with bytes)");
  model.latency = latency;
  model.bandwidth = 1 / inverse;
  return model;
}

void printEstimate(const std::vector<PlanRow>& rows, const ExchangeModel& model,
                   long long totalCells) {
  std::printf(
      "model: latency %.1f us, bandwidth %.1f GB/s (%d multi-rank runs); compute %.3f ns "
      "per cell and iteration (1 rank, %lld cells)\n",
      model.latency * 1e6, model.bandwidth / 1e9, model.exchangeSamples,
      model.secondsPerCell * 1e9, model.computeCells);
  std::printf(
      "ranks  messages  MB/exchange  exchange us  allreduce us  compute ms  "
      "exchange/compute  speed-up overlapped  not overlapped\n");
  const double one = model.secondsPerCell * double(totalCells);
  for (const auto& row : rows) {
    const double exchange =
        row.messages * model.latency + double(row.bytes) / model.bandwidth;
    const double allreduce =
        row.ranks > 1 ? std::ceil(std::log2(double(row.ranks))) * model.latency : 0;
    const double compute = model.secondsPerCell * double(row.largestBlock[0]) *
                           row.largestBlock[1] * row.largestBlock[2];
    std::printf("%5d  %8d  %11.3f  %11.1f  %12.1f  %10.3f  %16.3f  %19.2f  %14.2f\n",
                row.ranks, row.messages, row.bytes / 1e6, exchange * 1e6, allreduce * 1e6,
                compute * 1e3, exchange / compute,
                one / (std::max(compute, exchange) + allreduce),
                one / (compute + exchange + allreduce));
  }
}

}  // namespace kfvm_bench
