#ifndef KFVM_DURABLE_FILE_HPP
#define KFVM_DURABLE_FILE_HPP

// Files written whole or not at all, with every write checked: what kfvm's outputs
// (VTK, CSV, PNG) and checkpoints go through. A failed write (a full disk, a missing
// folder, a read-only file system) is a kfvm::Error naming the file and the system's
// reason, never a silently short file; a file replaced through a temporary is replaced
// only once the new one is on disk (fsync of the file, rename, fsync of the folder).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kfvm {

/// Writes bytes to path through path + ".tmp": every write checked, the file fsync'ed,
/// renamed over path, the folder fsync'ed. On failure the temporary is removed, a file
/// already at path is left as it was, and kfvm::Error names the file and the reason.
void writeFileAtomically(const std::string& path, std::string_view bytes);

/// Makes a finished temporary file the file at path: fsync of the temporary, rename over
/// path, fsync of the folder; checked. On failure the temporary is removed.
void commitFile(const std::string& temporary, const std::string& path);

/// fsync of a folder (after a rename in it, so that the rename survives a crash).
void syncDirectory(const std::string& directory);

/// The whole file; kfvm::Error naming it when it cannot be read.
std::string readFile(const std::string& path);

/// A file written in pieces, as a CSV log is: appends are buffered, flush() writes them
/// out (checked), sync() also fsyncs. Not copyable.
class AppendFile {
 public:
  AppendFile() = default;
  ~AppendFile();  // closes; errors are reported by flush(), sync() and close() only
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  /// Opens path for writing at its end. keepBytes < 0: a new, empty file (truncating
  /// one that is there); keepBytes >= 0: the file is cut to its first keepBytes bytes (a
  /// restart goes on from what a checkpoint recorded); an error when it is shorter.
  void open(const std::string& path, long long keepBytes = -1);
  bool isOpen() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  /// Appends to the buffer; writes it out once it holds 64 KiB.
  void write(std::string_view text);
  void flush();
  void sync();
  void close();
  /// Bytes in the file once the buffer is written.
  long long size() const { return size_; }

  /// For the test that kills a run in the middle of a write: writes the buffer, then
  /// half of text, and ends the process at once (_Exit(137), as a SIGKILL would).
  [[noreturn]] void writeHalfAndDie(std::string_view text);

 private:
  int fd_ = -1;
  std::string path_, buffer_;
  long long size_ = 0;
};

/// XXH64 (Yann Collet's 64-bit hash; reference values in tests/app/kfvm_AppTest.cpp):
/// the checksum of sealed files, fed in pieces.
class Hash64 {
 public:
  explicit Hash64(std::uint64_t seed = 0);
  void update(const void* data, std::size_t size);
  std::uint64_t digest() const;

 private:
  std::uint64_t lanes_[4];
  std::uint64_t seed_, total_ = 0;
  unsigned char pending_[32];
  std::size_t pendingSize_ = 0;
};

std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed = 0);

/// Sealed files (kfvm's HDF5 checkpoints): the file reserves its first sealBlockBytes
/// (HDF5's user block, H5Pset_userblock) for a seal that holds the file's length and
/// the XXH64 of every byte after the block. sealFile reads the finished file back,
/// writes the seal and fsyncs; verifySealedFile checks length and checksum before
/// anything else (HDF5's parser included) reads the file, and throws kfvm::Error naming
/// the file and what is wrong (not sealed, truncated, damaged).
constexpr std::size_t sealBlockBytes = 512;
void sealFile(const std::string& path);
void verifySealedFile(const std::string& path);

namespace Details {
/// Test hook for full-disk tests where no small file system can be mounted: with the
/// environment variable KFVM_TEST_FAIL_WRITES=TEXT, every checked write to a path
/// containing TEXT fails with ENOSPC, as on a full disk.
bool writeFails(const std::string& path);
}  // namespace Details

}  // namespace kfvm

#endif
