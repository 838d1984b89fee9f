// Model files: explicit little-endian encoding, tagged sections, SHA-256 trailer, atomic writes.
// The layout is documented in docs/MODEL_FORMAT.md; keep the two in step.
#include "model/model_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "data/atomic_file.hpp"
#include "data/errors.hpp"
#include "model/sha256.hpp"

#ifndef RBF_VERSION
#define RBF_VERSION "unknown"
#endif

namespace rbf::model {
namespace {

static_assert(std::numeric_limits<double>::is_iec559, "model files store IEEE 754 binary64 doubles bit for bit");

// "\x89RBFN\r\n\x1a": the high byte catches 7-bit transfers, CR LF catches newline
// conversion, 0x1a stops `type` on Windows (the PNG signature's reasoning).
constexpr std::uint8_t kMagic[8] = {0x89, 'R', 'B', 'F', 'N', '\r', '\n', 0x1a};
constexpr std::size_t kHeaderBytes = 24;  // magic, major, minor, file size
constexpr std::size_t kTrailerBytes = Sha256::kDigestBytes;
constexpr std::size_t kSectionHeaderBytes = 16;  // tag, flags, payload length
constexpr std::uint32_t kSectionRequired = 1;

constexpr char kTagMeta[] = "META";
constexpr char kTagNames[] = "NAME";
constexpr char kTagXScaler[] = "XSCL";
constexpr char kTagYScaler[] = "YSCL";
constexpr char kTagNodes[] = "NODE";
constexpr char kTagProvenance[] = "PROV";
constexpr char kTagTrainingState[] = "TRNS";  // optional: checkpoints only

constexpr std::uint32_t kTaskRegression = 0;
constexpr std::uint32_t kTaskClassification = 1;

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

std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(p[i]) << (8 * i);
  return v;
}

std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(p[i]) << (8 * i);
  return v;
}

// Reads one section's payload. Every count is checked against the bytes left in the
// payload before anything is allocated, so a hostile count fails as a clear error.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size, const std::string& name, const std::string& section)
      : data_(data), size_(size), name_(name), section_(section) {}

  std::size_t remaining() const { return size_ - pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_ + ": invalid model file (section " + section_ + ": " + what + ")");
  }

  void need(std::uint64_t bytes, const char* what) const {
    if (bytes > remaining()) {
      fail(std::string(what) + " needs " + std::to_string(bytes) + " bytes but only " + std::to_string(remaining()) +
           " remain");
    }
  }

  std::uint8_t u8(const char* what) {
    need(1, what);
    return data_[pos_++];
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    const std::uint32_t v = load_u32(data_ + pos_);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64(const char* what) {
    need(8, what);
    const std::uint64_t v = load_u64(data_ + pos_);
    pos_ += 8;
    return v;
  }
  double f64(const char* what) {
    const std::uint64_t bits = u64(what);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

  std::string string(const char* what) {
    const std::uint32_t length = u32(what);
    if (length > kMaxModelStringBytes) {
      fail(std::string(what) + " claims " + std::to_string(length) + " bytes, more than the " +
           std::to_string(kMaxModelStringBytes) + " allowed");
    }
    need(length, what);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), length);
    pos_ += length;
    return s;
  }

  std::vector<std::string> strings(const char* what, std::uint64_t limit) {
    const std::uint64_t count = u64(what);
    if (count > limit) {
      fail(std::string(what) + " claims " + std::to_string(count) + " entries, more than the " + std::to_string(limit) +
           " allowed");
    }
    need(count * 4, what);  // every string has at least its 4-byte length
    std::vector<std::string> list;
    list.reserve(std::size_t(count));
    for (std::uint64_t i = 0; i < count; ++i) list.push_back(string(what));
    return list;
  }

  std::vector<double> f64_array(const char* what) {
    const std::uint64_t count = u64(what);
    if (count > remaining() / 8) {
      fail(std::string(what) + " claims " + std::to_string(count) + " values but only " + std::to_string(remaining()) +
           " bytes remain");
    }
    std::vector<double> values(static_cast<std::size_t>(count));
    for (auto& v : values) v = f64(what);
    return values;
  }

  void finish() const {
    if (remaining() != 0) fail(std::to_string(remaining()) + " unexpected bytes at its end");
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  const std::string& name_;
  std::string section_;
};

// ---------------------------------------------------------------------------------------
// Consistency of a network, shared by the writer (refuse to save) and the reader (refuse
// to load).

