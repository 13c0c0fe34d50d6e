#ifndef KFVM_PATCH_HPP
#define KFVM_PATCH_HPP

#include <array>
#include <string>

namespace kfvm {

/// Named boundary patches of a Cartesian mesh: the low and high side of each axis.
enum class Patch : int { Left = 0, Right = 1, Bottom = 2, Top = 3, Back = 4, Front = 5 };

inline constexpr int numPatches = 6;

inline constexpr std::array<Patch, numPatches> allPatches = {
    Patch::Left, Patch::Right, Patch::Bottom, Patch::Top, Patch::Back, Patch::Front};

/// "left", "right", "bottom", "top", "back" or "front".
std::string patchName(Patch patch);

/// The patch called name (as patchName prints it); throws kfvm::Error naming it
/// otherwise.
Patch patchFromName(const std::string& name);

/// Axis (0 = x, 1 = y, 2 = z) a patch closes.
constexpr int patchAxis(Patch patch) {
  return static_cast<int>(patch) / 2;
}

/// True for the high side of its axis (right, top, front).
constexpr bool patchIsHighSide(Patch patch) {
  return static_cast<int>(patch) % 2 == 1;
}

}  // namespace kfvm

#endif
