#ifndef KFVM_MPI_TEST_HELPERS_HPP
#define KFVM_MPI_TEST_HELPERS_HPP

#include <kfvm_Error.hpp>
#include <kfvm_MeshPartition.hpp>
#include <kfvm_Parameters.hpp>
#include <kfvm_Types.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace kfvm::Test {

inline int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// The partition methods this build has: recursive bisection, and METIS where linked.
inline std::vector<PartitionMethod> partitionMethods() {
  std::vector<PartitionMethod> all{PartitionMethod::RecursiveBisection};
  if (haveMetis()) all.push_back(PartitionMethod::Metis);
  return all;
}

/// f() throws kfvm::Error on this rank, and its message holds every one of words.
template <class F>
void expectRefused(F&& f, const std::vector<std::string>& words) {
  try {
    f();
    ADD_FAILURE() << "no error on rank " << worldRank() << "; expected one with '"
                  << words.front() << "'";
  } catch (const Error& error) {
    const std::string message = error.what();
    for (const auto& word : words)
      EXPECT_NE(message.find(word), std::string::npos)
          << "rank " << worldRank() << ": '" << word << "' is not in: " << message;
  }
}

/// What the coupled tests solve with: GMRES(60) with ILU(0) to 1e-13 (1e-5 in float).
inline Parameters coupledSolverParameters() {
  const bool inDouble = sizeof(Real) == sizeof(double);
  return Parameters{{"tolerance", inDouble ? "1e-13" : "1e-5"},
                    {"max_iterations", "5000"},
                    {"restart", "60"},
                    {"preconditioner", "ilu0"}};
}

/// Two variables' start of n cells each: uniform in [-0.5, 0.5), the same on every rank.
inline std::vector<std::vector<double>> randomStart(std::size_t n) {
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-0.5, 0.5);
  std::vector<std::vector<double>> initial(2, std::vector<double>(n));
  for (auto& variable : initial)
    for (auto& value : variable) value = noise(random);
  return initial;
}

/// The largest |gathered - expected| and the largest |expected| over two series of the
/// same length (a gathered distributed answer and the one-process one).
struct GatheredDifference {
  double difference = 0, largest = 0;
};
template <class Gathered, class Expected>
GatheredDifference compareGathered(const Gathered& gathered, const Expected& expected) {
  GatheredDifference d;
  for (std::size_t c = 0; c < expected.size(); ++c) {
    d.difference =
        std::max(d.difference, std::abs(double(gathered[c]) - double(expected[c])));
    d.largest = std::max(d.largest, std::abs(double(expected[c])));
  }
  return d;
}

}  // namespace kfvm::Test

#endif