std::string first_bad_value(const std::vector<double>& values, const char* what, bool must_be_positive) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return std::string(what) + "[" + std::to_string(i) + "] is not finite";
    }
    if (must_be_positive && !(values[i] > 0.0)) {
      return std::string(what) + "[" + std::to_string(i) + "] is not positive";
    }
  }
  return {};
}

std::string count_mismatch(const char* what, std::size_t have, std::size_t want, const char* expected) {
  return std::string(what) + " has " + std::to_string(have) + " entries, expected " + std::to_string(want) + " (" +
         expected + ")";
}

std::string scaler_problem(const data::Standardizer& s, const char* what) {
  const std::size_t cols = s.mean.size();
  if (s.scale.size() != cols || s.constant.size() != cols) {
    return std::string(what) + " has " + std::to_string(cols) + " means, " + std::to_string(s.scale.size()) +
           " scales and " + std::to_string(s.constant.size()) + " constant flags";
  }
  const std::string mean_name = std::string(what) + ".mean";
  const std::string scale_name = std::string(what) + ".scale";
  std::string problem = first_bad_value(s.mean, mean_name.c_str(), false);
  if (problem.empty()) problem = first_bad_value(s.scale, scale_name.c_str(), true);
  return problem;
}

std::string strings_problem(const std::vector<std::string>& list, const char* what) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].size() > kMaxModelStringBytes) {
      return std::string(what) + "[" + std::to_string(i) + "] is longer than " + std::to_string(kMaxModelStringBytes) +
             " bytes";
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// Format version 1.

std::vector<std::uint8_t> serialize_unchecked(const Network& net) {
  ByteWriter w;
  w.bytes().reserve(1024 + 8 * (net.centers.size() + net.widths.size() + net.weights.size()));
  w.put_raw(kMagic, sizeof kMagic);
  w.put_u32(kModelFormatVersion);
  w.put_u32(kModelFormatMinor);
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

data::Standardizer read_scaler(ByteReader& r) {
  const std::uint64_t cols = r.u64("column count");
  // 17 bytes per column: mean, scale, constant flag.
  if (cols > r.remaining() / 17) {
    r.fail("claims " + std::to_string(cols) + " columns but only " + std::to_string(r.remaining()) + " bytes remain");
  }
  data::Standardizer s;
  s.mean.resize(std::size_t(cols));
  s.scale.resize(std::size_t(cols));
  s.constant.resize(std::size_t(cols));
  for (auto& v : s.mean) v = r.f64("mean");
  for (auto& v : s.scale) v = r.f64("scale");
  for (std::size_t i = 0; i < s.constant.size(); ++i) {
    const std::uint8_t flag = r.u8("constant flag");
    if (flag > 1) r.fail("constant flag " + std::to_string(i) + " is neither 0 nor 1");
    s.constant[i] = flag == 1;
  }
  return s;
}

void check_envelope(const std::uint8_t* head, std::size_t head_size, std::uint64_t file_size, const std::string& name) {
  if (file_size == 0) throw InputError(name + ": not an rbfnet model file (the file is empty)");
  if (std::memcmp(head, kMagic, std::min(head_size, sizeof kMagic)) != 0) {
    throw InputError(name + ": not an rbfnet model file (bad magic)");
  }
  if (file_size < kHeaderBytes + kTrailerBytes) {
    throw InputError(name + ": truncated model file (only " + std::to_string(file_size) + " bytes)");
  }
  const std::uint64_t declared = load_u64(head + 16);
  if (declared != file_size) {
    throw InputError(name + ": truncated or damaged model file (it has " + std::to_string(file_size) +
                     " bytes, its header says " + std::to_string(declared) + ")");
  }
}

}  // namespace

std::string find_network_problem(const Network& net) {
  const bool classification = net.task == data::Task::classification;
  if (!classification && net.task != data::Task::regression) return "unknown task";
  if (net.inputs < 1 || net.inputs > kMaxModelInputs) {
    return "inputs is " + std::to_string(net.inputs) + ", outside 1.." + std::to_string(kMaxModelInputs);
  }
  if (net.outputs < 1 || net.outputs > kMaxModelOutputs) {
    return "outputs is " + std::to_string(net.outputs) + ", outside 1.." + std::to_string(kMaxModelOutputs);
  }
  const std::size_t d = net.inputs;
  const std::size_t k = net.outputs;
  const std::size_t nodes = net.nodes();
  if (nodes > kMaxModelNodes) {
    return "the network has " + std::to_string(nodes) + " nodes, more than " + std::to_string(kMaxModelNodes);
  }
  if (net.feature_names.size() != d) {
    return count_mismatch("feature_names", net.feature_names.size(), d, "inputs");
  }
  if (net.target_names.size() != (classification ? 1 : k)) {
    return count_mismatch("target_names", net.target_names.size(), classification ? 1 : k,
                          classification ? "one label column" : "outputs");
  }
  if (net.class_names.size() != (classification ? k : 0)) {
    return count_mismatch("class_names", net.class_names.size(), classification ? k : 0,
                          classification ? "outputs" : "none for regression");
  }
  if (net.x_scaler.mean.size() != d) {
    return count_mismatch("x_scaler", net.x_scaler.mean.size(), d, "inputs");
  }
  // A classifier's outputs are class scores, never rescaled: its y scaler may be empty.
  const std::size_t y_cols = net.y_scaler.mean.size();
  if (y_cols != k && !(classification && y_cols == 0)) {
    return count_mismatch("y_scaler", y_cols, k, "outputs");
  }
  if (net.centers.size() != nodes * d) {
    return count_mismatch("centers", net.centers.size(), nodes * d, "nodes x inputs");
  }
  if (net.weights.size() != nodes * k) {
    return count_mismatch("weights", net.weights.size(), nodes * k, "nodes x outputs");
  }
  if (net.bias.size() != k) return count_mismatch("bias", net.bias.size(), k, "outputs");

  std::string problem = scaler_problem(net.x_scaler, "x_scaler");
  if (problem.empty()) problem = scaler_problem(net.y_scaler, "y_scaler");
  if (problem.empty()) problem = first_bad_value(net.centers, "centers", false);
  if (problem.empty()) problem = first_bad_value(net.widths, "widths", true);
  if (problem.empty()) problem = first_bad_value(net.weights, "weights", false);
  if (problem.empty()) problem = first_bad_value(net.bias, "bias", false);
  if (problem.empty()) problem = strings_problem(net.feature_names, "feature_names");
  if (problem.empty()) problem = strings_problem(net.target_names, "target_names");
  if (problem.empty()) problem = strings_problem(net.class_names, "class_names");
  if (problem.empty()) {
    const Provenance& p = net.provenance;
    problem = strings_problem({p.rbfnet_version, p.data_file, p.data_sha256, p.created_utc, p.config_yaml, p.backend},
                              "provenance");
  }
  return problem;
}

std::vector<std::uint8_t> serialize_network(const Network& network) {
  const std::string problem = find_network_problem(network);
  if (!problem.empty()) {
    throw RuntimeError("cannot serialize an inconsistent network: " + problem);
  }
  return serialize_unchecked(network);
}

Network parse_network(const std::uint8_t* data, std::size_t size, const std::string& name) {
  check_envelope(data, size, size, name);

  // The envelope (header and trailing digest) is the same in every format version, so the
  // digest is checked before the version: a flipped bit never poses as a newer format.
  const std::size_t body_size = size - kTrailerBytes;
  Sha256 hash;
  hash.update(data, body_size);
  const Sha256::Digest digest = hash.digest();
  if (std::memcmp(digest.data(), data + body_size, kTrailerBytes) != 0) {
    throw InputError(name + ": truncated or damaged model file (checksum mismatch)");
  }

  const std::uint32_t major = load_u32(data + 8);
  if (major > kModelFormatVersion) {
    throw InputError(name + ": written by a newer rbfnet (format " + std::to_string(major) +
                     "); this build reads format " + std::to_string(kModelFormatVersion));
  }
  if (major < 1) {
    throw InputError(name + ": invalid model file (format version " + std::to_string(major) + " does not exist)");
  }

  Network net;
  std::uint64_t meta_nodes = 0;
  unsigned seen = 0;
  const char* const known[] = {kTagMeta, kTagNames, kTagXScaler, kTagYScaler, kTagNodes, kTagProvenance};
  constexpr unsigned kAllSeen = (1u << 6) - 1;

  std::size_t pos = kHeaderBytes;
  while (pos < body_size) {
    if (body_size - pos < kSectionHeaderBytes) {
      throw InputError(name + ": invalid model file (" + std::to_string(body_size - pos) +
                       " stray bytes after the last section)");
    }
    std::string tag(reinterpret_cast<const char*>(data + pos), 4);
    for (char& c : tag) {
      if (c < 0x20 || c > 0x7e) c = '?';  // the tag appears in messages
    }
    const std::uint32_t flags = load_u32(data + pos + 4);
    const std::uint64_t length = load_u64(data + pos + 8);
    pos += kSectionHeaderBytes;
    if (length > body_size - pos) {
      throw InputError(name + ": invalid model file (section " + tag + " claims " + std::to_string(length) +
                       " bytes but only " + std::to_string(body_size - pos) + " remain)");
    }
    ByteReader r(data + pos, std::size_t(length), name, tag);
    pos += std::size_t(length);

    if (tag == kTagTrainingState) {
      if (!net.training_state.empty()) r.fail("appears twice");
      net.training_state = r.string("training state");
      r.finish();
      continue;
    }
    unsigned index = 0;
    while (index < 6 && tag != known[index]) ++index;
    if (index == 6) {
      // Sections added by later minor versions are optional and skipped; a required one
      // means this build cannot predict with the file.
      if (flags & kSectionRequired) {
        throw InputError(name + ": written by a newer rbfnet (it needs section '" + tag +
                         "', unknown to this build, which reads format " + std::to_string(kModelFormatVersion) + ")");
      }
      continue;
    }
    if (seen & (1u << index)) r.fail("appears twice");
    seen |= 1u << index;

    if (tag == kTagMeta) {
      const std::uint32_t task = r.u32("task");
      if (task == kTaskRegression) {
        net.task = data::Task::regression;
      } else if (task == kTaskClassification) {
        net.task = data::Task::classification;
      } else {
        r.fail("unknown task code " + std::to_string(task));
      }
      const std::uint64_t inputs = r.u64("inputs");
      const std::uint64_t outputs = r.u64("outputs");
      meta_nodes = r.u64("nodes");
      if (inputs < 1 || inputs > kMaxModelInputs) {
        r.fail("claims " + std::to_string(inputs) + " inputs, outside 1.." + std::to_string(kMaxModelInputs));
      }
      if (outputs < 1 || outputs > kMaxModelOutputs) {
        r.fail("claims " + std::to_string(outputs) + " outputs, outside 1.." + std::to_string(kMaxModelOutputs));
      }
      if (meta_nodes > kMaxModelNodes) {
        r.fail("claims " + std::to_string(meta_nodes) + " nodes, more than the " + std::to_string(kMaxModelNodes) +
               " allowed");
      }
      net.inputs = std::size_t(inputs);
      net.outputs = std::size_t(outputs);
    } else if (tag == kTagNames) {
      net.feature_names = r.strings("feature names", kMaxModelInputs);
      net.target_names = r.strings("target names", kMaxModelOutputs);
      net.class_names = r.strings("class names", kMaxModelOutputs);
    } else if (tag == kTagXScaler) {
      net.x_scaler = read_scaler(r);
    } else if (tag == kTagYScaler) {
      net.y_scaler = read_scaler(r);
    } else if (tag == kTagNodes) {
      net.centers = r.f64_array("centers");
      net.widths = r.f64_array("widths");
      net.weights = r.f64_array("weights");
      net.bias = r.f64_array("bias");
    } else {
      Provenance& p = net.provenance;
      p.rbfnet_version = r.string("rbfnet version");
      p.data_file = r.string("data file");
      p.data_sha256 = r.string("data sha256");
      p.created_utc = r.string("creation time");
      p.config_yaml = r.string("configuration");
      p.backend = r.string("backend");
    }
    r.finish();
  }

  if (seen != kAllSeen) {
    for (unsigned i = 0; i < 6; ++i) {
      if (!(seen & (1u << i))) {
        throw InputError(name + ": invalid model file (section " + known[i] + " is missing)");
      }
    }
  }
  if (meta_nodes != net.nodes()) {
    throw InputError(name + ": invalid model file (section META says " + std::to_string(meta_nodes) +
                     " nodes, section NODE holds " + std::to_string(net.nodes()) + ")");
  }
  const std::string problem = find_network_problem(net);
  if (!problem.empty()) throw InputError(name + ": invalid model file (" + problem + ")");
  return net;
}

// ---------------------------------------------------------------------------------------
// Files.

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
  const std::vector<std::uint8_t> bytes = serialize_unchecked(network);
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
  std::uint8_t head[kHeaderBytes] = {};
  const std::size_t head_size = std::fread(head, 1, sizeof head, file.get());
  check_envelope(head, head_size, file_size, path);
  if (file_size > std::numeric_limits<std::size_t>::max()) {
    throw InputError(path + ": the model file is too large for this machine");
  }

  std::vector<std::uint8_t> bytes(std::size_t(file_size), 0);
  std::memcpy(bytes.data(), head, head_size);
  const std::size_t rest = bytes.size() - head_size;
  if (std::fread(bytes.data() + head_size, 1, rest, file.get()) != rest) {
    throw InputError(path + ": truncated model file (it shrank while being read)");
  }
  return parse_network(bytes.data(), bytes.size(), path);
}

}  // namespace rbf::model
