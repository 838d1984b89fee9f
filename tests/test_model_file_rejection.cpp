// Tests of the model file's refusals: damaged, foreign, newer, hostile or inconsistent files.
// Every truncation and bit flip, foreign files, versions, unknown sections, hostile size claims
// and inconsistent contents: each a clear error.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/model_file.hpp"
#include "model/network.hpp"
#include "tests/model_file_test_support.hpp"

using namespace rbf::test::model_files;

TEST_SUITE("model file") {
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
}
