#ifndef KFVM_VTK_WRITER_HPP
#define KFVM_VTK_WRITER_HPP

#include <kfvm_DurableFile.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace kfvm {

/// Cell fields of a mesh as a VTK XML RectilinearGrid file (.vtr: ASCII, 17 significant
/// digits, the grid's own vertex coordinates), which ParaView and VisIt open. The file is
/// written under a temporary name and renamed into place, so a reader never sees half a
/// file. Copies the fields to the host: call it between time steps. Throws kfvm::Error
/// naming the path when it cannot be written or a field is on another mesh.
template <class ExecSpace>
void writeVtkRectilinear(const std::string& path, const Mesh<ExecSpace>& mesh,
                         const std::vector<const CellField<ExecSpace>*>& fields,
                         double time);

/// A ParaView collection (.pvd) of a time series: add() records one written file and
/// rewrites the collection (atomically, as above).
class VtkTimeSeries {
 public:
  explicit VtkTimeSeries(std::string pvdPath) : path_(std::move(pvdPath)) {}
  /// file is relative to the .pvd's folder.
  void add(double time, const std::string& file);
  /// Takes over the entries of an existing collection at path() up to time (a restarted
  /// run goes on from there); none when there is no such file.
  void resumeUpTo(double time);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
};

namespace Details {

/// One named array of cell values on the host, x fastest.
struct HostCellArray {
  std::string name;
  std::vector<double> values;
};

/// The text of a .vtr file: a piece covering cells extent[a][0] .. extent[a][1] of a
/// whole grid of wholeCells, with the piece's vertex coordinates per axis (an empty
/// axis is written as one 0).
std::string rectilinearPieceText(const std::array<int, 3>& wholeCells,
                                 const std::array<std::array<int, 2>, 3>& extent,
                                 const std::array<std::vector<double>, 3>& vertices,
                                 const std::vector<HostCellArray>& arrays, double time);

}  // namespace Details

}  // namespace kfvm

#endif
