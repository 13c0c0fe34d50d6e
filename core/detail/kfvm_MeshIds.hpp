#ifndef KFVM_DETAIL_MESH_IDS_HPP
#define KFVM_DETAIL_MESH_IDS_HPP

#include <cstdint>

namespace kfvm::Details {

/// A new Mesh identity (Mesh::id()), from one counter for every backend and constructor
/// (kfvm_Mesh.cpp).
std::uint64_t nextMeshId();

}  // namespace kfvm::Details

#endif
