#include <detail/kfvm_DiffusionTensor.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Equation.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <sstream>

namespace kfvm::Details {

namespace {

/// The tensor at row i of values as a 3x3 array, identity off the first dim axes.
template <class Values>
KOKKOS_INLINE_FUNCTION void loadTensor(const Values& values, Ordinal i, int dim,
                                       Real T[3][3]) {
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b)
      T[a][b] = (a < dim && b < dim) ? values(i, symmetricIndex(a, b)) : Real(a == b);
  }
}

/// The inverse of a symmetric positive-definite 3x3 tensor, by cofactors.
KOKKOS_INLINE_FUNCTION void invertTensor(const Real T[3][3], Real inverse[3][3]) {
  const Real c00 = T[1][1] * T[2][2] - T[1][2] * T[2][1];
  const Real c01 = T[1][2] * T[2][0] - T[1][0] * T[2][2];
  const Real c02 = T[1][0] * T[2][1] - T[1][1] * T[2][0];
  const Real det = T[0][0] * c00 + T[0][1] * c01 + T[0][2] * c02;
  inverse[0][0] = c00 / det;
  inverse[1][0] = c01 / det;
  inverse[2][0] = c02 / det;
  inverse[0][1] = (T[0][2] * T[2][1] - T[0][1] * T[2][2]) / det;
  inverse[1][1] = (T[0][0] * T[2][2] - T[0][2] * T[2][0]) / det;
  inverse[2][1] = (T[0][1] * T[2][0] - T[0][0] * T[2][1]) / det;
  inverse[0][2] = (T[0][1] * T[1][2] - T[0][2] * T[1][1]) / det;
  inverse[1][2] = (T[0][2] * T[1][0] - T[0][0] * T[1][2]) / det;
  inverse[2][2] = (T[0][0] * T[1][1] - T[0][1] * T[1][0]) / det;
}

template <class ExecSpace>
struct FirstIndefiniteTensor {
  DeviceView<const Real* [6], ExecSpace> values;
  int dim;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Ordinal& first) const {
    Real T[3][3], minor = 0;
    loadTensor(values, i, dim, T);
    if (firstNonPositiveMinor(T, dim, minor) >= 0 && i < first) first = i;
  }
};

template <class ExecSpace>
struct HarmonicTensorMean {
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*[3], ExecSpace> normals, faceCentres, cellCentres;
  DeviceView<const Real*, ExecSpace> distances;
  DeviceView<const Real* [6], ExecSpace> cellTensors;
  DeviceView<Real* [6], ExecSpace> faceTensors;
  int dim;

  KOKKOS_INLINE_FUNCTION void operator()(Ordinal f) const {
    const Ordinal o = faceCells(f, 0), n = faceCells(f, 1);
    Real mean[3][3];
    if (n < 0) {
      loadTensor(cellTensors, o, dim, mean);
    } else {
      Real dOwner = 0;
      for (int a = 0; a < 3; ++a)
        dOwner += (faceCentres(f, a) - cellCentres(o, a)) * normals(f, a);
      const Real d = distances(f), dNeighbour = d - dOwner;
      Real To[3][3], Tn[3][3], Io[3][3], In[3][3], sum[3][3];
      loadTensor(cellTensors, o, dim, To);
      loadTensor(cellTensors, n, dim, Tn);
      invertTensor(To, Io);
      invertTensor(Tn, In);
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b)
          sum[a][b] = (dOwner * Io[a][b] + dNeighbour * In[a][b]) / d;
      }
      invertTensor(sum, mean);
    }
    for (int a = 0; a < 3; ++a) {
      for (int b = a; b < 3; ++b)
        faceTensors(f, symmetricIndex(a, b)) =
            (a < dim && b < dim) ? mean[a][b] : Real(0);
    }
  }
};

template <class ExecSpace>
struct NormalNormal {
  DeviceView<const Real* [3], ExecSpace> normals;
  TensorCoefficient<ExecSpace> gamma;
  DeviceView<Real*, ExecSpace> values;

  KOKKOS_INLINE_FUNCTION void operator()(Ordinal f) const {
    Real conormal[3];
    gamma.conormal(f, normals, conormal);
    values(f) = normals(f, 0) * conormal[0] + normals(f, 1) * conormal[1] +
                normals(f, 2) * conormal[2];
  }
};

}  // namespace

