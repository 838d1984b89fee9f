// What the model file and SHA-256 tests share: a scratch directory, byte edits, example networks.
#pragma once

#include <dirent.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/model_file.hpp"
#include "model/network.hpp"
#include "model/sha256.hpp"
#include "tests/text_checks.hpp"

namespace rbf::test::model_files {

using rbf::InputError;
using rbf::model::Network;
using Bytes = std::vector<std::uint8_t>;

// A scratch directory removed with its files at the end of a test.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/rbfnet-model-test-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() {
    for (const auto& name : entries()) std::remove((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path_.c_str())) {
      while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      ::closedir(dir);
    }
    return names;
  }

 private:
  std::string path_;
};

inline Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

inline std::string sha_hex(const std::string& text) {
  rbf::model::Sha256 h;
  h.update(text);
  return h.hex_digest();
}

inline std::uint64_t get_u64(const Bytes& b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t(b[at + i]) << (8 * i);
  return v;
}
inline void set_u32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}
inline void set_u64(Bytes& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}
inline void set_f64(Bytes& b, std::size_t at, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  set_u64(b, at, bits);
}

// Rewrites the header's file size and the trailing digest after a deliberate edit, so that
// the structural checks, not the checksum, must catch the edit.
inline void reseal(Bytes& b) {
  set_u64(b, 16, b.size());
  rbf::model::Sha256 h;
  h.update(b.data(), b.size() - 32);
  const auto digest = h.digest();
  std::copy(digest.begin(), digest.end(), b.end() - 32);
}

// Offset of the payload of the section tagged `tag` (its length field is 8 bytes before).
inline std::size_t section_payload(const Bytes& b, const char* tag) {
  std::size_t pos = 24;
  while (pos + 16 <= b.size() - 32) {
    const std::uint64_t length = get_u64(b, pos + 8);
    if (std::memcmp(&b[pos], tag, 4) == 0) return pos + 16;
    pos += 16 + std::size_t(length);
  }
  FAIL("section not found: " << tag);
  return 0;
}

// Inserts a section just before the trailer.
inline void append_section(Bytes& b, const char* tag, std::uint32_t flags, const Bytes& payload) {
  Bytes section(tag, tag + 4);
  section.resize(16);
  set_u32(section, 4, flags);
  set_u64(section, 8, payload.size());
  section.insert(section.end(), payload.begin(), payload.end());
  b.insert(b.end() - 32, section.begin(), section.end());
  reseal(b);
}

inline std::string parse_error(const Bytes& b) {
  try {
    rbf::model::parse_network(b.data(), b.size(), "model.rbfn");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

inline Network make_regression() {
  Network n;
  n.task = rbf::data::Task::regression;
  n.inputs = 3;
  n.outputs = 2;
  n.feature_names = {"x0",
                     "temperature (\xc2\xb0"
                     "C)",
                     ""};
  n.target_names = {"y", "z"};
  n.x_scaler.mean = {0.1, -0.0, 1e300};
  n.x_scaler.scale = {1.0, 4.9406564584124654e-324, 3.0};
  n.x_scaler.constant = {false, true, false};
  n.y_scaler.mean = {-2.5, 7.0};
  n.y_scaler.scale = {0.3, 1.0 / 3.0};
  n.y_scaler.constant = {false, false};
  n.centers = {0.1, 0.2, 0.3, -1.0, -0.0, 2.2250738585072014e-308, 1.7976931348623157e308, 5, 6, 7, 8, 9};
  n.widths = {0.5, 1.0, 2.0, 3.141592653589793};
  n.weights = {1, -1, 0.5, -0.5, 1e-300, -1e300, 0.0, -0.0};
  n.bias = {0.25, -0.125};
  n.provenance.rbfnet_version = "0.1.0";
  n.provenance.data_file = "data/train.csv";
  n.provenance.data_sha256 = sha_hex("train");
  n.provenance.created_utc = "2024-05-01T12:00:00Z";
  n.provenance.config_yaml = "trainer:\n  lambda: 0.001\nstopping:\n  max_nodes: 4\n";
  n.provenance.backend = "cpu";
  return n;
}

inline Network make_classification() {
  Network n;
  n.task = rbf::data::Task::classification;
  n.inputs = 2;
  n.outputs = 3;
  n.feature_names = {"petal length", "petal width"};
  n.target_names = {"species"};
  n.class_names = {"setosa", "versicolor", "virginica"};
  n.x_scaler.mean = {3.75, 1.2};
  n.x_scaler.scale = {1.76, 0.76};
  n.x_scaler.constant = {false, false};
  n.y_scaler = rbf::data::Standardizer();
  n.y_scaler.mean = {0, 0, 0};
  n.y_scaler.scale = {1, 1, 1};
  n.y_scaler.constant = {false, false, false};
  n.centers = {-1.3, -1.2, 0.3, 0.1};
  n.widths = {0.8, 1.6};
  n.weights = {1, 0, 0, 0, 0.6, 0.4};
  n.bias = {0.1, 0.2, 0.3};
  n.provenance.rbfnet_version = "0.1.0";
  n.provenance.data_file = "iris.csv";
  n.provenance.created_utc = "2024-05-01T12:00:00Z";
  n.provenance.backend = "cpu->gpu at 2 nodes";
  return n;
}

// Small, so that loops over every offset and every bit stay fast.
inline Network make_tiny() {
  Network n;
  n.inputs = 1;
  n.outputs = 1;
  n.feature_names = {"x"};
  n.target_names = {"y"};
  n.x_scaler.mean = {0.5};
  n.x_scaler.scale = {2.0};
  n.x_scaler.constant = {false};
  n.y_scaler = n.x_scaler;
  n.centers = {0.25};
  n.widths = {1.0};
  n.weights = {-3.0};
  n.bias = {1.5};
  n.provenance.rbfnet_version = "0.1.0";
  return n;
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline void check_identical(const Network& a, const Network& b) {
  CHECK(a.task == b.task);
  CHECK(a.inputs == b.inputs);
  CHECK(a.outputs == b.outputs);
  CHECK(a.feature_names == b.feature_names);
  CHECK(a.target_names == b.target_names);
  CHECK(a.class_names == b.class_names);
  CHECK(same_bits(a.x_scaler.mean, b.x_scaler.mean));
  CHECK(same_bits(a.x_scaler.scale, b.x_scaler.scale));
  CHECK(a.x_scaler.constant == b.x_scaler.constant);
  CHECK(same_bits(a.y_scaler.mean, b.y_scaler.mean));
  CHECK(same_bits(a.y_scaler.scale, b.y_scaler.scale));
  CHECK(a.y_scaler.constant == b.y_scaler.constant);
  CHECK(same_bits(a.centers, b.centers));
  CHECK(same_bits(a.widths, b.widths));
  CHECK(same_bits(a.weights, b.weights));
  CHECK(same_bits(a.bias, b.bias));
  CHECK(same_bits(a.linear, b.linear));
  CHECK(a.provenance.rbfnet_version == b.provenance.rbfnet_version);
  CHECK(a.provenance.data_file == b.provenance.data_file);
  CHECK(a.provenance.data_sha256 == b.provenance.data_sha256);
  CHECK(a.provenance.created_utc == b.provenance.created_utc);
  CHECK(a.provenance.config_yaml == b.provenance.config_yaml);
  CHECK(a.provenance.backend == b.provenance.backend);
}

using rbf::test::contains;

}  // namespace rbf::test::model_files
