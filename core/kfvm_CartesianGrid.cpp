#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Error.hpp>

#include <cmath>
#include <limits>

namespace kfvm {

namespace {

const char* axisName(int axis) {
  return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

std::vector<double> uniformVertices(int axis, int n, double length) {
  require(n > 0, "number of cells along ", axisName(axis), " must be positive, got ", n);
  require(std::isfinite(length) && length > 0, "domain length along ", axisName(axis),
          " must be positive and finite, got ", length);
  std::vector<double> vertices(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) vertices[i] = length * i / n;
  return vertices;
}

std::vector<double> verticesFromSpacing(int axis, const std::vector<double>& spacing) {
  std::vector<double> vertices{0.0};
  for (std::size_t i = 0; i < spacing.size(); ++i) {
    require(std::isfinite(spacing[i]) && spacing[i] > 0, "cell spacing along ",
            axisName(axis), " must be positive and finite, got ", spacing[i],
            " at index ", i);
    vertices.push_back(vertices.back() + spacing[i]);
  }
  return vertices;
}

}  // namespace

CartesianGrid::CartesianGrid(int dimension, std::array<std::vector<double>, 3> vertices)
    : dimension_(dimension), vertices_(std::move(vertices)) {
  constexpr long long maxCells = std::numeric_limits<int>::max() / 4;
  for (int axis = 0; axis < 3; ++axis) {
    if (axis >= dimension_) vertices_[axis] = {0.0, 1.0};
    const auto& v = vertices_[axis];
    require(v.size() >= 2, "number of cells along ", axisName(axis),
            " must be positive, got ", static_cast<long long>(v.size()) - 1);
    for (std::size_t i = 0; i < v.size(); ++i) {
      require(std::isfinite(v[i]), "vertex coordinate ", axisName(axis), "[", i,
              "] is not finite: ", v[i]);
      if (i > 0) {
        require(v[i] > v[i - 1], "cell spacing along ", axisName(axis),
                " must be positive, got ", v[i] - v[i - 1], " at cell ", i - 1);
      }
    }
  }
  require(numCells() <= maxCells, "grid of ", numCells(),
          " cells exceeds kfvm's limit of ", maxCells, " cells per mesh");
}

CartesianGrid CartesianGrid::uniform1D(int nx, double lx) {
  return CartesianGrid(1, {uniformVertices(0, nx, lx), {}, {}});
}

CartesianGrid CartesianGrid::uniform2D(int nx, int ny, double lx, double ly) {
  return CartesianGrid(2, {uniformVertices(0, nx, lx), uniformVertices(1, ny, ly), {}});
}

CartesianGrid CartesianGrid::uniform3D(int nx, int ny, int nz, double lx, double ly,
                                       double lz) {
  return CartesianGrid(3, {uniformVertices(0, nx, lx), uniformVertices(1, ny, ly),
                           uniformVertices(2, nz, lz)});
}

CartesianGrid CartesianGrid::fromSpacing(const std::vector<double>& dx,
                                         const std::vector<double>& dy,
                                         const std::vector<double>& dz) {
  require(!dx.empty(), "number of cells along x must be positive, got 0");
  require(dz.empty() || !dy.empty(), "a grid with z spacing needs y spacing too");
  const int dimension = dz.empty() ? (dy.empty() ? 1 : 2) : 3;
  return CartesianGrid(
      dimension, {verticesFromSpacing(0, dx),
                  dimension >= 2 ? verticesFromSpacing(1, dy) : std::vector<double>{},
                  dimension >= 3 ? verticesFromSpacing(2, dz) : std::vector<double>{}});
}

CartesianGrid CartesianGrid::fromVertices(const std::vector<double>& xs,
                                          const std::vector<double>& ys,
                                          const std::vector<double>& zs) {
  require(xs.size() >= 2, "number of cells along x must be positive, got ",
          static_cast<long long>(xs.size()) - 1);
  require(zs.empty() || !ys.empty(), "a grid with z vertices needs y vertices too");
  const int dimension = zs.empty() ? (ys.empty() ? 1 : 2) : 3;
  require(dimension < 2 || ys.size() >= 2,
          "number of cells along y must be positive, got ",
          static_cast<long long>(ys.size()) - 1);
  require(dimension < 3 || zs.size() >= 2,
          "number of cells along z must be positive, got ",
          static_cast<long long>(zs.size()) - 1);
  return CartesianGrid(dimension, {xs, ys, zs});
}

}  // namespace kfvm
