// Whole-file reads with a size cap, so a device or endless pipe named as input fails cleanly.
#include "data/input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "data/errors.hpp"

namespace rbf::data {

namespace {

std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t(1) << 30) && bytes % (std::size_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::size_t(1) << 20) && bytes % (std::size_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

InputBytes read_input_file(const std::string& path, const std::string& what, std::size_t limit,
                           bool limit_regular_files) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  // fstat on the open file: the same file that is read, even if the name changes meanwhile.
  struct stat info {};
  if (::fstat(::fileno(file), &info) != 0)
    throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputError("cannot read " + what + " '" + path + "': it is a directory");
  const bool regular = S_ISREG(info.st_mode);
  const bool capped = !regular || limit_regular_files;
  if (regular && capped && static_cast<std::size_t>(info.st_size) > limit)
    throw InputError(what + " '" + path + "' is larger than the " + size_text(limit) + " allowed");

  InputBytes buffer;
  // One read for a regular file. Its size is only a hint (the file may grow), so read on until
  // fread reports the end, growing the buffer when it fills up, never past the cap.
  std::size_t capacity = regular ? static_cast<std::size_t>(info.st_size) + 1 : std::size_t(1) << 16;
  if (capped && capacity > limit + 1) capacity = limit + 1;
  buffer.bytes.reset(new char[capacity]);
  for (;;) {
    buffer.size += std::fread(buffer.bytes.get() + buffer.size, 1, capacity - buffer.size, file);
    if (capped && buffer.size > limit) {
      throw InputError(what + " '" + path + "' is " + (regular ? "larger" : "a pipe or device that gave more") +
                       " than the " + size_text(limit) + " allowed" +
                       (regular ? std::string() : "; save its contents to a file and name that file"));
    }
    if (buffer.size < capacity) break;
    std::size_t larger_capacity = capacity * 2;
    if (capped && larger_capacity > limit + 1) larger_capacity = limit + 1;
    std::unique_ptr<char[]> larger(new char[larger_capacity]);
    std::memcpy(larger.get(), buffer.bytes.get(), buffer.size);
    buffer.bytes = std::move(larger);
    capacity = larger_capacity;
  }
  if (std::ferror(file) != 0) throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  return buffer;
}

}  // namespace rbf::data
