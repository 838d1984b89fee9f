// Same-file detection between a command's inputs and outputs (device and inode, or the path
// an output will be created at).
#include "data/file_plan.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "data/errors.hpp"

namespace rbf::data {

namespace {

// realpath of the folder plus the name: where a file that does not exist yet would appear.
std::string absolute_location(const std::string& path) {
  const std::string dir = directory_of(path);
  const auto slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char buf[PATH_MAX];
  if (::realpath(dir.c_str(), buf) == nullptr) return path;
  return std::string(buf) + "/" + name;
}

}  // namespace

void FilePlan::input(const std::string& path, const std::string& role, const std::string& replaced_by) {
  Entry entry;
  entry.path = path;
  entry.role = role;
  entry.replaced_by = replaced_by;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    entry.known_inode = true;
    entry.device = info.st_dev;
    entry.inode = info.st_ino;
    entry.shared = S_ISCHR(info.st_mode);
  }
  entry.where = absolute_location(path);
  add(entry);
}

OutputTarget FilePlan::output(const std::string& path, const std::string& role) {
  const OutputTarget target = resolve_output(path, role);
  Entry entry;
  entry.path = path;
  entry.role = role;
  entry.output = true;
  struct stat info {};
  if (target.stream_fd < 0 && ::stat(target.resolved.c_str(), &info) == 0) {
    entry.known_inode = true;
    entry.device = info.st_dev;
    entry.inode = info.st_ino;
    entry.shared = S_ISCHR(info.st_mode);
  }
  // A stream's descriptor may lead to a terminal shared by everything; a pipe or file behind
  // it is rbfnet's own output, never an input it reads by name.
  if (target.stream_fd >= 0) entry.shared = true;
  entry.where = absolute_location(target.resolved);
  add(entry);
  return target;
}

void FilePlan::add(Entry entry) {
  if (!entry.shared) {
    for (const Entry& other : entries_) {
      if (other.shared || (!entry.output && !other.output)) continue;
      const bool same = entry.known_inode && other.known_inode
                            ? entry.device == other.device && entry.inode == other.inode
                            : entry.where == other.where;
      if (!same) continue;
      const Entry& out = entry.output ? entry : other;
      const Entry& first = entry.output ? other : entry;
      if (!first.output && first.replaced_by == out.role) continue;
      throw InputError(out.role + " '" + out.path + "' is the same file as " + first.role + " '" + first.path +
                       "'; writing it would destroy " + (first.output ? "the other output" : "the input") +
                       ", so choose another file name");
    }
  }
  entries_.push_back(std::move(entry));
}

}  // namespace rbf::data
