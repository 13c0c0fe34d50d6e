#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_StencilJacobiCg.hpp>

namespace kfvm {

namespace Details {

/// What both passes share: A p at the cells of a chunk of StencilColumnTiles, with
/// uniform interior weights in 3D. p(cell, interior) gives p at a cell; interior is true
/// where the cell has all its neighbours and the diagonal inside the grid is one number
/// (then so is w: the entry of interiorCell stands for the cell's).
template <class ExecSpace>
struct JacobiCgChunk {
  static constexpr int depth = StencilColumnTiles::depth;
  StencilColumnTiles tiles;
  int nz;
  Real w0, w1, w2, theta;
  Vector<ExecSpace> diagonal, weights;
  Ordinal interiorCell;  // -1: the diagonal (and w) read at every cell

  KOKKOS_INLINE_FUNCTION bool interiorLevel(int k) const {
    return interiorCell >= 0 && k > 0 && k < nz - 1;
  }
  KOKKOS_INLINE_FUNCTION Real diagonalAt(Ordinal cell, bool interior,
                                         Real uniform) const {
    return interior ? uniform : diagonal(cell);
  }

  /// p's values at the chunk's cells into here and A p there into ap; returns the
  /// chunk's cell count. Every load is issued before any arithmetic (as
  /// StencilUniformColumns::uniformChunk): a missing neighbour is read at the cell itself
  /// with weight 0. Whether a point is interior is decided per column (its in-plane
  /// neighbours) and per level, not per point.
  template <class P>
  KOKKOS_INLINE_FUNCTION int product(int i, int j, int kBegin, const P& p,
                                     Real (&here)[depth], Real (&ap)[depth]) const {
    const int nx = tiles.nx, ny = tiles.ny;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal start = i + Ordinal(nx) * j + plane * kBegin;
    const int count = nz - kBegin < depth ? nz - kBegin : depth, kTop = kBegin + count;
    const bool inI = i > 0 && i<nx - 1, inJ = j> 0 && j < ny - 1;
    const bool centre = inI && inJ, west = i - 1 > 0 && inJ, east = i + 1 < nx - 1 && inJ,
               south = j - 1 > 0 && inI, north = j + 1 < ny - 1 && inI;
    const Real wW = i > 0 ? w0 : 0, wE = i < nx - 1 ? w0 : 0;
    const Real wS = j > 0 ? w1 : 0, wN = j < ny - 1 ? w1 : 0;
    const Real bottom = kBegin > 0 ? w2 : 0, top = kTop < nz ? w2 : 0;
    const Ordinal toW = i > 0 ? -1 : 0, toE = i < nx - 1 ? 1 : 0;
    const Ordinal toS = j > 0 ? -nx : 0, toN = j < ny - 1 ? nx : 0;
    const Real uniformDiagonal = interiorCell >= 0 ? diagonal(interiorCell) : Real(0);
    // Below and above the chunk (the chunk's end cells, weight 0, where the grid ends).
    const int kBelow = kBegin > 0 ? kBegin - 1 : kBegin,
              kAbove = kTop < nz ? kTop : kTop - 1;
    const Real below =
        p(start + plane * (kBelow - kBegin), centre && interiorLevel(kBelow));
    const Real above =
        p(start + plane * (kAbove - kBegin), centre && interiorLevel(kAbove));
    Real side[depth], diag[depth];
    for (int m = 0; m < depth; ++m) {
      if (m < count) {  // a fixed trip count: unrolled, in registers
        const bool level = interiorLevel(kBegin + m);
        const Ordinal cell = start + plane * m;
        here[m] = p(cell, centre && level);
        side[m] = wW * p(cell + toW, west && level) + wE * p(cell + toE, east && level) +
                  wS * p(cell + toS, south && level) + wN * p(cell + toN, north && level);
        diag[m] = diagonalAt(cell, centre && level, uniformDiagonal);
      }
    }
    for (int m = 0; m < depth; ++m) {
      if (m < count) {  // a fixed trip count: unrolled, in registers
        const Real down = m == 0 ? bottom * below : w2 * here[m > 0 ? m - 1 : 0];
        const Real up =
            m + 1 < count ? w2 * here[m + 1 < depth ? m + 1 : m] : top * above;
        ap[m] = diag[m] * here[m] - theta * (side[m] + down + up);
      }
    }
    return count;
  }
};

/// pNew = w r + beta pOld at the chunk's cells; sums pNew . A pNew.
template <class ExecSpace>
struct JacobiCgDirection : JacobiCgChunk<ExecSpace> {
  using Base = JacobiCgChunk<ExecSpace>;
  Vector<ExecSpace> r, pOld, pNew;
  CgSumsView<ExecSpace> previous, beforePrevious;
  bool first;

