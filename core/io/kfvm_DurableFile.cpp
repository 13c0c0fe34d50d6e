#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kfvm {

namespace {

std::string reason(int error) {
  return std::strerror(error);
}

std::string folderOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// write(2) until every byte is out; kfvm::Error naming the file otherwise.
void writeAll(int fd, const char* data, std::size_t size, const std::string& path,
              long long offset = -1) {
  if (Details::writeFails(path))
    fail("cannot write '", path, "': ", reason(ENOSPC), " (KFVM_TEST_FAIL_WRITES)");
  while (size > 0) {
    const ssize_t written =
        offset >= 0 ? ::pwrite(fd, data, size, off_t(offset)) : ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0)
      fail("cannot write '", path, "': ", reason(written < 0 ? errno : EIO));
    data += written;
    size -= std::size_t(written);
    if (offset >= 0) offset += written;
  }
}

void syncFd(int fd, const std::string& path) {
  if (::fsync(fd) != 0)
    fail("cannot write '", path, "' to disk (fsync): ", reason(errno));
}

void closeFd(int fd, const std::string& path) {
  if (::close(fd) != 0) fail("cannot write '", path, "' (close): ", reason(errno));
}

/// A file descriptor closed on scope exit (errors there are not reported: the paths that
/// matter close explicitly with closeFd).
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int f = fd;
    fd = -1;
    return f;
  }
};

constexpr std::uint64_t prime1 = 11400714785074694791ULL,
                        prime2 = 14029467366897019727ULL, prime3 = 1609587929392839161ULL,
                        prime4 = 9650029242287828579ULL, prime5 = 2870177450012600261ULL;

std::uint64_t rotate(std::uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}
std::uint64_t round64(std::uint64_t lane, std::uint64_t input) {
  return rotate(lane + input * prime2, 31) * prime1;
}
std::uint64_t merge64(std::uint64_t hash, std::uint64_t lane) {
  return (hash ^ round64(0, lane)) * prime1 + prime4;
}
std::uint64_t read64(const unsigned char* p) {  // little endian, as XXH64 reads
  std::uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}
std::uint32_t read32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

constexpr const char* sealMagic = "KFVM-SEALED-FILE 1\n";

/// Reads [sealBlockBytes, end) of an open file into the hash; returns the bytes read.
long long hashAfterSeal(int fd, Hash64& hash, const std::string& path) {
  std::vector<char> chunk(std::size_t(1) << 22);
  long long offset = sealBlockBytes;
  for (;;) {
    const ssize_t got = ::pread(fd, chunk.data(), chunk.size(), off_t(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read '", path, "': ", reason(errno));
    if (got == 0) return offset;
    hash.update(chunk.data(), std::size_t(got));
    offset += got;
  }
}

}  // namespace

namespace Details {

bool writeFails(const std::string& path) {
  const char* text = std::getenv("KFVM_TEST_FAIL_WRITES");
  return text && *text && path.find(text) != std::string::npos;
}

}  // namespace Details

void syncDirectory(const std::string& directory) {
  Descriptor folder{::open(directory.c_str(), O_RDONLY | O_DIRECTORY)};
  if (folder.fd < 0) fail("cannot open folder '", directory, "': ", reason(errno));
  // Some file systems cannot sync a folder (EINVAL): nothing more can be done there.
  if (::fsync(folder.fd) != 0 && errno != EINVAL)
    fail("cannot write folder '", directory, "' to disk (fsync): ", reason(errno));
}

void commitFile(const std::string& temporary, const std::string& path) {
  try {
    Descriptor file{::open(temporary.c_str(), O_RDONLY)};
    if (file.fd < 0) fail("cannot open '", temporary, "': ", reason(errno));
    syncFd(file.fd, temporary);
    closeFd(file.release(), temporary);
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      fail("cannot rename '", temporary, "' to '", path, "': ", reason(errno));
  } catch (const Error&) {
    std::remove(temporary.c_str());
    throw;
  }
  syncDirectory(folderOf(path));
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = path + ".tmp";
  try {
    Descriptor file{
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (file.fd < 0) fail("cannot open '", temporary, "' for writing: ", reason(errno));
    writeAll(file.fd, bytes.data(), bytes.size(), temporary);
    closeFd(file.release(), temporary);
  } catch (const Error&) {
    std::remove(temporary.c_str());
    throw;
  }
  commitFile(temporary, path);
}

std::string readFile(const std::string& path) {
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail("cannot open '", path, "': ", reason(errno));
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(file.fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read '", path, "': ", reason(errno));
    if (got == 0) return text;
    text.append(chunk, std::size_t(got));
  }
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) {
    try {
      flush();
    } catch (const Error&) {
    }
    ::close(fd_);
  }
}

void AppendFile::open(const std::string& path, long long keepBytes) {
  require(fd_ < 0, "AppendFile: '", path_, "' is still open");
  Descriptor file{::open(path.c_str(),
                         O_WRONLY | O_CREAT | O_CLOEXEC | (keepBytes < 0 ? O_TRUNC : 0),
                         0644)};
  if (file.fd < 0) fail("cannot open '", path, "' for writing: ", reason(errno));
  if (keepBytes >= 0) {
    struct stat status {};
    if (::fstat(file.fd, &status) != 0) fail("cannot stat '", path, "': ", reason(errno));
    require(status.st_size >= keepBytes, "'", path, "' holds ", (long long)status.st_size,
            " bytes, fewer than the ", keepBytes,
            " the checkpoint recorded: it was cut or replaced since");
    if (::ftruncate(file.fd, off_t(keepBytes)) != 0)
      fail("cannot cut '", path, "' to ", keepBytes, " bytes: ", reason(errno));
    if (::lseek(file.fd, off_t(keepBytes), SEEK_SET) < 0)
      fail("cannot seek in '", path, "': ", reason(errno));
  }
  fd_ = file.release();
  path_ = path;
  buffer_.clear();
  size_ = keepBytes < 0 ? 0 : keepBytes;
}

void AppendFile::write(std::string_view text) {
  buffer_.append(text);
  size_ += (long long)text.size();
  if (buffer_.size() >= 65536) flush();
}

void AppendFile::flush() {
  if (fd_ < 0 || buffer_.empty()) return;
  std::string pending;  // out of the buffer first: a failed write is not tried again
  pending.swap(buffer_);
  writeAll(fd_, pending.data(), pending.size(), path_);
}

void AppendFile::sync() {
  if (fd_ < 0) return;
  flush();
  syncFd(fd_, path_);
}

void AppendFile::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  closeFd(fd, path_);
}

