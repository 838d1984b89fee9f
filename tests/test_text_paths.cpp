// Tests of the small data/ helpers: trimming text and creating output folders.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "data/errors.hpp"
#include "data/paths.hpp"
#include "data/text.hpp"

using rbf::InputError;
using rbf::data::make_directories;
using rbf::data::trim;

namespace {

bool is_folder(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The message of the InputError that make_directories throws, or "" when it succeeds.
std::string make_directories_error(const std::string& path) {
  try {
    make_directories(path, "output folder");
  } catch (const InputError& e) {
    return e.what();
  }
  return std::string();
}

}  // namespace

TEST_CASE("trim: removes spaces, tabs and line ends at both ends only") {
  CHECK(trim("  a b\t") == "a b");
  CHECK(trim("\r\n\tkey: value \r\n") == "key: value");
  CHECK(trim("x") == "x");
  CHECK(trim(" \t\r\n ") == "");
  CHECK(trim("") == "");
  CHECK(trim("\va\f") == "\va\f");  // only the four characters above count
}

TEST_CASE("make_directories: creates nested folders, accepts existing ones, names the path it cannot make") {
  char dir_template[] = "/tmp/rbfnet-paths-test-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string root = dir_template;

  // Nested folders in one call, with or without a trailing slash; existing ones are fine.
  CHECK(make_directories_error(root + "/a/b/c") == "");
  CHECK(is_folder(root + "/a/b/c"));
  CHECK(make_directories_error(root + "/a/b/c") == "");
  CHECK(make_directories_error(root + "/a/b/") == "");
  CHECK(make_directories_error(root) == "");

  // A regular file on the way, or at the end, is a clear error naming the path.
  const std::string file = root + "/file";
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
  CHECK(make_directories_error(file + "/sub/dir") ==
        "cannot create the output folder '" + file + "/sub': Not a directory");
  CHECK(make_directories_error(file) ==
        "cannot create the output folder '" + file + "': it exists and is not a folder");

  std::remove(file.c_str());
  ::rmdir((root + "/a/b/c").c_str());
  ::rmdir((root + "/a/b").c_str());
  ::rmdir((root + "/a").c_str());
  ::rmdir(root.c_str());
}

TEST_CASE("text: numbers are written with the shortest text that reads back exactly") {
  CHECK(rbf::data::round_trip_text(1e9 + 123) == "1000000123");
  CHECK(rbf::data::round_trip_text(0.1) == "0.1");
  CHECK(rbf::data::round_trip_text(-2.5e-300) == "-2.5e-300");
  for (const double v : {1.0 / 3.0, 2.0 / 3.0 * 1e17, 123456789.123456789, 5e-324}) {
    CHECK(std::strtod(rbf::data::round_trip_text(v).c_str(), nullptr) == v);
  }
}
