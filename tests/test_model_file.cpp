// Tests of SHA-256 and the model file: exact round trips, a pinned format-1 file, and
// rejection of every truncation, bit flip and hostile size claim without crashing.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/model_file.hpp"
#include "model/network.hpp"
#include "model/sha256.hpp"

namespace {

using rbf::InputError;
using rbf::RuntimeError;
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

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

std::string sha_hex(const std::string& text) {
  rbf::model::Sha256 h;
  h.update(text);
  return h.hex_digest();
}

std::uint64_t get_u64(const Bytes& b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t(b[at + i]) << (8 * i);
  return v;
}
void set_u32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}
void set_u64(Bytes& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}
void set_f64(Bytes& b, std::size_t at, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  set_u64(b, at, bits);
}

// Rewrites the header's file size and the trailing digest after a deliberate edit, so that
// the structural checks, not the checksum, must catch the edit.
void reseal(Bytes& b) {
  set_u64(b, 16, b.size());
  rbf::model::Sha256 h;
  h.update(b.data(), b.size() - 32);
  const auto digest = h.digest();
  std::copy(digest.begin(), digest.end(), b.end() - 32);
}

// Offset of the payload of the section tagged `tag` (its length field is 8 bytes before).
std::size_t section_payload(const Bytes& b, const char* tag) {
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
void append_section(Bytes& b, const char* tag, std::uint32_t flags, const Bytes& payload) {
  Bytes section(tag, tag + 4);
  section.resize(16);
  set_u32(section, 4, flags);
  set_u64(section, 8, payload.size());
  section.insert(section.end(), payload.begin(), payload.end());
  b.insert(b.end() - 32, section.begin(), section.end());
  reseal(b);
}

std::string parse_error(const Bytes& b) {
  try {
    rbf::model::parse_network(b.data(), b.size(), "model.rbfn");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

Network make_regression() {
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

Network make_classification() {
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
Network make_tiny() {
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

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void check_identical(const Network& a, const Network& b) {
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
  CHECK(a.provenance.rbfnet_version == b.provenance.rbfnet_version);
  CHECK(a.provenance.data_file == b.provenance.data_file);
  CHECK(a.provenance.data_sha256 == b.provenance.data_sha256);
  CHECK(a.provenance.created_utc == b.provenance.created_utc);
  CHECK(a.provenance.config_yaml == b.provenance.config_yaml);
  CHECK(a.provenance.backend == b.provenance.backend);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("sha256") {
  TEST_CASE("FIPS 180 test vectors") {
    CHECK(sha_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    const std::string million(1000000, 'a');
    CHECK(sha_hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // Odd-sized pieces cross every block boundary position.
    rbf::model::Sha256 pieces;
    for (std::size_t pos = 0, step = 1; pos < million.size(); pos += step, step = step % 97 + 1) {
      pieces.update(million.data() + pos, std::min(step, million.size() - pos));
    }
    CHECK(pieces.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }

  TEST_CASE("split updates agree with one update and digest() can be repeated") {
    std::string text;
    for (int i = 0; i < 200; ++i) text.push_back(char(i * 37 + 11));
    const std::string whole = sha_hex(text);
    for (std::size_t split = 0; split <= text.size(); ++split) {
      rbf::model::Sha256 h;
      h.update(text.data(), split);
      h.update(text.data() + split, text.size() - split);
      REQUIRE(h.hex_digest() == whole);
      REQUIRE(h.hex_digest() == whole);
    }
  }

  TEST_CASE("hashing files") {
    TempDir dir;
    const std::string path = dir.file("data.csv");
    write_bytes(path, Bytes{'a', 'b', 'c'});
    CHECK(rbf::model::sha256_file_hex(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    write_bytes(path, Bytes(200000, 'a'));
    CHECK(rbf::model::sha256_file_hex(path) == sha_hex(std::string(200000, 'a')));

    const std::string missing = dir.file("missing.csv");
    CHECK_THROWS_WITH_AS(rbf::model::sha256_file_hex(missing), doctest::Contains(missing.c_str()), InputError);
    CHECK_THROWS_WITH_AS(rbf::model::sha256_file_hex(dir.path()), doctest::Contains(dir.path().c_str()), InputError);
  }
}

TEST_SUITE("model file") {
  TEST_CASE("regression and classification models round-trip bit for bit") {
    TempDir dir;
    for (const Network& original : {make_regression(), make_classification(), make_tiny()}) {
      const std::string path = dir.file("model.rbfn");
      rbf::model::save_network(original, path);
      const Network loaded = rbf::model::load_network(path);
      check_identical(original, loaded);
      // Writing what was read gives the same bytes: nothing is lost or reinterpreted.
      CHECK(rbf::model::serialize_network(loaded) == read_bytes(path));
    }
    CHECK(dir.entries() == std::vector<std::string>{"model.rbfn"});
  }

  TEST_CASE("a bias-only network and an empty classifier y scaler round-trip") {
    Network bias_only = make_regression();
    bias_only.centers.clear();
    bias_only.widths.clear();
    bias_only.weights.clear();
    const Bytes bytes = rbf::model::serialize_network(bias_only);
    check_identical(bias_only, rbf::model::parse_network(bytes.data(), bytes.size(), "m"));

    Network classifier = make_classification();
    classifier.y_scaler = rbf::data::Standardizer();
    const Bytes more = rbf::model::serialize_network(classifier);
    check_identical(classifier, rbf::model::parse_network(more.data(), more.size(), "m"));
  }

  TEST_CASE("an empty rbfnet version is recorded as this build's") {
    Network n = make_tiny();
    n.provenance.rbfnet_version.clear();
    const Bytes bytes = rbf::model::serialize_network(n);
    const Network loaded = rbf::model::parse_network(bytes.data(), bytes.size(), "m");
    CHECK(loaded.provenance.rbfnet_version == RBF_VERSION);
  }

  TEST_CASE("the format-1 reference file still loads and is written byte for byte") {
    // tests/data/model_format1.rbfn was written by the first release of the format. Every
    // later build, on every architecture, must read it; format 1 must keep writing it.
    const std::string path = std::string(RBF_TEST_DATA_DIR) + "/model_format1.rbfn";
    const Network loaded = rbf::model::load_network(path);
    check_identical(make_classification(), loaded);
    CHECK(rbf::model::serialize_network(make_classification()) == read_bytes(path));
  }

  TEST_CASE("the layout is little-endian and fixed-width") {
    const Bytes b = rbf::model::serialize_network(make_tiny());
    const std::uint8_t magic[8] = {0x89, 'R', 'B', 'F', 'N', '\r', '\n', 0x1a};
    CHECK(std::memcmp(b.data(), magic, 8) == 0);
    CHECK(b[8] == 1);  // format 1, low byte first
    CHECK(b[9] == 0);
    CHECK(get_u64(b, 16) == b.size());
    const std::size_t meta = section_payload(b, "META");
    CHECK(get_u64(b, meta + 4) == 1);  // inputs
    const std::size_t node = section_payload(b, "NODE");
    CHECK(get_u64(b, node) == 1);                          // one center value
    CHECK(get_u64(b, node + 8) == 0x3FD0000000000000ull);  // 0.25 as IEEE bits
  }

  TEST_CASE("every truncation is a clear error") {
    const Bytes b = rbf::model::serialize_network(make_tiny());
    for (std::size_t n = 0; n < b.size(); ++n) {
      const Bytes cut(b.begin(), b.begin() + std::ptrdiff_t(n));
      const std::string message = parse_error(cut);
      INFO("length " << n << ": " << message);
      REQUIRE(contains(message, "model.rbfn: "));
      REQUIRE((n == 0 ? contains(message, "empty") : contains(message, "truncated")));
    }
    TempDir dir;
    for (std::size_t n : {std::size_t(0), std::size_t(5), std::size_t(8), std::size_t(40), b.size() - 1}) {
      const std::string path = dir.file("cut.rbfn");
      write_bytes(path, Bytes(b.begin(), b.begin() + std::ptrdiff_t(n)));
      CHECK_THROWS_WITH_AS(rbf::model::load_network(path), doctest::Contains(path.c_str()), InputError);
    }
  }

  TEST_CASE("every single flipped bit is a clear error") {
    const Bytes b = rbf::model::serialize_network(make_tiny());
    std::size_t magic = 0, size = 0, checksum = 0;
    for (std::size_t bit = 0; bit < 8 * b.size(); ++bit) {
      Bytes flipped = b;
      flipped[bit / 8] ^= std::uint8_t(1u << (bit % 8));
      const std::string message = parse_error(flipped);
      INFO("bit " << bit << ": " << message);
      REQUIRE(contains(message, "model.rbfn: "));
      magic += contains(message, "bad magic");
      size += contains(message, "its header says");
      checksum += contains(message, "checksum mismatch");
    }
    CHECK(magic == 64);
    CHECK(size == 64);
    CHECK(magic + size + checksum == 8 * b.size());
  }

  TEST_CASE("foreign files") {
    const std::string csv = "x,y\n1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n13,14\n15,16\n17,18\n";
    const Bytes text(csv.begin(), csv.end());
    CHECK(parse_error(text) == "model.rbfn: not an rbfnet model file (bad magic)");
    CHECK(parse_error(Bytes{'x'}) == "model.rbfn: not an rbfnet model file (bad magic)");
    CHECK(contains(parse_error(Bytes{}), "empty"));

    // The newline-conversion bytes of the magic catch a text-mode copy.
    Bytes converted = rbf::model::serialize_network(make_tiny());
    converted.erase(converted.begin() + 5);  // "\r\n" -> "\n"
    CHECK(contains(parse_error(converted), "bad magic"));
  }

  TEST_CASE("versions") {
    Bytes newer = rbf::model::serialize_network(make_tiny());
    set_u32(newer, 8, 2);
    reseal(newer);
    CHECK(parse_error(newer) == "model.rbfn: written by a newer rbfnet (format 2); this build reads format 1");

    Bytes zero = newer;
    set_u32(zero, 8, 0);
    reseal(zero);
    CHECK(contains(parse_error(zero), "format version 0"));

    // A newer minor version of format 1 loads: its minor number is informational.
    Bytes minor = rbf::model::serialize_network(make_tiny());
    set_u32(minor, 12, 7);
    reseal(minor);
    CHECK(parse_error(minor) == "(no error)");
  }

  TEST_CASE("unknown sections: optional ones are skipped and required ones refused") {
    Bytes optional = rbf::model::serialize_network(make_regression());
    append_section(optional, "XTRA", 0, Bytes{1, 2, 3, 4, 5});
    check_identical(make_regression(), rbf::model::parse_network(optional.data(), optional.size(), "m"));

    Bytes required = rbf::model::serialize_network(make_regression());
    append_section(required, "XTRA", 1, Bytes{});
    CHECK(contains(parse_error(required), "newer rbfnet"));
    CHECK(contains(parse_error(required), "'XTRA'"));

    Bytes twice = rbf::model::serialize_network(make_regression());
    const std::size_t prov = section_payload(twice, "PROV");
    const Bytes prov_payload(twice.begin() + std::ptrdiff_t(prov), twice.end() - 32);
    append_section(twice, "PROV", 1, prov_payload);
    CHECK(contains(parse_error(twice), "twice"));

    Bytes missing = rbf::model::serialize_network(make_regression());
    missing.erase(missing.begin() + std::ptrdiff_t(prov - 16), missing.end() - 32);
    reseal(missing);
    CHECK(parse_error(missing) == "model.rbfn: invalid model file (section PROV is missing)");

    Bytes stray = rbf::model::serialize_network(make_regression());
    stray.insert(stray.end() - 32, 5, 0);
    reseal(stray);
    CHECK(contains(parse_error(stray), "stray bytes"));
  }

  TEST_CASE("absurd sizes are refused before anything is allocated") {
    // Each edit keeps a valid checksum, so only the size checks can catch it. The counts
    // are large enough that trusting them would allocate gigabytes or exabytes.
    const Bytes b = rbf::model::serialize_network(make_regression());
    const std::size_t meta = section_payload(b, "META");
    const std::size_t names = section_payload(b, "NAME");
    const std::size_t xscl = section_payload(b, "XSCL");
    const std::size_t node = section_payload(b, "NODE");
    const std::size_t prov = section_payload(b, "PROV");
    const std::uint64_t huge = std::uint64_t(1) << 40;
    const std::uint64_t big = std::uint64_t(1) << 28;  // within the node limit; 2 GiB of doubles

    struct Edit {
      const char* what;
      std::size_t at;
      std::uint64_t value;
      int width;
      const char* expect;
    };
    const Edit edits[] = {
        {"nodes in META", meta + 20, huge, 8, "1099511627776 nodes, more than the 4294967296"},
        {"inputs in META", meta + 4, huge, 8, "1099511627776 inputs"},
        {"outputs in META", meta + 12, 0, 8, "0 outputs"},
        {"feature name count", names, huge, 8, "1099511627776 entries"},
        {"feature name count within limit", names, 1u << 24, 8, "feature names needs 67108864 bytes"},
        {"feature name length", names + 8, 0xffffffffu, 4, "4294967295 bytes"},
        {"feature name length within limit", names + 8, 1u << 20, 4, "feature names needs"},
        {"scaler columns", xscl, huge, 8, "1099511627776 columns"},
        {"center count", node, huge, 8, "1099511627776 values"},
        {"center count within limits", node, big, 8, "268435456 values"},
        {"string length in PROV", prov, 1u << 24, 4, "rbfnet version needs"},
        {"section length", node - 8, huge, 8, "section NODE claims 1099511627776 bytes"},
        {"section length, maximal", node - 8, ~std::uint64_t(0), 8, "section NODE claims"},
    };
    for (const Edit& e : edits) {
      Bytes edited = b;
      if (e.width == 8) {
        set_u64(edited, e.at, e.value);
      } else {
        set_u32(edited, e.at, std::uint32_t(e.value));
      }
      reseal(edited);
      const std::string message = parse_error(edited);
      INFO(e.what << ": " << message);
      CHECK(contains(message, "model.rbfn: invalid model file"));
      CHECK(contains(message, e.expect));
    }

    Bytes size_field = b;
    set_u64(size_field, 16, huge);
    CHECK(contains(parse_error(size_field), "its header says 1099511627776"));
  }

  TEST_CASE("well-formed but inconsistent contents are refused") {
    const Bytes b = rbf::model::serialize_network(make_regression());
    const std::size_t meta = section_payload(b, "META");
    const std::size_t xscl = section_payload(b, "XSCL");
    const std::size_t node = section_payload(b, "NODE");
    const std::size_t width0 = node + 8 + 12 * 8 + 8;  // after the 12 centers

    Bytes nan_width = b;
    set_f64(nan_width, width0, std::nan(""));
    reseal(nan_width);
    CHECK(parse_error(nan_width) == "model.rbfn: invalid model file (widths[0] is not finite)");

    Bytes negative_width = b;
    set_f64(negative_width, width0, -1.0);
    reseal(negative_width);
    CHECK(contains(parse_error(negative_width), "widths[0] is not positive"));

    Bytes infinite_center = b;
    set_f64(infinite_center, node + 8, std::numeric_limits<double>::infinity());
    reseal(infinite_center);
    CHECK(contains(parse_error(infinite_center), "centers[0] is not finite"));

    Bytes zero_scale = b;
    set_f64(zero_scale, xscl + 8 + 3 * 8, 0.0);
    reseal(zero_scale);
    CHECK(contains(parse_error(zero_scale), "x_scaler.scale[0] is not positive"));

    Bytes bad_flag = b;
    bad_flag[xscl + 8 + 6 * 8] = 2;
    reseal(bad_flag);
    CHECK(contains(parse_error(bad_flag), "neither 0 nor 1"));

    Bytes bad_task = b;
    set_u32(bad_task, meta, 7);
    reseal(bad_task);
    CHECK(contains(parse_error(bad_task), "unknown task code 7"));

    Bytes classification_task = b;  // regression contents labelled as a classifier
    set_u32(classification_task, meta, 1);
    reseal(classification_task);
    CHECK(contains(parse_error(classification_task), "target_names"));

    Bytes more_nodes = b;
    set_u64(more_nodes, meta + 20, 5);
    reseal(more_nodes);
    CHECK(contains(parse_error(more_nodes), "META says 5 nodes, section NODE holds 4"));

    Bytes longer_meta = b;  // a known section must be read to its last byte
    longer_meta.insert(longer_meta.begin() + std::ptrdiff_t(meta + 28), 4, 0);
    set_u64(longer_meta, meta - 8, 28 + 4);
    reseal(longer_meta);
    CHECK(parse_error(longer_meta) == "model.rbfn: invalid model file (section META: 4 unexpected bytes at its end)");

    Bytes more_inputs = b;
    set_u64(more_inputs, meta + 4, 4);
    reseal(more_inputs);
    CHECK(contains(parse_error(more_inputs), "feature_names has 3 entries, expected 4"));
  }

  TEST_CASE("find_network_problem names the first inconsistency") {
    CHECK(rbf::model::find_network_problem(make_regression()).empty());
    CHECK(rbf::model::find_network_problem(make_classification()).empty());

    Network n = make_regression();
    n.weights.pop_back();
    CHECK(contains(rbf::model::find_network_problem(n), "weights has 7 entries, expected 8"));
    n = make_regression();
    n.x_scaler.constant.pop_back();
    CHECK(contains(rbf::model::find_network_problem(n), "x_scaler"));
    n = make_classification();
    n.class_names.pop_back();
    CHECK(contains(rbf::model::find_network_problem(n), "class_names"));
    n = make_regression();
    n.class_names = {"a", "b"};
    CHECK(contains(rbf::model::find_network_problem(n), "class_names"));
    n = make_regression();
    n.inputs = 0;
    CHECK(contains(rbf::model::find_network_problem(n), "inputs is 0"));
  }

  TEST_CASE("missing and empty files and directory paths") {
    TempDir dir;
    const std::string missing = dir.file("nope.rbfn");
    CHECK_THROWS_WITH_AS(rbf::model::load_network(missing), doctest::Contains((missing + ": cannot open").c_str()),
                         InputError);
    const std::string empty = dir.file("empty.rbfn");
    write_bytes(empty, Bytes{});
    CHECK_THROWS_WITH_AS(rbf::model::load_network(empty),
                         doctest::Contains((empty + ": not an rbfnet model file").c_str()), InputError);
    CHECK_THROWS_WITH_AS(rbf::model::load_network(dir.path()),
                         doctest::Contains((dir.path() + ": is a directory").c_str()), InputError);
  }

  TEST_CASE("saving into a missing directory or onto a directory is an input error") {
    TempDir dir;
    const std::string into_missing = dir.file("no-such-dir/model.rbfn");
    CHECK_THROWS_WITH_AS(rbf::model::save_network(make_tiny(), into_missing),
                         doctest::Contains(("directory '" + dir.file("no-such-dir") + "' does not exist").c_str()),
                         InputError);
    CHECK_THROWS_WITH_AS(rbf::model::save_network(make_tiny(), dir.path()), doctest::Contains("is a directory"),
                         InputError);
    CHECK(dir.entries().empty());
  }

  TEST_CASE("a failed save leaves the previous model intact and no temporary file") {
    TempDir dir;
    const std::string path = dir.file("model.rbfn");
    rbf::model::save_network(make_regression(), path);
    const Bytes before = read_bytes(path);

    Network broken = make_classification();
    broken.weights[1] = std::nan("");
    CHECK_THROWS_WITH_AS(rbf::model::save_network(broken, path), doctest::Contains("weights[1] is not finite"),
                         RuntimeError);
    CHECK(read_bytes(path) == before);
    CHECK(dir.entries() == std::vector<std::string>{"model.rbfn"});

    // A good save replaces the file completely.
    rbf::model::save_network(make_classification(), path);
    check_identical(make_classification(), rbf::model::load_network(path));
    CHECK(dir.entries() == std::vector<std::string>{"model.rbfn"});

    // A relative path writes into the current directory.
    char cwd[4096];
    REQUIRE(::getcwd(cwd, sizeof cwd) != nullptr);
    REQUIRE(::chdir(dir.path().c_str()) == 0);
    CHECK_NOTHROW(rbf::model::save_network(make_tiny(), "relative.rbfn"));
    REQUIRE(::chdir(cwd) == 0);
    check_identical(make_tiny(), rbf::model::load_network(dir.file("relative.rbfn")));
  }
}
