#ifndef KFVM_TEST_ASSEMBLY_PROBLEMS_HPP
#define KFVM_TEST_ASSEMBLY_PROBLEMS_HPP

// Fields and problems that the assembly and matrix-free tests share.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>

#include <algorithm>
#include <cmath>

namespace kfvm::Test {

using Space = TestExecSpace;

// Fields set from the cell centres. Device lambdas live in free functions (CUDA does not
// allow them in constructors or in gtest's private TestBody()), each defined once, in
// kfvm_AssemblyProblems.cpp: while they were inline functions of this header, used from
// two test files, the three matrix-free tests of the second file that use them failed on
// Cuda (run 18 of 2026-12-04; the cause was not seen: the run kept no test output); they
// had passed (run 13) when each had one definition.

/// D = 1 + x^2 + y / 2 + z.
void setSmoothDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh);
/// sin(7 x + 3 y) + z.
void setWavyField(CellField<Space>& phi, const Mesh<Space>& mesh);
/// x - 2 y z + 1.
void setLinearField(CellField<Space>& phi, const Mesh<Space>& mesh);
/// sin(9 x) sin(5 y + z) + 2.
void setPositiveBumps(CellField<Space>& phi, const Mesh<Space>& mesh);
/// 1/2 + x + y z.
void setLayeredDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh);

/// A 3D non-uniform mesh with variable D and every kind of boundary condition.
struct MixedProblem3D {
  Mesh<Space> mesh;
  CellField<Space> D;
  Equation<Space> equation;

  /// With convect, also a power-law convection term: the operator is non-symmetric.
  explicit MixedProblem3D(const CartesianGrid& grid, bool convect = false);
};

/// A x on the host for the assembler's last assemble(), and its largest magnitude (the
/// scale of the matrix-free comparisons).
struct HostProduct {
  std::vector<double> values;
  double scale = 0;
};

inline HostProduct hostProduct(const Assembler<Space>& assembler,
                               const CellField<Space>& x) {
  Vector<Space> product("product", x.values().extent(0));
  multiply(assembler.matrix(), x.values(), product);
  HostProduct result{toHost(product)};
  for (double v : result.values) result.scale = std::max(result.scale, std::abs(v));
  return result;
}

}  // namespace kfvm::Test

#endif