void AppendFile::writeHalfAndDie(std::string_view text) {
  flush();
  writeAll(fd_, text.data(), text.size() / 2, path_);
  std::fprintf(stderr, "kfvm: test hook: ending in the middle of a write to %s\n",
               path_.c_str());
  std::_Exit(137);
}

Hash64::Hash64(std::uint64_t seed)
    : lanes_{seed + prime1 + prime2, seed + prime2, seed, seed - prime1}, seed_(seed) {}

void Hash64::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += size;
  if (pendingSize_ + size < 32) {
    std::memcpy(pending_ + pendingSize_, p, size);
    pendingSize_ += size;
    return;
  }
  if (pendingSize_ > 0) {
    const std::size_t fill = 32 - pendingSize_;
    std::memcpy(pending_ + pendingSize_, p, fill);
    for (int l = 0; l < 4; ++l) lanes_[l] = round64(lanes_[l], read64(pending_ + 8 * l));
    p += fill;
    size -= fill;
    pendingSize_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32)
    for (int l = 0; l < 4; ++l) lanes_[l] = round64(lanes_[l], read64(p + 8 * l));
  std::memcpy(pending_, p, size);
  pendingSize_ = size;
}

std::uint64_t Hash64::digest() const {
  std::uint64_t h;
  if (total_ >= 32) {
    h = rotate(lanes_[0], 1) + rotate(lanes_[1], 7) + rotate(lanes_[2], 12) +
        rotate(lanes_[3], 18);
    for (int l = 0; l < 4; ++l) h = merge64(h, lanes_[l]);
  } else {
    h = seed_ + prime5;
  }
  h += total_;
  const unsigned char* p = pending_;
  std::size_t left = pendingSize_;
  for (; left >= 8; p += 8, left -= 8)
    h = rotate(h ^ round64(0, read64(p)), 27) * prime1 + prime4;
  if (left >= 4) {
    h = rotate(h ^ (std::uint64_t(read32(p)) * prime1), 23) * prime2 + prime3;
    p += 4;
    left -= 4;
  }
  for (; left > 0; ++p, --left) h = rotate(h ^ (*p * prime5), 11) * prime1;
  h ^= h >> 33;
  h *= prime2;
  h ^= h >> 29;
  h *= prime3;
  h ^= h >> 32;
  return h;
}

std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed) {
  Hash64 hash(seed);
  hash.update(data, size);
  return hash.digest();
}

void sealFile(const std::string& path) {
  Descriptor file{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
  if (file.fd < 0) fail("cannot open '", path, "' to seal it: ", reason(errno));
  char block[sealBlockBytes];
  ssize_t got = ::pread(file.fd, block, sizeof(block), 0);
  require(got == ssize_t(sizeof(block)), "cannot seal '", path, "': it holds fewer than ",
          sealBlockBytes, " bytes");
  for (char c : block)
    require(c == 0, "cannot seal '", path, "': its first ", sealBlockBytes,
            " bytes are not an empty user block");
  Hash64 hash;
  const long long length = hashAfterSeal(file.fd, hash, path);
  std::memset(block, 0, sizeof(block));
  std::snprintf(block, sizeof(block), "%sbytes %lld\nxxh64 %016llx\n", sealMagic, length,
                (unsigned long long)hash.digest());
  writeAll(file.fd, block, sizeof(block), path, 0);
  syncFd(file.fd, path);
  closeFd(file.release(), path);
}

void verifySealedFile(const std::string& path) {
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail("cannot open '", path, "': ", reason(errno));
  char block[sealBlockBytes + 1] = {};
  const ssize_t got = ::pread(file.fd, block, sealBlockBytes, 0);
  const std::size_t magic = std::strlen(sealMagic);
  long long length = -1;
  unsigned long long expected = 0;
  int consumed = 0;
  const bool sealed = got == ssize_t(sealBlockBytes) &&
                      std::memcmp(block, sealMagic, magic) == 0 &&
                      std::sscanf(block + magic, "bytes %lld\nxxh64 %16llx\n%n", &length,
                                  &expected, &consumed) == 2 &&
                      consumed > 0 && length >= (long long)sealBlockBytes;
  require(
      sealed, "'", path,
      "' is not a sealed kfvm checkpoint (its first bytes hold no valid seal: damaged, "
      "or not written by this kfvm)");
  Hash64 hash;
  const long long actual = hashAfterSeal(file.fd, hash, path);
  require(actual == length, "'", path, "' is damaged: it holds ", actual,
          " bytes, its seal says ", length, actual < length ? " (truncated)" : "");
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx", (unsigned long long)hash.digest());
  char want[24];
  std::snprintf(want, sizeof(want), "%016llx", expected);
  require(hash.digest() == expected, "'", path, "' is damaged: its checksum (XXH64) is ",
          text, ", its seal says ", want);
}

}  // namespace kfvm