  KOKKOS_FUNCTION void operator()(Ordinal index, double& pAp) const {
    int i, j, kBegin;
    if (!this->tiles.chunkOf(index, i, j, kBegin)) return;
    const Real beta =
        first ? Real(0) : Real(previous().value[cgRZ] / beforePrevious().value[cgRZ]);
    const Real uniformWeight =
        this->interiorCell >= 0 ? this->weights(this->interiorCell) : Real(0);
    const auto p = [&](Ordinal cell, bool interior) {
      const Real wr = (interior ? uniformWeight : this->weights(cell)) * r(cell);
      return first ? wr : wr + beta * pOld(cell);
    };
    Real here[Base::depth], ap[Base::depth];
    const int count = this->product(i, j, kBegin, p, here, ap);
    const Ordinal plane = Ordinal(this->tiles.nx) * this->tiles.ny;
    const Ordinal start = i + Ordinal(this->tiles.nx) * j + plane * kBegin;
    for (int m = 0; m < Base::depth; ++m) {
      if (m < count) {  // a fixed trip count: unrolled, in registers
        pNew(start + plane * m) = here[m];
        pAp += double(here[m]) * double(ap[m]);
      }
    }
  }
};

/// x += alpha p, r -= alpha A p at the chunk's cells; sums r.(w r) and r.r (and p.A p,
/// once, for the host).
template <class ExecSpace>
struct JacobiCgUpdate : JacobiCgChunk<ExecSpace> {
  using Base = JacobiCgChunk<ExecSpace>;
  Vector<ExecSpace> p, x, r;
  CgSumsView<ExecSpace> previous;
  DeviceScalar<ExecSpace> pAp;

