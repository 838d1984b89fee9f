// Output path resolution: symlinks, devices, standard streams, writability and stale temporaries.
#include "data/output_target.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>

#include "data/errors.hpp"

namespace rbf::data {

namespace {

const char kTempMarker[] = ".tmp-";

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Descriptor named by a standard-stream path, or -1. Reopening /dev/stdout would truncate a
// file the shell opened for appending, and renaming over it would replace the device link.
int stream_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0 || path.size() == n || path.size() > n + 6) continue;
    if (path.find_first_not_of("0123456789", n) != std::string::npos) continue;
    return std::stoi(path.substr(n));
  }
  return -1;
}

// The last link of a symlink chain on the final component (folders in the path need no
// resolving: the rename happens inside whichever folder they lead to).
std::string follow_links(const std::string& path, const std::string& what) {
  std::string current = path;
  for (int hop = 0; hop < 40; ++hop) {
    if (stream_descriptor(current) >= 0) return current;  // /proc/self/fd/1 -> "pipe:[...]"
    struct stat link {};
    if (::lstat(current.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return current;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), buf, sizeof buf - 1);
    if (n < 0) throw InputError("cannot follow the symbolic link " + what + " '" + current + "': " + std::strerror(errno));
    const std::string target(buf, static_cast<std::size_t>(n));
    current = target[0] == '/' ? target : directory_of(current) + "/" + target;
  }
  throw InputError(what + " '" + path + "' is a loop of symbolic links");
}

long longest_name(const std::string& dir) {
  errno = 0;
  const long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return limit > 0 ? limit : NAME_MAX;
}

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

OutputTarget resolve_output(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + " is an empty file name");
  OutputTarget target;
  target.path = path;
  target.resolved = follow_links(path, what);
  target.stream_fd = stream_descriptor(target.resolved);
  if (target.stream_fd >= 0) {
    // Only a descriptor this process was started with, open for writing: checked before any
    // work, while rbfnet has opened nothing of its own. /dev/fd/3 with nothing on 3 would
    // otherwise fail after training, or land in whatever rbfnet itself opened as 3 (its
    // iteration log) and write the model into it.
    const int flags = ::fcntl(target.stream_fd, F_GETFL);
    if (flags < 0)
      throw InputError(what + " '" + path + "' names descriptor " + std::to_string(target.stream_fd) +
                       ", which is not open: give a file name, or open the descriptor for rbfnet (" +
                       std::to_string(target.stream_fd) + ">FILE in the shell)");
    if ((flags & O_ACCMODE) == O_RDONLY)
      throw InputError(what + " '" + path + "' names descriptor " + std::to_string(target.stream_fd) +
                       ", which is open for reading only");
    target.in_place = true;
    target.exists = true;
    return target;
  }
  const std::string named = what + " '" + path + "'";
  struct stat info {};
  if (::stat(target.resolved.c_str(), &info) == 0) {
    target.exists = true;
    if (S_ISDIR(info.st_mode)) throw InputError("cannot write " + named + ": it is a directory");
    if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
      target.in_place = true;
      return target;
    }
    if (!S_ISREG(info.st_mode))
      throw InputError("cannot write " + named + ": it is a block device or socket, not a file");
  }
  const std::string dir = directory_of(target.resolved);
  struct stat dir_info {};
  if (::stat(dir.c_str(), &dir_info) != 0 || !S_ISDIR(dir_info.st_mode))
    throw InputError("cannot write " + named + ": directory '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError("cannot write " + named + ": directory '" + dir + "' is not writable (" +
                     std::strerror(errno) + ")");
  const std::string temp = base_name(temporary_path(target));
  if (static_cast<long>(temp.size()) > longest_name(dir))
    throw InputError("cannot write " + named + ": the file name is too long once the temporary suffix '" +
                     temp.substr(temp.rfind(kTempMarker)) + "' is added (the file system allows " +
                     std::to_string(longest_name(dir)) + " characters)");
  return target;
}

std::string temporary_path(const OutputTarget& target) {
  return target.resolved + kTempMarker + std::to_string(::getpid());
}

void remove_stale_temporaries(const OutputTarget& target) {
  if (target.in_place) return;
  const std::string dir = directory_of(target.resolved);
  const std::string prefix = base_name(target.resolved) + kTempMarker;
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 10)
      continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid == ::getpid() || process_alive(pid)) continue;
    (void)::unlink((dir + "/" + name).c_str());
  }
  ::closedir(listing);
}

}  // namespace rbf::data
