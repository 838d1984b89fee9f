// Early existence and readability checks of input files named on the command line.
#include "app/file_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "data/errors.hpp"

namespace rbf::app {

void require_readable_file(const std::string& path, const std::string& what) {
  if (path == "-") return;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) throw InputError(what + " '" + path + "' does not exist");
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) throw InputError(what + " '" + path + "' is a directory, not a file");
  // access(), not a trial open: opening a FIFO would take the one read its writer offers.
  if (::access(path.c_str(), R_OK) != 0)
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
}

std::string input_path(const std::string& given) { return given == "-" ? "/dev/stdin" : given; }

std::string input_name(const std::string& given) { return given == "-" ? "standard input" : given; }

}  // namespace rbf::app
