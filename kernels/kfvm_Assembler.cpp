#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_ExplicitTermKernels.hpp>
#include <detail/kfvm_HigherOrderKernels.hpp>
#include <detail/kfvm_NonOrthogonalCorrection.hpp>
#include <detail/kfvm_StencilStructure.hpp>
#include <kfvm_Assembler.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

namespace kfvm {

template <class ExecSpace>
Assembler<ExecSpace>::Assembler(const Equation<ExecSpace>& equation)
    : equation_(equation),
      ownerWeights_("kfvm::Assembler::ownerWeights", equation.mesh().numFaces()),
      diagonal_("kfvm::Assembler::diagonal", equation.mesh().numCells()) {
  equation_.validate();
  const auto& mesh = equation_.mesh();
  // Without convection the operator is symmetric: one weight per face serves both sides.
  neighbourWeights_ = equation_.hasConvection()
                          ? DeviceView<Real*, ExecSpace>(
                                "kfvm::Assembler::neighbourWeights", mesh.numFaces())
                          : ownerWeights_;
  if (tvd()) {
    gradient_ =
        DeviceView<Real* [3], ExecSpace>("kfvm::Assembler::gradient", mesh.numCells());
    gradientOld_ =
        DeviceView<Real* [3], ExecSpace>("kfvm::Assembler::gradientOld", mesh.numCells());
    correction_ =
        DeviceView<Real*, ExecSpace>("kfvm::Assembler::tvdCorrection", mesh.numFaces());
  }
  if (equation_.hasDiffusionCrossTerms())
    correctionGradient_ = DeviceView<Real* [3], ExecSpace>(
        "kfvm::Assembler::correctionGradient", mesh.numCells());
  if (equation_.hasExplicitConvection()) {
    require(equation_.hasTransient(),
            "FiPy's explicit convection needs a TransientTerm in its equation");
    if (equation_.explicitConvectionScheme() == ExplicitConvectionScheme::VanLeer)
      explicitGradient_ = DeviceView<Real* [3], ExecSpace>(
          "kfvm::Assembler::explicitGradient", mesh.numCells());
  }
  {
    auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellFaceOffsets());
    for (Ordinal c = 0; c < mesh.numCells(); ++c) {
      require(offsets(c + 1) - offsets(c) <= Offset(Details::maxFacesPerCell), "cell ", c,
              " has ", offsets(c + 1) - offsets(c),
              " faces; the assembler supports up to ", Details::maxFacesPerCell);
    }
  }
  // The higher-order term couples each cell to its neighbours' neighbours.
  const bool higherOrder = equation_.hasHigherOrder();
  const auto structure = Details::buildStencilStructure(mesh, higherOrder ? 2 : 1);
  diagonalEntries_ = structure.diagonalEntries;
  faceEntries_ = structure.faceEntries;
  repeatedNeighbours_ = structure.repeatedNeighbours;
  if (higherOrder) {
    potential_ =
        Vector<ExecSpace>("kfvm::Assembler::higherOrderPotential", mesh.numCells());
    potentialSlope_ =
        Vector<ExecSpace>("kfvm::Assembler::higherOrderPotentialSlope", mesh.numCells());
  }
  matrix_ =
      CrsMatrix<ExecSpace>("kfvm::Assembler::matrix", mesh.numCells(), mesh.numCells(),
                           structure.rowOffsets, structure.columns);
}

template <class ExecSpace>
void Assembler<ExecSpace>::assemble(Real invDt, Real theta,
                                    const CellField<ExecSpace>& phiOld,
                                    const Vector<ExecSpace>& rhs) {
  assemble(invDt, theta, phiOld, phiOld, rhs);
}

