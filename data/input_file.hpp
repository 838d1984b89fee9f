// Reading an input file whole, once: regular files in one read, pipes and devices up to a cap.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace rbf::data {

// Pipes and devices have no size to check in advance; past this many bytes (1 GiB) they are
// refused instead of filling memory (--data /dev/zero).
constexpr std::size_t kStreamInputLimit = std::size_t(1) << 30;

// The whole file in one buffer. Not a std::string: its resize would first zero-fill a buffer
// that the read overwrites at once.
struct InputBytes {
  std::unique_ptr<char[]> bytes;
  std::size_t size = 0;

  std::string_view view() const { return std::string_view(bytes.get(), size); }
};

// Reads `path` once (a FIFO can be read only once) and returns every byte. `what` names the
// file in messages ("data file"). A file that is not regular, or any file when `limit` is
// given, is refused past `limit` bytes with rbf::InputError naming the file and the limit;
// a directory or an unreadable file is an rbf::InputError too.
InputBytes read_input_file(const std::string& path, const std::string& what,
                           std::size_t limit = kStreamInputLimit, bool limit_regular_files = false);

}  // namespace rbf::data
