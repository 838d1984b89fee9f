// Tests of the model file: round trips, the pinned format-1 file, the layout, loading and saving.
// Loading and saving cover missing paths, directories and failed saves.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "contracts/host_memory.hpp"
#include "model/model_file.hpp"
#include "model/model_file_format.hpp"
#include "model/network.hpp"
#include "tests/model_file_test_support.hpp"

using rbf::RuntimeError;
using namespace rbf::test::model_files;

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

  TEST_CASE("a sparse model file larger than the memory is refused before it is read") {
    // A header may claim any size the file has, and a sparse file has it for free.
    TempDir dir;
    const std::string path = dir.file("huge.rbfn");
    Bytes head = rbf::model::detail::serialize_unchecked(make_tiny());
    head.resize(rbf::model::detail::kHeaderBytes);
    const double available = static_cast<double>(rbf::model::available_host_memory_bytes());
    const auto size = static_cast<std::uint64_t>(std::max(2.0 * available, 64.0 * 1024 * 1024 * 1024));
    set_u64(head, 16, size);
    write_bytes(path, head);
    REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size)) == 0);
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(rbf::model::load_network(path),
                         doctest::Contains((path + ": reading the model file needs ").c_str()), InputError);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 5.0);
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