  KOKKOS_FUNCTION void operator()(Ordinal index, CgSums& sums) const {
    const double pap = pAp();
    if (index == 0) sums.value[cgPAP] += pap;
    int i, j, kBegin;
    if (!this->tiles.chunkOf(index, i, j, kBegin)) return;
    const Real alpha = pap > 0 ? Real(previous().value[cgRZ] / pap) : Real(0);
    const auto value = [&](Ordinal cell, bool) {
      return p(cell);
    };
    Real here[Base::depth], ap[Base::depth];
    const int count = this->product(i, j, kBegin, value, here, ap);
    const int nx = this->tiles.nx, ny = this->tiles.ny;
    const Ordinal plane = Ordinal(nx) * ny;
    const Ordinal start = i + Ordinal(nx) * j + plane * kBegin;
    const bool centre = i > 0 && i < nx - 1 && j > 0 && j < ny - 1;
    const Real uniformWeight =
        this->interiorCell >= 0 ? this->weights(this->interiorCell) : Real(0);
    Real xs[Base::depth], rs[Base::depth], ws[Base::depth];
    for (int m = 0; m < Base::depth; ++m) {  // the loads, before any store
      if (m < count) {                       // a fixed trip count: unrolled, in registers
        const Ordinal cell = start + plane * m;
        xs[m] = x(cell);
        rs[m] = r(cell);
        ws[m] = centre && this->interiorLevel(kBegin + m) ? uniformWeight
                                                          : this->weights(cell);
      }
    }
    for (int m = 0; m < Base::depth; ++m) {
      if (m < count) {  // a fixed trip count: unrolled, in registers
        const Ordinal cell = start + plane * m;
        x(cell) = xs[m] + alpha * here[m];
        const Real ri = rs[m] - alpha * ap[m];
        r(cell) = ri;
        sums.value[cgRZ] += double(ri) * double(ws[m] * ri);
        sums.value[cgRR] += double(ri) * double(ri);
      }
    }
  }
};

}  // namespace Details

template <class ExecSpace>
bool StencilJacobiCg<ExecSpace>::available(const StencilOperator<ExecSpace>& stencil) {
  return stencil.uniformWeights() && stencil.loop() == StencilLoop::Columns &&
         stencil.assembler().equation().mesh().dimension() == 3;
}

template <class ExecSpace>
StencilJacobiCg<ExecSpace>::StencilJacobiCg(const StencilOperator<ExecSpace>& stencil)
    : stencil_(&stencil), tiles_(stencil.assembler().equation().mesh().cellCounts()) {
  require(
      available(stencil),
      "StencilJacobiCg: the two-pass CG iteration needs uniform interior weights "
      "(constant D on a uniform grid, no convection), a 3D grid and the Columns loop");
  directionSums_ = BlockReduction<double, ExecSpace>(
      "kfvm::StencilJacobiCg::directionSums", tiles_.items);
  updateSums_ = BlockReduction<CgSums, ExecSpace>("kfvm::StencilJacobiCg::updateSums",
                                                  tiles_.items);
}

template <class ExecSpace>
void StencilJacobiCg<ExecSpace>::checkSizes(const char* pass,
                                            std::initializer_list<Ordinal> sizes) const {
  const Ordinal n = stencil_->assembler().equation().mesh().numCells();
  for (const Ordinal size : sizes)
    require(size == n, "StencilJacobiCg::", pass, ": vectors must have ", n,
            " entries, got ", size);
}

namespace {
template <class ExecSpace>
Details::JacobiCgChunk<ExecSpace> chunkOf(const StencilOperator<ExecSpace>& stencil,
                                          const StencilColumnTiles& tiles,
                                          const Vector<ExecSpace>& weights) {
  const auto& assembler = stencil.assembler();
  const auto& w = stencil.interiorWeights();
  return {tiles,
          assembler.equation().mesh().cellCounts()[2],
          w[0],
          w[1],
          w[2],
          assembler.theta(),
          assembler.diagonal(),
          weights,
          stencil.interiorCell()};
}
}  // namespace

template <class ExecSpace>
void StencilJacobiCg<ExecSpace>::direction(
    const Vector<ExecSpace>& weights, const Vector<ExecSpace>& r,
    const Vector<ExecSpace>& pOld, const Vector<ExecSpace>& pNew,
    const CgSumsView<ExecSpace>& previous, const CgSumsView<ExecSpace>& beforePrevious,
    bool first, const DeviceScalar<ExecSpace>& pAp) const {
  checkSizes("direction", {Ordinal(weights.extent(0)), Ordinal(r.extent(0)),
                           Ordinal(pOld.extent(0)), Ordinal(pNew.extent(0))});
  require(pOld.data() != pNew.data(),
          "StencilJacobiCg::direction: the new direction must not overwrite the old");
  directionSums_.sum(
      "kfvm::StencilJacobiCg::direction", stencil_->assembler().equation().mesh().space(),
      tiles_.items,
      Details::JacobiCgDirection<ExecSpace>{{chunkOf(*stencil_, tiles_, weights)},
                                            r,
                                            pOld,
                                            pNew,
                                            previous,
                                            beforePrevious,
                                            first},
      pAp);
}

template <class ExecSpace>
void StencilJacobiCg<ExecSpace>::update(const Vector<ExecSpace>& weights,
                                        const Vector<ExecSpace>& p,
                                        const Vector<ExecSpace>& x,
                                        const Vector<ExecSpace>& r,
                                        const CgSumsView<ExecSpace>& previous,
                                        const DeviceScalar<ExecSpace>& pAp,
                                        const CgSumsView<ExecSpace>& sums) const {
  checkSizes("update", {Ordinal(weights.extent(0)), Ordinal(p.extent(0)),
                        Ordinal(x.extent(0)), Ordinal(r.extent(0))});
  updateSums_.sum("kfvm::StencilJacobiCg::update",
                  stencil_->assembler().equation().mesh().space(), tiles_.items,
                  Details::JacobiCgUpdate<ExecSpace>{
                      {chunkOf(*stencil_, tiles_, weights)}, p, x, r, previous, pAp},
                  sums);
}

#define KFVM_INSTANTIATE_STENCIL_JACOBI_CG(Space) template class StencilJacobiCg<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL_JACOBI_CG)

}  // namespace kfvm
