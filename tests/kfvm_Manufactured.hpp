#ifndef KFVM_MANUFACTURED_HPP
#define KFVM_MANUFACTURED_HPP

// A manufactured steady diffusion problem in 3D: phi = sin(pi x) sin(pi y) sin(pi z) + y
// with D = 1 + x y z, and the source s = -div(D grad phi) that makes it exact.

#include "kfvm_TestSpace.hpp"

#include <kfvm_Field.hpp>

namespace kfvm::Test {

double manufactured3D(double x, double y, double z);

/// s at the cell centres.
void setManufacturedSource3D(CellField<TestExecSpace>& s,
                             const Mesh<TestExecSpace>& mesh);

}  // namespace kfvm::Test

#endif
