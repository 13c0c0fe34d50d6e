#ifndef KFVM_SPARSE_LU_PACKAGES_HPP
#define KFVM_SPARSE_LU_PACKAGES_HPP

// The makers of each package's SparseLU (kfvm_KluLU.cpp, kfvm_UmfpackLU.cpp), which
// kfvm_SparseLU.cpp calls by name; built with SuiteSparse only.

#include "../kfvm_SparseLU.hpp"

namespace kfvm::Details {

std::unique_ptr<SparseLU> makeKluLU();
std::unique_ptr<SparseLU> makeUmfpackLU();

}  // namespace kfvm::Details

#endif