template <class ExecSpace>
void requirePositiveDefiniteTensors(const Mesh<ExecSpace>& mesh,
                                    const DeviceView<const Real* [6], ExecSpace>& values,
                                    Centering where, const std::string& what) {
  const Ordinal n = Ordinal(values.extent(0));
  Ordinal first = n;
  Kokkos::parallel_reduce("kfvm::DiffusionTensor::validate", indexRange(mesh.space(), n),
                          FirstIndefiniteTensor<ExecSpace>{values, mesh.dimension()},
                          Kokkos::Min<Ordinal>(first));
  if (first >= n) return;  // Min starts from the largest Ordinal
  // Entry by entry: a row of a device View (LayoutLeft on Cuda) is not contiguous, and
  // deep_copy cannot move a strided subview between the device and the host.
  Kokkos::View<Real* [6], Kokkos::HostSpace> tensor("kfvm::DiffusionTensor::bad", 1);
  for (int k = 0; k < 6; ++k)
    Kokkos::deep_copy(Kokkos::subview(tensor, 0, k), Kokkos::subview(values, first, k));
  const auto centres = where == Centering::Cell ? mesh.cellCentres() : mesh.faceCentres();
  Real centre[3];
  for (int a = 0; a < 3; ++a)
    Kokkos::deep_copy(centre[a], Kokkos::subview(centres, first, a));
  const int dim = mesh.dimension();
  Real T[3][3], minor = 0;
  loadTensor(tensor, 0, dim, T);
  const int k = firstNonPositiveMinor(T, dim, minor);
  std::ostringstream entries;
  for (int a = 0; a < dim; ++a) {
    entries << (a ? ", [" : "[");
    for (int b = 0; b < dim; ++b) entries << (b ? ", " : "") << T[a][b];
    entries << "]";
  }
  fail(what, " tensor at ", where == Centering::Cell ? "cell " : "face ", first, " (",
       centre[0], ", ", centre[1], ", ", centre[2], ") is not positive definite: [",
       entries.str(), "], its ", k + 1, "x", k + 1, " leading minor is ", minor);
}

template <class ExecSpace>
void averageTensorsToFaces(const Mesh<ExecSpace>& mesh,
                           const DeviceView<const Real* [6], ExecSpace>& cellTensors,
                           const DeviceView<Real* [6], ExecSpace>& faceTensors) {
  forEachFace("kfvm::DiffusionTensor::faceMean", mesh,
              HarmonicTensorMean<ExecSpace>{mesh.faceCells(), mesh.faceNormals(),
                                            mesh.faceCentres(), mesh.cellCentres(),
                                            mesh.faceDistances(), cellTensors,
                                            faceTensors, mesh.dimension()});
}

template <class ExecSpace>
void tensorNormalNormal(const Mesh<ExecSpace>& mesh,
                        const TensorCoefficient<ExecSpace>& gamma,
                        const DeviceView<Real*, ExecSpace>& values) {
  forEachFace("kfvm::DiffusionTensor::normalNormal", mesh,
              NormalNormal<ExecSpace>{mesh.faceNormals(), gamma, values});
}

}  // namespace kfvm::Details

