// Model file serialization: explicit little-endian encoding, tagged sections, SHA-256 trailer.
// The layout is documented in docs/MODEL_FORMAT.md; keep the two in step.
#include <cstring>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/model_file.hpp"
#include "model/model_file_format.hpp"
#include "model/sha256.hpp"

#ifndef RBF_VERSION
#define RBF_VERSION "unknown"
#endif

namespace rbf::model {
namespace {

// ---------------------------------------------------------------------------------------
// Encoding: every integer and double is written byte by byte, least significant first, so
// the bytes never depend on the host's byte order, struct layout or size_t width.

class ByteWriter {
 public:
  void put_u8(std::uint8_t v) { bytes_.push_back(v); }
  void put_u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(std::uint8_t(v >> (8 * i)));
  }
  void put_u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(std::uint8_t(v >> (8 * i)));
  }
  void put_f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    put_u64(bits);
  }
  void put_raw(const void* data, std::size_t len) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + len);
  }
  void put_string(const std::string& s) {
    put_u32(std::uint32_t(s.size()));
    put_raw(s.data(), s.size());
  }
  void put_strings(const std::vector<std::string>& list) {
    put_u64(list.size());
    for (const auto& s : list) put_string(s);
  }
  void put_f64_array(const std::vector<double>& values) {
    put_u64(values.size());
    // Arrays hold nearly all of a model's bytes: size once, then fill.
    std::size_t at = bytes_.size();
    bytes_.resize(at + 8 * values.size());
    for (double v : values) {
      std::uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      for (std::size_t i = 0; i < 8; ++i) bytes_[at + i] = std::uint8_t(bits >> (8 * i));
      at += 8;
    }
  }

  // Sections are written header first; the payload length is patched in by end_section.
  void begin_section(const char* tag, std::uint32_t flags) {
    put_raw(tag, 4);
    put_u32(flags);
    section_length_at_ = bytes_.size();
    put_u64(0);
  }
  void end_section() {
    const std::uint64_t length = bytes_.size() - section_length_at_ - 8;
    patch_u64(section_length_at_, length);
  }
  void patch_u64(std::size_t at, std::uint64_t v) {
    for (std::size_t i = 0; i < 8; ++i) bytes_[at + i] = std::uint8_t(v >> (8 * i));
  }

  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t section_length_at_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Format version 1.

namespace {

// ENCD and PART, each only where the model has it (and then required).
void put_encoding_and_parts(ByteWriter& w, const Network& net) {
  using namespace detail;  // the format's constants
  if (!net.encoding.empty()) {
    w.begin_section(kTagEncoding, kSectionRequired);
    w.put_u64(net.encoding.columns.size());
    for (const data::EncodedColumn& c : net.encoding.columns) {
      w.put_string(c.name);
      w.put_u32(static_cast<std::uint32_t>(c.kind));
      w.put_f64(c.fill);
      w.put_u8(c.indicator ? 1 : 0);
      w.put_strings(c.levels);
      w.put_u8(c.pooled ? 1 : 0);
    }
    w.end_section();
  }
  if (!net.parts.empty()) {
    w.begin_section(kTagParts, kSectionRequired);
    w.put_u64(net.parts.size());
    w.put_u64(net.part_blend);
    w.put_f64(net.part_width);
    w.put_f64_array(net.part_centres);
    for (const Network& part : net.parts) {
      const std::vector<std::uint8_t> bytes = serialize_unchecked(part);
      w.put_u64(bytes.size());
      w.put_raw(bytes.data(), bytes.size());
    }
    w.end_section();
  }
}

}  // namespace

std::vector<std::uint8_t> detail::serialize_unchecked(const Network& net) {
  ByteWriter w;
  w.bytes().reserve(1024 + 8 * (net.centers.size() + net.widths.size() + net.weights.size()));
  w.put_raw(kMagic, sizeof kMagic);
  w.put_u32(kModelFormatVersion);
  w.put_u32(!net.parts.empty()      ? kModelFormatMinorParts
            : !net.encoding.empty() ? kModelFormatMinorEncoding
            : net.proba_scale > 0   ? kModelFormatMinorProbability
            : net.linear.empty() ? kModelFormatMinor
                                 : kModelFormatMinorLinear);
  w.put_u64(0);  // file size, patched below

  w.begin_section(kTagMeta, kSectionRequired);
  w.put_u32(net.task == data::Task::classification ? kTaskClassification : kTaskRegression);
  w.put_u64(net.inputs);
  w.put_u64(net.outputs);
  w.put_u64(net.nodes());
  w.end_section();

  w.begin_section(kTagNames, kSectionRequired);
  w.put_strings(net.feature_names);
  w.put_strings(net.target_names);
  w.put_strings(net.class_names);
  w.end_section();

  const auto put_scaler = [&w](const char* tag, const data::Standardizer& s) {
    w.begin_section(tag, kSectionRequired);
    w.put_u64(s.mean.size());
    for (double v : s.mean) w.put_f64(v);
    for (double v : s.scale) w.put_f64(v);
    for (bool c : s.constant) w.put_u8(c ? 1 : 0);
    w.end_section();
  };
  put_scaler(kTagXScaler, net.x_scaler);
  put_scaler(kTagYScaler, net.y_scaler);

  w.begin_section(kTagNodes, kSectionRequired);
  w.put_f64_array(net.centers);
  w.put_f64_array(net.widths);
  w.put_f64_array(net.weights);
  w.put_f64_array(net.bias);
  w.end_section();

  if (!net.linear.empty()) {
    w.begin_section(kTagLinear, kSectionRequired);
    w.put_f64_array(net.linear);
    w.end_section();
  }
  put_encoding_and_parts(w, net);
  if (net.proba_scale > 0) {
    w.begin_section(kTagProbability, 0);
    w.put_f64(net.proba_scale);
    w.end_section();
  }

  const Provenance& p = net.provenance;
  w.begin_section(kTagProvenance, kSectionRequired);
  w.put_string(p.rbfnet_version.empty() ? std::string(RBF_VERSION) : p.rbfnet_version);
  w.put_string(p.data_file);
  w.put_string(p.data_sha256);
  w.put_string(p.created_utc);
  w.put_string(p.config_yaml);
  w.put_string(p.backend);
  w.end_section();

  if (!net.training_state.empty()) {
    w.begin_section(kTagTrainingState, 0);
    w.put_string(net.training_state);
    w.end_section();
  }

  auto& bytes = w.bytes();
  w.patch_u64(16, bytes.size() + kTrailerBytes);
  Sha256 hash;
  hash.update(bytes.data(), bytes.size());
  const Sha256::Digest digest = hash.digest();
  bytes.insert(bytes.end(), digest.begin(), digest.end());
  return std::move(bytes);
}

std::vector<std::uint8_t> serialize_network(const Network& network) {
  const std::string problem = find_network_problem(network);
  if (!problem.empty()) {
    throw RuntimeError("cannot serialize an inconsistent network: " + problem);
  }
  return detail::serialize_unchecked(network);
}

}  // namespace rbf::model
