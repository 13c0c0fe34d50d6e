#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_GridTransfer.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace kfvm {

namespace Details {

/// b = R r: each coarse cell gathers the fine cells that interpolate from it. The
/// per-axis sources and weights are loaded first (unused entries: index 0, weight 0), so
/// every load has a valid index: the loops along x and y have fixed trip counts and
/// issue their 16 loads together (with loops to each axis's count a GPU issued the
/// loads one after the other); planes of weight 0 are skipped.
template <class ExecSpace>
struct TransferRestriction {
  typename GridTransfer<ExecSpace>::Data d;
  Vector<ExecSpace> r, b;
  int components;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    d.coarse.indices(cell, idx);
    Ordinal at[3][4];
    Real w[3][4];
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 4; ++s) {
        at[a][s] = d.sources[a](idx[a], s);
        w[a][s] = d.sourceWeights[a](idx[a], s);
      }
    const Ordinal nx = d.fineCells[0], plane = nx * d.fineCells[1];
    for (int v = 0; v < components; ++v) {
      Real sum = 0;
      for (int q = 0; q < 4; ++q) {
        if (w[2][q] == 0) continue;
        Real layer = 0;
        for (int p = 0; p < 4; ++p) {
          const Ordinal row = at[1][p] * nx + at[2][q] * plane;
          Real line = 0;
          for (int o = 0; o < 4; ++o)
            line += w[0][o] * r((at[0][o] + row) * components + v);
          layer += w[1][p] * line;
        }
        sum += w[2][q] * layer;
      }
      b(cell * components + v) = sum;
    }
  }
};

/// x += P e: each fine cell interpolates from 8 coarse cells (an axis without another
/// coarse cell has weight 0 on its parent again: every load valid, none skipped).
template <class ExecSpace>
struct TransferProlongation {
  typename GridTransfer<ExecSpace>::Data d;
  Vector<ExecSpace> e, x;
  int components;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    int idx[3];
    d.fine.indices(cell, idx);
    Ordinal at[3][2];
    Real w[3][2];
    for (int a = 0; a < 3; ++a) {
      const Real other = d.weight[a](idx[a]);
      at[a][0] = d.parent[a](idx[a]);
      at[a][1] = d.other[a](idx[a]);
      w[a][0] = Real(1) - other;
      w[a][1] = other;
    }
    const Ordinal nx = d.coarseCells[0], plane = nx * d.coarseCells[1];
    for (int v = 0; v < components; ++v) {
      Real sum = 0;
      for (int q = 0; q < 2; ++q)
        for (int p = 0; p < 2; ++p) {
          const Ordinal row = at[1][p] * nx + at[2][q] * plane;
          const Real line = w[0][0] * e((at[0][0] + row) * components + v) +
                            w[0][1] * e((at[0][1] + row) * components + v);
          sum += w[2][q] * w[1][p] * line;
        }
      x(cell * components + v) += sum;
    }
  }
};

inline std::vector<double> centres(const std::vector<double>& v) {
  std::vector<double> c(v.size() - 1);
  for (std::size_t i = 0; i + 1 < v.size(); ++i) c[i] = 0.5 * (v[i] + v[i + 1]);
  return c;
}

}  // namespace Details

