// Reads, validates and writes the YAML form of model::Config, and applies command-line overrides.
//
// Layout: top-level sections data, candidates, trainer, stopping, backend, logging, output;
// inside each, snake_case keys named like the fields of model/config.hpp (backend.kind is
// `backend: {kind: auto}`). configs/default.yaml lists every key with its default.
// Every error is an rbf::InputError whose one-sentence message names the file, line and
// column (or the command-line flag) and the key path, and says which values are allowed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "data/closest_match.hpp"
#include "model/config.hpp"

namespace rbf::model {

// Reads a YAML config file. An empty file (or one with only comments) gives all defaults.
Config load_config(const std::string& path);

// Same, from text in memory; `name` stands for the file in messages.
Config parse_config(const std::string& yaml_text, const std::string& name);

// The whole config as YAML, every key present; parse_config reads it back to an equal Config.
std::string config_to_yaml(const Config& config);

// Checks every value's type-independent constraints (ranges, non-empty lists).
// Throws rbf::InputError "'stopping.max_nodes' must be an integer >= 1, got 0".
void validate_config(const Config& config);

// Same; `name_key` turns a key path into the subject of the message, e.g. the flag that set it.
void validate_config(const Config& config, const std::function<std::string(const std::string& key_path)>& name_key);

// One value given on the command line: `key_path` is "stopping.max_nodes", `values` the
// text as typed (several for list keys), `flag` names the source in messages ("--nodes").
struct ConfigOverride {
  std::string key_path;
  std::vector<std::string> values;
  std::string flag;
};

// Parses and applies `overrides` in order, then validates the whole config; errors name the
// flag ("--nodes must be an integer >= 1, got 'abc'").
void apply_overrides(Config& config, const std::vector<ConfigOverride>& overrides);

// Every key path ("data.path", ..., "output.model") in the order config_to_yaml writes them.
std::vector<std::string> config_key_paths();

// The YAML text of one value ("100", "auto", "[0.5, 1, 2]"), e.g. for defaults in --help.
// Throws std::invalid_argument for a key path that does not exist.
std::string config_value_to_yaml(const Config& config, const std::string& key_path);

// "Did you mean" hints on keys, commands and flags (data/closest_match.hpp).
using data::closest_match;

}  // namespace rbf::model
