// Model files on disk: save_network writes atomically, load_network reads and checks a file.
// The bytes are made by model_file_writer.cpp and read by model_file_reader.cpp.
#include "model/model_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "data/atomic_file.hpp"
#include "data/errors.hpp"
#include "contracts/host_memory.hpp"
#include "model/model_file_format.hpp"

namespace rbf::model {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

void save_network(const Network& network, const std::string& path) {
  const std::string problem = find_network_problem(network);
  if (!problem.empty()) {
    throw RuntimeError(path + ": refusing to save an inconsistent model (" + problem + ")");
  }
  const std::vector<std::uint8_t> bytes = detail::serialize_unchecked(network);
  data::write_file_atomically(path, bytes.data(), bytes.size());
}

Network load_network(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw InputError(path + ": cannot open the model file (" + errno_text(errno) + ")");
  }
  struct stat st;
  if (::fstat(::fileno(file.get()), &st) != 0) {
    throw InputError(path + ": cannot read the model file (" + errno_text(errno) + ")");
  }
  if (S_ISDIR(st.st_mode)) {
    throw InputError(path + ": is a directory, not a model file");
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(path + ": is not a regular file, not a model file");
  }
  const std::uint64_t file_size = std::uint64_t(st.st_size);

  // The header is checked before the rest is read, so a large foreign file (a CSV passed
  // as --model) is rejected without reading it into memory.
  std::uint8_t head[detail::kHeaderBytes] = {};
  const std::size_t head_size = std::fread(head, 1, sizeof head, file.get());
  detail::check_envelope(head, head_size, file_size, path);
  if (file_size > std::numeric_limits<std::size_t>::max()) {
    throw InputError(path + ": the model file is too large for this machine");
  }
  // A header may claim any size the file has, and a sparse file has it at no cost: without
  // this, the read below would take the memory or fail with "out of memory" only after a while.
  const std::string shortfall = host_memory_shortfall(static_cast<double>(file_size));
  if (!shortfall.empty()) throw InputError(path + ": reading the model file " + shortfall);

  std::vector<std::uint8_t> bytes(std::size_t(file_size), 0);
  std::memcpy(bytes.data(), head, head_size);
  const std::size_t rest = bytes.size() - head_size;
  if (std::fread(bytes.data() + head_size, 1, rest, file.get()) != rest) {
    throw InputError(path + ": truncated model file (it shrank while being read)");
  }
  return parse_network(bytes.data(), bytes.size(), path);
}

}  // namespace rbf::model
