// Reading and writing trained networks as portable, versioned, checksummed model files.
// docs/MODEL_FORMAT.md describes the byte layout and the versioning policy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace rbf::model {

// The format this build writes, and the newest it reads.
constexpr std::uint32_t kModelFormatVersion = 1;
constexpr std::uint32_t kModelFormatMinor = 0;

// Sanity limits a file must respect; larger claims are rejected before any allocation.
constexpr std::uint64_t kMaxModelInputs = std::uint64_t(1) << 24;
constexpr std::uint64_t kMaxModelOutputs = std::uint64_t(1) << 24;
constexpr std::uint64_t kMaxModelNodes = std::uint64_t(1) << 32;
constexpr std::uint64_t kMaxModelStringBytes = std::uint64_t(1) << 24;

// Writes `network` to `path` atomically (data::write_file_atomically): the bytes go to
// "<path>.tmp-<pid>" in the same directory, are flushed to disk, and the file is renamed
// over `path`, so `path` holds either its old content or the complete new model. An empty
// provenance.rbfnet_version is recorded as this build's version.
// Throws rbf::RuntimeError, touching no file, when the network is inconsistent (see
// find_network_problem); rbf::InputError when the directory does not exist or `path` is a
// directory; rbf::RuntimeError when the file cannot be written.
void save_network(const Network& network, const std::string& path);

// Reads a model file. A missing, empty, truncated, damaged, foreign or newer-format file
// throws rbf::InputError with one sentence naming `path`; nothing is allocated on the
// strength of a size the file claims before that size has been checked against the file.
Network load_network(const std::string& path);

// The in-memory halves of save_network and load_network (`name` is used in messages).
std::vector<std::uint8_t> serialize_network(const Network& network);
Network parse_network(const std::uint8_t* data, std::size_t size, const std::string& name);

// Empty when `network` is internally consistent (sizes agree with inputs, outputs and
// nodes; names agree with the task; every number finite; widths and scales positive),
// otherwise a short description of the first problem found.
std::string find_network_problem(const Network& network);

}  // namespace rbf::model
