#include <kfvm_Backends.hpp>
#include <kfvm_Blas1.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_StencilOperator.hpp>

#include "detail/kfvm_StencilLoops.hpp"

#include <cmath>

namespace kfvm {

template <class ExecSpace>
StencilOperator<ExecSpace>::StencilOperator(const Assembler<ExecSpace>& assembler,
                                            StencilLoop loop)
    : assembler_(&assembler), loop_(loop) {
  require(!assembler.equation().hasHigherOrder(),
          "StencilOperator: the higher-order diffusion term reaches neighbours' "
          "neighbours; use the assembled matrix");
  if (loop_ == StencilLoop::Auto) {
    loop_ = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                       typename ExecSpace::memory_space>::accessible
                ? StencilLoop::Rows
                : StencilLoop::Columns;
  }
  // Uniform weights: one diffusion constant (no field, no D(phi), no face values), no
  // convection, equal spacing along each axis. Then every interior face of an axis has
  // the weight D A / d of its first one (read once, here).
  const auto& equation = assembler.equation();
  const auto& mesh = equation.mesh();
  uniform_ = !equation.hasConvection() && !equation.diffusionPerFace() &&
             !equation.diffusionCoefficient().isField();
  for (int a = 0; a < mesh.dimension() && uniform_; ++a) {
    const auto& v = mesh.grid().vertices(a);
    const double h = v[1] - v[0];
    for (std::size_t i = 1; i + 1 < v.size() && uniform_; ++i)
      uniform_ = std::abs((v[i + 1] - v[i]) - h) <= 1e-12 * std::abs(h);
  }
  for (int a = 0; a < mesh.dimension() && uniform_; ++a) {
    if (mesh.grid().cells(a) < 2) continue;  // no interior face along this axis
    const auto n = mesh.cellCounts();  // the face between cells 0 and 1 of the axis:
    const Ordinal face = mesh.firstFace(a) + (a == 0 ? 1 : a == 1 ? n[0] : n[0] * n[1]);
    Real area = 0, distance = 0;
    Kokkos::deep_copy(area, Kokkos::subview(mesh.faceAreas(), face));
    Kokkos::deep_copy(distance, Kokkos::subview(mesh.faceDistances(), face));
    weights_[a] = equation.diffusionCoefficient().constant * area / distance;
  }
  // Every cell with all its neighbours then has the same diagonal when the transient
  // and implicit source coefficients are constants too (the cell volumes are equal):
  // the first such cell, (1, 1, 1) or its 1D/2D counterpart, stands for all of them.
  const auto n = mesh.cellCounts();
  bool interior = uniform_ && !equation.transientCoefficient().isField() &&
                  !equation.implicitSourceCoefficient().isField();
  for (int a = 0; a < mesh.dimension(); ++a) interior = interior && n[a] >= 3;
  if (interior)
    interiorCell_ = 1 + (mesh.dimension() >= 2 ? n[0] : 0) +
                    (mesh.dimension() >= 3 ? Ordinal(n[0]) * n[1] : 0);
  periodic_ = mesh.isPeriodic();
  if (loop_ == StencilLoop::Columns)
    dotSums_ = BlockReduction<double, ExecSpace>("kfvm::StencilOperator::dotSums",
                                                 Details::StencilColumnTiles(n).items);
}

template <class ExecSpace>
Details::StencilData<ExecSpace> StencilOperator<ExecSpace>::stencilData(
    const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  const auto n = mesh.cellCounts();
  return {assembler_->faceCoefficients(),
          assembler_->faceNeighbourCoefficients(),
          assembler_->diagonal(),
          x,
          y,
          assembler_->theta(),
          n[0],
          n[1],
          n[2],
          mesh.dimension() >= 2 ? mesh.firstFace(1) : -1,
          mesh.dimension() >= 3 ? mesh.firstFace(2) : -1,
          uniform_,
          {weights_[0], weights_[1], weights_[2]},
          loop_ == StencilLoop::StreamingRows,
          interiorCell_};
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::applyBox(const Vector<ExecSpace>& x,
                                          const Vector<ExecSpace>& y,
                                          const std::array<int, 3>& begin,
                                          const std::array<int, 3>& end) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::applyBox: vectors must have ", mesh.numCells(),
          " entries, got ", x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  for (int a = 0; a < 3; ++a)
    require(begin[a] >= 0 && begin[a] <= end[a] && end[a] <= n[a],
            "StencilOperator::applyBox: the box [", begin[a], ", ", end[a],
            ") along axis ", a, " is not inside the grid's 0 .. ", n[a], " cells");
  const int count[3] = {end[0] - begin[0], end[1] - begin[1], end[2] - begin[2]};
  if (count[0] == 0 || count[1] == 0 || count[2] == 0) return;
  if (periodic_) {
    applyPeriodic(x, y, begin, end);
    return;
  }
  const auto data = stencilData(x, y);
  if (loop_ == StencilLoop::Rows || loop_ == StencilLoop::StreamingRows) {
    forEachIndex(
        "kfvm::StencilOperator::applyBoxRows", mesh.space(), Ordinal(count[1]) * count[2],
        Details::StencilBoxRows<ExecSpace>{
            data, {begin[0], begin[1], begin[2]}, {count[0], count[1], count[2]}});
  } else {
    forEachIndex(
        "kfvm::StencilOperator::applyBoxCells", mesh.space(),
        Ordinal(count[0]) * count[1] * count[2],
        Details::StencilBoxCells<ExecSpace>{
            data, {begin[0], begin[1], begin[2]}, {count[0], count[1], count[2]}});
  }
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::apply(const Vector<ExecSpace>& x,
                                       const Vector<ExecSpace>& y) const {
  const auto& mesh = assembler_->equation().mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::apply: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  const auto n = mesh.cellCounts();
  if (periodic_) {
    applyPeriodic(x, y, {0, 0, 0}, n);
    return;
  }
  const Details::StencilData<ExecSpace> data = stencilData(x, y);
  const ExecSpace& space = mesh.space();
  if (loop_ == StencilLoop::Rows || loop_ == StencilLoop::StreamingRows) {
    const int tile = 8;  // rows of j per tile
    forEachIndex(loop_ == StencilLoop::Rows ? "kfvm::StencilOperator::applyRows"
                                            : "kfvm::StencilOperator::applyStreamingRows",
                 space, Ordinal((n[1] + tile - 1) / tile) * tile * n[2],
                 Details::StencilRows<ExecSpace>{data, tile});
  } else if (loop_ == StencilLoop::Teams) {
    Kokkos::parallel_for("kfvm::StencilOperator::applyTeams",
                         Kokkos::TeamPolicy<ExecSpace>(space, n[1] * n[2], Kokkos::AUTO),
                         Details::StencilTeams<ExecSpace>{data});
  } else if (loop_ == StencilLoop::Columns) {
    const Details::StencilColumnTiles c(n);
    if (uniform_ && mesh.dimension() == 3)
      forEachIndex("kfvm::StencilOperator::applyUniformColumns", space, c.items,
                   Details::StencilUniformColumns<ExecSpace>{{data, c}});
    else
      forEachIndex("kfvm::StencilOperator::applyColumns", space, c.items,
                   Details::StencilColumns<ExecSpace>{data, c});
  } else {
    forEachCell("kfvm::StencilOperator::applyCells", mesh,
                Details::StencilCells<ExecSpace>{data});
  }
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::applyAndDot(const Vector<ExecSpace>& x,
                                             const Vector<ExecSpace>& y,
                                             const DeviceScalar<ExecSpace>& xDotY) const {
  const auto& mesh = assembler_->equation().mesh();
  const ExecSpace& space = mesh.space();
  using Sum = Kokkos::Sum<double, typename ExecSpace::memory_space>;
  if (loop_ != StencilLoop::Columns || periodic_) {  // no sum in the loop: a reduction
    apply(x, y);
    Blas::dotInto(x, y, xDotY);
    return;
  }
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "StencilOperator::applyAndDot: vectors must have ", mesh.numCells(),
          " entries, got ", x.extent(0), " and ", y.extent(0));
  const auto data = stencilData(x, y);
  const Details::StencilColumnTiles c(mesh.cellCounts());
  if (uniform_ && mesh.dimension() == 3)
    dotSums_.sum("kfvm::StencilOperator::applyUniformColumnsAndDot", space, c.items,
                 Details::StencilUniformColumnsDot<ExecSpace>{{{data, c}}}, xDotY);
  else
    dotSums_.sum("kfvm::StencilOperator::applyColumnsAndDot", space, c.items,
                 Details::StencilColumnsDot<ExecSpace>{{data, c}}, xDotY);
}

template <class ExecSpace>
void StencilOperator<ExecSpace>::applyPeriodic(const Vector<ExecSpace>& x,
                                               const Vector<ExecSpace>& y,
                                               const std::array<int, 3>& begin,
                                               const std::array<int, 3>& end) const {
  const auto& mesh = assembler_->equation().mesh();
  forEachIndex("kfvm::StencilOperator::applyPeriodicCells", mesh.space(),
               Ordinal(end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]),
               Details::StencilPeriodicCells<ExecSpace>{
                   stencilData(x, y),
                   {mesh.isPeriodic(0), mesh.isPeriodic(1), mesh.isPeriodic(2)},
                   {begin[0], begin[1], begin[2]},
                   {end[0] - begin[0], end[1] - begin[1], end[2] - begin[2]}});
}

#define KFVM_INSTANTIATE_STENCIL(Space) template class StencilOperator<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL)

}  // namespace kfvm
