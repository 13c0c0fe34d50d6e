#ifndef KFVM_PERIODIC_FACES_HPP
#define KFVM_PERIODIC_FACES_HPP

// Joining periodic patch pairs of a general mesh (MeshTopology::addPeriodicPair), for
// MeshTopology::connect() (Details).

#include <kfvm_MeshTopology.hpp>

#include <array>
#include <string>
#include <vector>

namespace kfvm::Details {

/// Joins each pair's faces in a connectivity: every face of patch pair[1] is matched to
/// the face of pair[0] its nodes lie on when moved by one translation; the two become
/// one face (pair[0]'s nodes and cell first, pair[1]'s cell second, shift = the
/// translation back), the two patches are dropped, faces renumbered in their order and
/// boundary slots rebuilt. Throws kfvm::Error naming an unknown patch, unequal face
/// counts, or a face without its image.
void joinPeriodicPatches(MeshTopology::Connectivity& mesh,
                         const std::vector<std::array<double, 3>>& nodes,
                         const std::vector<std::array<std::string, 2>>& pairs);

}  // namespace kfvm::Details

#endif