template <class ExecSpace>
void Assembler<ExecSpace>::assemble(Real invDt, Real theta,
                                    const CellField<ExecSpace>& phiOld,
                                    const CellField<ExecSpace>& iterate,
                                    const Vector<ExecSpace>& rhs) {
  const auto& mesh = equation_.mesh();
  phiOld.requireOn(mesh, "previous-step");
  iterate.requireOn(mesh, "iterate");
  require(rhs.extent(0) == std::size_t(mesh.numCells()), "right-hand side has ",
          rhs.extent(0), " entries, mesh has ", mesh.numCells(), " cells");
  require(theta > 0 && theta <= 1, "theta must be in (0, 1], got ", theta);
  require(invDt >= 0 && Compat::isfinite(invDt), "1/dt must be finite and >= 0, got ",
          invDt);
  theta_ = theta;
  const bool tvd = this->tvd();
  if (tvd)
    Details::tvdGradients(equation_, theta, iterate.values(), phiOld.values(), gradient_,
                          gradientOld_);
  const FaceWeightInputs inputs = faceWeightInputsOf(equation_);
  if (!(inputs.numbersOnly && inputs == weightsFrom_))
    Details::computeFaceWeights(equation_, ownerWeights_, neighbourWeights_,
                                iterate.values());
  weightsFrom_ = inputs;
  if (tvd)
    Details::tvdCorrectionFluxes(equation_, theta, iterate.values(), phiOld.values(),
                                 gradient_, gradientOld_, correction_);
  // The row fill writes the second-order entries only; the higher-order term adds to
  // a row whose other entries must start at zero.
  if (equation_.hasHigherOrder())
    Kokkos::deep_copy(ExecSpace(), matrix_.values(), Real(0));
  // Without the matrix (matrix-free solves), the kernels see an empty values View.
  const DeviceView<Real*, ExecSpace> values =
      fillsMatrix_ ? matrix_.values() : DeviceView<Real*, ExecSpace>();
  Details::RowFillArguments<ExecSpace> rows{ownerWeights_,
                                            neighbourWeights_,
                                            correction_,
                                            values,
                                            diagonal_,
                                            diagonalEntries_,
                                            faceEntries_,
                                            phiOld.values(),
                                            rhs,
                                            invDt,
                                            theta,
                                            tvd,
                                            iterate.values(),
                                            repeatedNeighbours_};
  // Rows through (i, j, k) without the face lists where they are the diagonal and
  // right-hand side alone (a matrix-free backward-Euler or steady fill): reading the
  // face lists was a large share of such a step.
  if (!fillsMatrix_ && theta == 1 && !tvd && mesh.isCartesian()) {
    rows.structured = GridInterior(mesh.dimension(), mesh.cellCounts());
    for (int a = 0; a < mesh.dimension(); ++a) rows.firstFaces[a] = mesh.firstFace(a);
  }
  Details::fillRows(equation_, rows);
  if (equation_.hasDiffusionCrossTerms())
    Details::addNonOrthogonalCorrection(equation_, theta, iterate.values(),
                                        phiOld.values(), correctionGradient_, rhs);
  if (equation_.hasHigherOrder()) {
    Details::addHigherOrderTerm<ExecSpace>(
        equation_, theta, phiOld.values(), iterate.values(), potential_, potentialSlope_,
        matrix_.rowOffsets(), matrix_.columns(), matrix_.values(), diagonalEntries_,
        diagonal_, rhs);
  }
  Details::addExplicitTerms(equation_,
                            Details::ExplicitTermArguments<ExecSpace>{
                                iterate.values(), phiOld.values(), rhs, invDt, values,
                                diagonalEntries_, diagonal_, explicitGradient_});
}

template <class ExecSpace>
bool Assembler<ExecSpace>::FaceWeightInputs::operator==(
    const FaceWeightInputs& other) const {
  return numbersOnly == other.numbersOnly && D == other.D &&
         velocity[0] == other.velocity[0] && velocity[1] == other.velocity[1] &&
         velocity[2] == other.velocity[2] && convection == other.convection &&
         scheme == other.scheme;
}

template <class ExecSpace>
typename Assembler<ExecSpace>::FaceWeightInputs Assembler<ExecSpace>::faceWeightInputsOf(
    const Equation<ExecSpace>& equation) {
  FaceWeightInputs inputs;
  const auto D = equation.diffusionCoefficient();
  const auto velocity = equation.convectionVelocity();
  inputs.numbersOnly = !D.isField() && velocity.normalValues.extent(0) == 0;
  inputs.D = D.constant;
  for (int a = 0; a < 3; ++a) inputs.velocity[a] = velocity.vector[a];
  inputs.convection = equation.hasConvection();
  inputs.scheme = int(equation.convectionScheme());
  return inputs;
}

template <class ExecSpace>
void Assembler<ExecSpace>::setFillsMatrix(bool fill) {
  require(fill || !equation_.hasHigherOrder(),
          "Assembler::setFillsMatrix(false): the higher-order diffusion term has no "
          "matrix-free form; its solves need the matrix");
  fillsMatrix_ = fill;
}

template <class ExecSpace>
void Assembler<ExecSpace>::faceForm(const DeviceView<Real*, ExecSpace>& faces) const {
  const auto& mesh = equation_.mesh();
  require(faces.extent(0) == std::size_t(mesh.numFaces()),
          "Assembler::faceForm: ", faces.extent(0), " entries for the mesh's ",
          mesh.numFaces(), " faces");
  require(!equation_.hasHigherOrder(),
          "Assembler::faceForm: the higher-order diffusion term reaches neighbours' "
          "neighbours; it has no face form (multigrid): for mg, write it as a coupled "
          "system of phi and mu (CoupledSystem; coupled multigrid)");
  Details::faceFormCoefficients<ExecSpace>(equation_, ownerWeights_, neighbourWeights_,
                                           theta_, faces);
}

template <class ExecSpace>
void Assembler<ExecSpace>::applySpatialOperator(const Vector<ExecSpace>& x,
                                                const Vector<ExecSpace>& y) const {
  const auto& mesh = equation_.mesh();
  require(!equation_.hasHigherOrder(),
          "applySpatialOperator: the higher-order diffusion "
          "term has no face-operator form; use the assembled matrix");
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "applySpatialOperator: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  Details::applySpatialOperator<ExecSpace>(equation_, ownerWeights_, neighbourWeights_, x,
                                           y);
}

template <class ExecSpace>
Real Assembler<ExecSpace>::explicitStableTimeStep() const {
  require(equation_.hasTransient(), "an explicit time step needs a TransientTerm");
  require(!equation_.hasHigherOrder(),
          "explicit stepping does not take the higher-order diffusion term (its stable "
          "dt shrinks as h^4); step it implicitly");
  return Details::explicitStableTimeStep(equation_);
}

#define KFVM_INSTANTIATE_ASSEMBLER(Space) template class Assembler<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_ASSEMBLER)

}  // namespace kfvm
