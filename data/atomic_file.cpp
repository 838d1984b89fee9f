// Atomic file replacement (temporary file, fsync, rename) for every output file rbfnet writes.
#include "data/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "data/errors.hpp"
#include "data/output_target.hpp"

namespace rbf::data {

namespace {

// Makes a completed rename durable; some file systems cannot sync a directory, which is fine.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// write(2) until every byte is out; false with errno set on failure.
bool write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Devices, FIFOs and standard streams are written where they are: replacing /dev/null or
// /dev/stdout by a regular file would break the system or lose the output.
void write_in_place(const OutputTarget& target, const void* data, std::size_t size) {
  const bool own = target.stream_fd < 0;
  const int fd = own ? ::open(target.resolved.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC) : target.stream_fd;
  if (fd < 0) throw RuntimeError("cannot write '" + target.path + "' (open): " + std::strerror(errno));
  const bool ok = write_all(fd, data, size);
  const int err = errno;
  if (own) ::close(fd);
  if (!ok) throw RuntimeError("cannot write '" + target.path + "' (write): " + std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::string& path, const void* data, std::size_t size) {
  const OutputTarget target = resolve_output(path, "output file");
  if (target.in_place) return write_in_place(target, data, size);
  remove_stale_temporaries(target);

  // A file being replaced keeps its permission bits (a 0600 model stays private).
  const mode_t mode = 0666;
  struct stat old {};
  const bool keep_mode = target.exists && ::stat(target.resolved.c_str(), &old) == 0;
  const std::string tmp = temporary_path(target);
  auto fail = [&](const char* step, int err) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write '" + path + "' (" + step + "): " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) fail("open", errno);
  bool ok = write_all(fd, data, size);
  const char* step = "write";
  if (ok && keep_mode && ::fchmod(fd, old.st_mode & 07777) != 0) ok = false, step = "chmod";
  if (ok && ::fsync(fd) != 0) ok = false, step = "fsync";
  const int err = errno;
  if (::close(fd) != 0 && ok) fail("close", errno);
  if (!ok) fail(step, err);
  if (std::rename(tmp.c_str(), target.resolved.c_str()) != 0) fail("rename", errno);
  sync_directory(directory_of(target.resolved));
}

}  // namespace rbf::data
