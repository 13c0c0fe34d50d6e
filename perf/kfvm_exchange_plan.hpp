#ifndef KFVM_EXCHANGE_PLAN_HPP
#define KFVM_EXCHANGE_PLAN_HPP

// kfvm-mpi-bench's plan and estimate: what one face exchange sends at a given number of
// ranks (kfvm's balanced split), and, from measured runs, what it costs per CG iteration.
#include <array>
#include <string>
#include <vector>

namespace kfvm_bench {

/// One rank count: the split, its largest block, and one face exchange of the rank that
/// sends the most bytes (its messages and bytes).
struct PlanRow {
  int ranks = 1;
  std::array<int, 3> processGrid{}, largestBlock{};
  int messages = 0;
  long long bytes = 0;
};

std::vector<PlanRow> planRows(const std::array<int, 3>& cells,
                              const std::vector<int>& rankCounts);

/// The exchange and compute costs fitted from kfvm-mpi-bench --json lines of one solver:
/// an exchange of m messages and B bytes takes m * latency + B / bandwidth (least squares
/// over the multi-rank runs, which must differ in m or B), and one solver iteration on
/// one rank takes secondsPerCell per cell (the 1-rank run with the most cells).
struct ExchangeModel {
  double latency = 0, bandwidth = 0, secondsPerCell = 0;
  int exchangeSamples = 0;
  long long computeCells = 0;
};

/// Reads the lines of `path` whose solver is `solver`; throws kfvm::Error naming the file
/// and what is missing (no such runs, one exchange size only, no 1-rank run).
ExchangeModel fitExchangeModel(const std::string& path, const std::string& solver);

/// The table of estimates per plan row: exchange and allreduce time per iteration
/// (an allreduce costs ceil(log2 ranks) latencies), compute on the largest block, and
/// the iteration's speed-up over one rank with and without overlap.
void printEstimate(const std::vector<PlanRow>& rows, const ExchangeModel& model,
                   long long totalCells);

}  // namespace kfvm_bench

#endif
