// Model file parsing (parse_network): every claimed size checked, every failure a clear error.
// The envelope, the checksum, the version and every section are checked in turn, each error an
// InputError naming the file. docs/MODEL_FORMAT.md documents the layout; keep the two in step.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/model_file.hpp"
#include "model/model_file_format.hpp"
#include "model/sha256.hpp"

namespace rbf::model {
namespace {

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

  // `length` bytes in place (a part's whole model file).
  const std::uint8_t* bytes(std::uint64_t length, const char* what) {
    need(length, what);
    const std::uint8_t* at = data_ + pos_;
    pos_ += static_cast<std::size_t>(length);
    return at;
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

}  // namespace

void detail::check_envelope(const std::uint8_t* head, std::size_t head_size, std::uint64_t file_size,
                            const std::string& name) {
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

namespace {

// The envelope (header and trailing digest) is the same in every format version, so the
// digest is checked before the version: a flipped bit never poses as a newer format.
void check_digest_and_version(const std::uint8_t* data, std::size_t size, const std::string& name) {
  using namespace detail;  // the format's constants
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
}

// META: the task and the sizes, each within the format's limits. Returns the node count it
// declares, checked against section NODE once every section is read.
std::uint64_t read_meta(ByteReader& r, Network& net) {
  using namespace detail;
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
  const std::uint64_t nodes = r.u64("nodes");
  if (inputs < 1 || inputs > kMaxModelInputs) {
    r.fail("claims " + std::to_string(inputs) + " inputs, outside 1.." + std::to_string(kMaxModelInputs));
  }
  if (outputs < 1 || outputs > kMaxModelOutputs) {
    r.fail("claims " + std::to_string(outputs) + " outputs, outside 1.." + std::to_string(kMaxModelOutputs));
  }
  if (nodes > kMaxModelNodes) {
    r.fail("claims " + std::to_string(nodes) + " nodes, more than the " + std::to_string(kMaxModelNodes) +
           " allowed");
  }
  net.inputs = std::size_t(inputs);
  net.outputs = std::size_t(outputs);
  return nodes;
}

// ENCD: how raw columns become the features.
data::FeatureEncoding read_encoding(ByteReader& r) {
  data::FeatureEncoding encoding;
  const std::uint64_t count = r.u64("encoded column count");
  if (count < 1 || count > kMaxModelInputs) r.fail("claims " + std::to_string(count) + " encoded columns");
  for (std::uint64_t i = 0; i < count; ++i) {
    data::EncodedColumn c;
    c.name = r.string("encoded column name");
    const std::uint32_t kind = r.u32("encoded column kind");
    if (kind > 1) r.fail("holds an encoded column of unknown kind " + std::to_string(kind));
    c.kind = static_cast<data::ColumnKind>(kind);
    c.fill = r.f64("fill value");
    c.indicator = r.u8("missing indicator") != 0;
    c.levels = r.strings("levels", kMaxModelInputs);
    c.pooled = r.u8("pooled levels") != 0;
    encoding.columns.push_back(std::move(c));
  }
  return encoding;
}

// PART: the partition, then each part, read as the model file it is (none may have parts).
void read_parts(ByteReader& r, Network& net, const std::string& name) {
  // Parts inside a part would recurse as deep as a crafted file nests them: refused first.
  static thread_local bool in_part = false;
  if (in_part) r.fail("appears in a part: parts cannot have parts of their own");
  struct Inside {
    Inside() { in_part = true; }
    ~Inside() { in_part = false; }
  } inside;
  const std::uint64_t count = r.u64("part count");
  if (count < 1 || count > detail::kMaxModelParts) r.fail("claims " + std::to_string(count) + " parts");
  net.part_blend = static_cast<std::size_t>(r.u64("blend count"));
  net.part_width = r.f64("blend width");
  net.part_centres = r.f64_array("part centres");
  for (std::uint64_t p = 0; p < count; ++p) {
    const std::uint64_t length = r.u64("part length");
    const std::uint8_t* bytes = r.bytes(length, "part");
    net.parts.push_back(parse_network(bytes, static_cast<std::size_t>(length), name + " (part " + std::to_string(p + 1) + ")"));
  }
}

// NAME, XSCL, YSCL, NODE or PROV (META is read_meta's).
void read_section(const std::string& tag, ByteReader& r, Network& net) {
  using namespace detail;
  if (tag == kTagNames) {
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
}

}  // namespace

namespace {

// The first of the six sections every file has that `seen` (a bit per entry of `known`) lacks.
[[noreturn]] void throw_missing_section(unsigned seen, const char* const (&known)[6], const std::string& name) {
  unsigned i = 0;
  while (seen & (1u << i)) ++i;
  throw InputError(name + ": invalid model file (section " + known[i] + " is missing)");
}

}  // namespace

Network parse_network(const std::uint8_t* data, std::size_t size, const std::string& name) {
  using namespace detail;  // the format's constants
  check_envelope(data, size, size, name);
  check_digest_and_version(data, size, name);
  const std::size_t body_size = size - kTrailerBytes;

  Network net;
  std::uint64_t meta_nodes = 0;
  unsigned seen = 0;
  bool seen_linear = false, seen_probability = false;
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
    if (tag == kTagProbability) {
      if (seen_probability) r.fail("appears twice");
      seen_probability = true;
      net.proba_scale = r.f64("probability scale");
      if (!(net.proba_scale > 0) || !std::isfinite(net.proba_scale)) r.fail("holds a probability scale that is not a positive number");
      r.finish();
      continue;
    }
    if (tag == kTagParts) {
      if (!net.parts.empty()) r.fail("appears twice");
      read_parts(r, net, name);
      r.finish();
      continue;
    }
    if (tag == kTagEncoding) {
      if (!net.encoding.empty()) r.fail("appears twice");
      net.encoding = read_encoding(r);
      r.finish();
      continue;
    }
    if (tag == kTagLinear) {
      if (seen_linear) r.fail("appears twice");
      seen_linear = true;
      net.linear = r.f64_array("linear weights");
      // Absent means no linear terms; present and empty is not something a writer makes.
      if (net.linear.empty()) r.fail("holds no linear weights");
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
      meta_nodes = read_meta(r, net);
    } else {
      read_section(tag, r, net);
    }
    r.finish();
  }

  if (seen != kAllSeen) throw_missing_section(seen, known, name);
  if (meta_nodes != net.nodes()) {
    throw InputError(name + ": invalid model file (section META says " + std::to_string(meta_nodes) +
                     " nodes, section NODE holds " + std::to_string(net.nodes()) + ")");
  }
  const std::string problem = find_network_problem(net);
  if (!problem.empty()) throw InputError(name + ": invalid model file (" + problem + ")");
  return net;
}

}  // namespace rbf::model