template <class ExecSpace>
GridTransfer<ExecSpace>::GridTransfer(const GridLevel<ExecSpace>& fine,
                                      const GridLevel<ExecSpace>& coarse)
    : fineCount_(fine.numCells()), coarseCount_(coarse.numCells()) {
  data_.fine = GridInterior(fine.dimension(), fine.cells());
  data_.coarse = GridInterior(coarse.dimension(), coarse.cells());
  const std::string name = "kfvm::GridTransfer::";
  for (int a = 0; a < 3; ++a) {
    const int n = fine.cells()[a], m = coarse.cells()[a];
    data_.fineCells[a] = n;
    data_.coarseCells[a] = m;
    // Across ranks: local indices from the blocks' first global cells.
    const int fineFirst = fine.placement().first[a];
    const int coarseFirst = coarse.placement().first[a];
    const int N = fine.placement().global[a], M = coarse.placement().global[a];
    const bool merged = M != N;
    require(merged ? M == (N + 1) / 2 : true, "GridTransfer: the ", coarse.description(),
            " is not the next coarser level of the ", fine.description());
    const auto x = Details::centres(fine.vertices(a));
    const auto X = Details::centres(coarse.vertices(a));
    // Around a periodic axis the first and last coarse cells are neighbours: a fine
    // cell beyond the first or last coarse centre interpolates across the ends.
    const bool wraps = merged && coarse.periodic()[a] && m > 1;
    const double length = fine.vertices(a).back() - fine.vertices(a).front();
    std::vector<int> parent(n), other(n);
    std::vector<Real> weight(n, Real(0));  // in Real: R is exactly P^T
    std::vector<std::vector<std::pair<int, Real>>> sources(m);
    for (int i = 0; i < n; ++i) {
      // A fine ghost beyond the coarse block (none where the blocks are halves) takes
      // the nearest coarse cell: ghost values are never used. A block wrapped around a
      // periodic axis starts at a negative index: its parent rounds down.
      const int global = i + fineFirst;
      const int parentGlobal = !merged       ? global
                               : global >= 0 ? global / 2
                                             : -((1 - global) / 2);
      const int I = std::min(std::max(parentGlobal - coarseFirst, 0), m - 1);
      int J = I;
      if (merged) J = x[i] < X[I] ? I - 1 : x[i] > X[I] ? I + 1 : I;
      double XJ = J >= 0 && J < m ? X[std::size_t(J)] : 0;
      if (wraps && J < 0) {
        J = m - 1;
        XJ = X[std::size_t(J)] - length;
      } else if (wraps && J >= m) {
        J = 0;
        XJ = X[0] + length;
      }
      if (J < 0 || J >= m) J = I;
      parent[i] = I;
      other[i] = J;
      if (J != I) weight[i] = Real((x[i] - X[I]) / (XJ - X[I]));
      sources[I].push_back({i, Real(1) - weight[i]});  // as the prolongation computes it
      if (J != I) sources[J].push_back({i, weight[i]});
    }
    data_.parent[a] = DeviceView<int*, ExecSpace>(name + "parent", n);
    data_.other[a] = DeviceView<int*, ExecSpace>(name + "other", n);
    data_.weight[a] = DeviceView<Real*, ExecSpace>(name + "weight", n);
    data_.sources[a] = DeviceView<int* [4], ExecSpace>(name + "sources", m);
    data_.sourceWeights[a] = DeviceView<Real* [4], ExecSpace>(name + "sourceWeights", m);
    auto hostParent = Kokkos::create_mirror_view(data_.parent[a]);
    auto hostOther = Kokkos::create_mirror_view(data_.other[a]);
    auto hostWeight = Kokkos::create_mirror_view(data_.weight[a]);
    auto hostSources = Kokkos::create_mirror_view(data_.sources[a]);
    auto hostSourceWeights = Kokkos::create_mirror_view(data_.sourceWeights[a]);
    for (int i = 0; i < n; ++i) {
      hostParent(i) = parent[i];
      hostOther(i) = other[i];
      hostWeight(i) = weight[i];
    }
    for (int I = 0; I < m; ++I) {
      require(sources[I].size() <= 4, "GridTransfer: coarse cell ", I, " along axis ", a,
              " takes ", sources[I].size(), " fine cells");
      for (int s = 0; s < 4; ++s) {
        const bool used = s < int(sources[I].size());
        hostSources(I, s) = used ? sources[I][s].first : 0;
        hostSourceWeights(I, s) = used ? sources[I][s].second : Real(0);
      }
    }
    Kokkos::deep_copy(data_.parent[a], hostParent);
    Kokkos::deep_copy(data_.other[a], hostOther);
    Kokkos::deep_copy(data_.weight[a], hostWeight);
    Kokkos::deep_copy(data_.sources[a], hostSources);
    Kokkos::deep_copy(data_.sourceWeights[a], hostSourceWeights);
  }
}

template <class ExecSpace>
void GridTransfer<ExecSpace>::restrict(const Vector<ExecSpace>& r,
                                       const Vector<ExecSpace>& b, int components) const {
  forEachIndex("kfvm::GridTransfer::restrict", ExecSpace(), coarseCount_,
               Details::TransferRestriction<ExecSpace>{data_, r, b, components});
}

template <class ExecSpace>
void GridTransfer<ExecSpace>::prolongAdd(const Vector<ExecSpace>& e,
                                         const Vector<ExecSpace>& x,
                                         int components) const {
  forEachIndex("kfvm::GridTransfer::prolongAdd", ExecSpace(), fineCount_,
               Details::TransferProlongation<ExecSpace>{data_, e, x, components});
}

#define KFVM_INSTANTIATE_GRID_TRANSFER(Space) template class GridTransfer<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_GRID_TRANSFER)

}  // namespace kfvm