namespace kfvm {

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(const Tensor3& tensor) {
  const int dim = mesh_.dimension();
  Tensor3 gamma{};
  for (std::size_t a = 0; a < std::size_t(dim); ++a) {
    for (std::size_t b = 0; b < std::size_t(dim); ++b) gamma[a][b] = tensor[a][b];
  }
  requireSymmetricTensor(gamma, "diffusion tensor");
  Real T[3][3], minor = 0;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) T[a][b] = gamma[std::size_t(a)][std::size_t(b)];
  }
  const int k = Details::firstNonPositiveMinor(T, dim, minor);
  require(k < 0, "diffusion tensor is not positive definite (its ", k + 1, "x", k + 1,
          " leading minor is ", minor, ")");
  TensorCoefficient<ExecSpace> coefficient;
  for (int a = 0; a < 3; ++a) {
    for (int b = a; b < 3; ++b) coefficient.constant[symmetricIndex(a, b)] = T[a][b];
  }
  cellTensors_ = {};
  return setDiffusionTensor(coefficient);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(
    const CellTensorField<ExecSpace>& tensor) {
  tensor.requireOn(mesh_, "diffusion");
  Details::requirePositiveDefiniteTensors<ExecSpace>(mesh_, tensor.values(),
                                                     Centering::Cell, "diffusion");
  cellTensors_ = tensor.values();
  if (faceTensorMeans_.extent(0) != std::size_t(mesh_.numFaces()))
    faceTensorMeans_ = DeviceView<Real* [6], ExecSpace>("kfvm::Equation::faceTensorMeans",
                                                        mesh_.numFaces());
  Details::averageTensorsToFaces<ExecSpace>(mesh_, cellTensors_, faceTensorMeans_);
  TensorCoefficient<ExecSpace> coefficient;
  coefficient.faceValues = faceTensorMeans_;
  return setDiffusionTensor(coefficient);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::diffusion(
    const FaceTensorField<ExecSpace>& tensor) {
  tensor.requireOn(mesh_, "diffusion");
  Details::requirePositiveDefiniteTensors<ExecSpace>(mesh_, tensor.values(),
                                                     Centering::Face, "diffusion");
  cellTensors_ = {};
  TensorCoefficient<ExecSpace> coefficient;
  coefficient.faceValues = tensor.values();
  return setDiffusionTensor(coefficient);
}

template <class ExecSpace>
Equation<ExecSpace>& Equation<ExecSpace>::setDiffusionTensor(
    const TensorCoefficient<ExecSpace>& tensor) {
  if (tensorNormalNormal_.extent(0) != std::size_t(mesh_.numFaces()))
    tensorNormalNormal_ = DeviceView<Real*, ExecSpace>(
        "kfvm::Equation::tensorNormalNormal", mesh_.numFaces());
  Details::tensorNormalNormal<ExecSpace>(mesh_, tensor, tensorNormalNormal_);
  nonlinearDiffusion_ = false;
  D_ = Coefficient<ExecSpace>{0, tensorNormalNormal_};
  diffusionPerFace_ = true;
  diffusionSign_ = DiffusionSign::NonNegative;
  tensor_ = tensor;
  hasTensor_ = true;
  return *this;
}

template <class ExecSpace>
void Equation<ExecSpace>::refreshDiffusionTensor() const {
  if (cellTensors_.extent(0) > 0) {
    Details::requirePositiveDefiniteTensors<ExecSpace>(mesh_, cellTensors_,
                                                       Centering::Cell, "diffusion");
    Details::averageTensorsToFaces<ExecSpace>(mesh_, cellTensors_, faceTensorMeans_);
  } else {
    Details::requirePositiveDefiniteTensors<ExecSpace>(mesh_, tensor_.faceValues,
                                                       Centering::Face, "diffusion");
  }
  Details::tensorNormalNormal<ExecSpace>(mesh_, tensor_, tensorNormalNormal_);
}

#define KFVM_INSTANTIATE_EQUATION_TENSORS(Space)                                       \
  template Equation<Space>& Equation<Space>::diffusion(const Tensor3&);                \
  template Equation<Space>& Equation<Space>::diffusion(const CellTensorField<Space>&); \
  template Equation<Space>& Equation<Space>::diffusion(const FaceTensorField<Space>&); \
  template Equation<Space>& Equation<Space>::setDiffusionTensor(                       \
      const TensorCoefficient<Space>&);                                                \
  template void Equation<Space>::refreshDiffusionTensor() const;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_EQUATION_TENSORS)

}  // namespace kfvm

namespace kfvm::Details {

#define KFVM_INSTANTIATE_DIFFUSION_TENSOR(Space)                                        \
  template void requirePositiveDefiniteTensors<Space>(                                  \
      const Mesh<Space>&, const DeviceView<const Real* [6], Space>&, Centering,         \
      const std::string&);                                                              \
  template void averageTensorsToFaces<Space>(const Mesh<Space>&,                        \
                                             const DeviceView<const Real* [6], Space>&, \
                                             const DeviceView<Real* [6], Space>&);      \
  template void tensorNormalNormal<Space>(const Mesh<Space>&,                           \
                                          const TensorCoefficient<Space>&,              \
                                          const DeviceView<Real*, Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DIFFUSION_TENSOR)

}  // namespace kfvm::Details
