// Writing output files atomically: a reader sees the old file or the whole new one.
#pragma once

#include <cstddef>
#include <string>

namespace rbf::data {

// Writes `size` bytes to "<path>.tmp-<pid>" beside `path`, flushes them to disk and renames
// the file over `path`. A symlink is followed and its target replaced; a file being replaced
// keeps its permission bits; a device, FIFO or standard stream (/dev/stdout) is written in
// place (data/output_target.hpp). On any failure the temporary file is removed and `path` is
// left as it was. Throws rbf::InputError when the directory is missing or `path` is a
// directory, rbf::RuntimeError when writing fails.
void write_file_atomically(const std::string& path, const void* data, std::size_t size);

}  // namespace rbf::data
