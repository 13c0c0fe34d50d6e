#ifndef KFVM_TEST_HELPERS_HPP
#define KFVM_TEST_HELPERS_HPP

#include "kfvm_TestSpace.hpp"
#include "kfvm_TestWorkFolder.hpp"

#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Mesh.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kfvm::Test {

/// Copies a 1D View to a host std::vector.
template <class ViewType>
std::vector<double> toHost(const ViewType& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  std::vector<double> values(host.extent(0));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(host(i));
  return values;
}

/// A device vector with the given values.
inline Vector<TestExecSpace> toDevice(const std::vector<double>& values) {
  Vector<TestExecSpace> view("kfvm::Test::vector", values.size());
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = Real(values[i]);
  Kokkos::deep_copy(view, host);
  return view;
}

/// Solves the dense system A x = b by Gaussian elimination with partial pivoting.
std::vector<double> solveDense(std::vector<std::vector<double>> A, std::vector<double> b);

/// max |a_i - b_i|
double maxDifference(const std::vector<double>& a, const std::vector<double>& b);
/// max |a_i|
double largestMagnitude(const std::vector<double>& a);

/// Discrete Cahn-Hilliard free energy with f = (phi^2 - 1)^2 / 4: sum_c V f(phi_c) + sum
/// over interior faces of eps^2 / 2 (A / d) (phi_N - phi_O)^2.
double cahnHilliardEnergy(const Mesh<TestExecSpace>& mesh, const std::vector<double>& phi,
                          double epsilon);

/// Runs f and checks that it throws kfvm::Error whose message contains every fragment.
template <class Function>
void expectError(Function&& f, const std::vector<std::string>& fragments) {
  try {
    f();
    ADD_FAILURE() << "expected kfvm::Error";
  } catch (const kfvm::Error& error) {
    const std::string message = error.what();
    for (const auto& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message '" << message << "' lacks '" << fragment << "'";
    }
  }
}

}  // namespace kfvm::Test

#endif
