// libFuzzer target for the YAML config loader: any text either loads into a valid Config that
// round-trips through config_to_yaml, or fails with rbf::InputError.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "data/errors.hpp"
#include "fuzz/fuzz_check.hpp"
#include "model/config_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using rbf::fuzz::require;
  const std::string text(reinterpret_cast<const char*>(data), size);
  rbf::model::Config config;
  try {
    config = rbf::model::parse_config(text, "fuzz.yaml");
  } catch (const rbf::InputError&) {
    return 0;  // the expected way to refuse bad input; any other exception is reported
  }
  // An accepted config is valid, and what config_to_yaml writes reads back to the same text.
  bool valid = true;
  try {
    rbf::model::validate_config(config);
  } catch (const rbf::InputError&) {
    valid = false;
  }
  require(valid, "parse_config returns only valid configs");
  const std::string yaml = rbf::model::config_to_yaml(config);
  std::string again;
  try {
    again = rbf::model::config_to_yaml(rbf::model::parse_config(yaml, "round-trip.yaml"));
  } catch (const rbf::InputError& e) {
    std::fprintf(stderr, "%s\n--- written ---\n%s", e.what(), yaml.c_str());
    require(false, "config_to_yaml output reads back");
  }
  require(again == yaml, "config_to_yaml round-trips through parse_config");
  return 0;
}
