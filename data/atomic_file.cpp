// Atomic file replacement (temporary file, fsync, rename) for models and predictions.
#include "data/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "data/errors.hpp"

namespace rbf::data {

namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Makes a completed rename durable; some file systems cannot sync a directory, which is fine.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, const void* data, std::size_t size) {
  const std::string dir = directory_of(path);
  if (!is_directory(dir)) throw InputError("cannot write '" + path + "': directory '" + dir + "' does not exist");
  if (is_directory(path)) throw InputError("cannot write '" + path + "': it is a directory");

  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  auto fail = [&](const char* step, int err) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write '" + path + "' (" + step + "): " + std::strerror(err));
  };
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(tmp.c_str(), "wb"), &std::fclose);
    if (!file) fail("open", errno);
    if (size > 0 && std::fwrite(data, 1, size, file.get()) != size) fail("write", errno);
    if (std::fflush(file.get()) != 0) fail("flush", errno);
    if (::fsync(::fileno(file.get())) != 0) fail("fsync", errno);
    std::FILE* raw = file.release();
    if (std::fclose(raw) != 0) fail("close", errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename", errno);
  sync_directory(dir);
}

}  // namespace rbf::data
