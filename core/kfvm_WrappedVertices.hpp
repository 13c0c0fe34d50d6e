#ifndef KFVM_WRAPPED_VERTICES_HPP
#define KFVM_WRAPPED_VERTICES_HPP

#include <kfvm_Error.hpp>

#include <cstddef>
#include <vector>

namespace kfvm {

/// Vertices first to first + cells of an axis with vertices `all` (n + 1 of them, n
/// cells), continued periodically beyond its ends: vertex v = w + t n (0 <= w < n) lies
/// at all[w] + t (all[n] - all[0]), so a run of cells passing an end of a periodic axis
/// (a rank's ghosted block) is an ordinary increasing axis. first may be negative.
inline std::vector<double> wrappedVertices(const std::vector<double>& all, int first,
                                           int cells) {
  const int n = int(all.size()) - 1;
  require(n >= 1 && cells >= 0, "wrapped vertices: ", cells, " cells of an axis of ", n);
  const double length = all[std::size_t(n)] - all[0];
  std::vector<double> vertices;
  vertices.reserve(std::size_t(cells) + 1);
  for (int v = first; v <= first + cells; ++v) {
    const int wrapped = ((v % n) + n) % n;
    const int turns = (v - wrapped) / n;
    vertices.push_back(v == n ? all[std::size_t(n)]
                              : all[std::size_t(wrapped)] + turns * length);
  }
  return vertices;
}

}  // namespace kfvm

#endif
