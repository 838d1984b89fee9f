// Creating output folders with POSIX calls: std::filesystem is not an option on gcc 7 (Jetson).
#include "data/paths.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "data/errors.hpp"

namespace rbf::data {

void make_directories(const std::string& path, const std::string& what) {
  auto fail = [&](const std::string& folder, const std::string& why) {
    throw InputError("cannot create the " + what + " '" + folder + "': " + why);
  };
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) fail(partial, std::strerror(errno));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) fail(path, "it exists and is not a folder");
}

}  // namespace rbf::data
