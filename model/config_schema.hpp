// Internal to the config_*.cpp files: the table of config fields and how to look them up.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace rbf::model::config_detail {

// One key of the schema. `read` parses a node into the config (type errors), `write` gives the
// YAML text of the current value, `valid` checks the range; `allowed` is shared by all messages.
struct Field {
  std::string section;
  std::string key;
  std::string allowed;
  std::function<void(Config&, const YAML::Node&, const std::string& subject)> read;
  std::function<std::string(const Config&)> write;
  std::function<bool(const Config&)> valid;

  std::string path() const { return section + "." + key; }
};

// Every field, section by section, in the order config_to_yaml writes them.
const std::vector<Field>& fields();

// The field of `section`.`key` or of "section.key"; nullptr when there is none.
const Field* find_field(const std::string& section, const std::string& key);
const Field* find_field(const std::string& key_path);

bool is_section(const std::string& name);
std::vector<std::string> section_names();
std::vector<std::string> keys_of(const std::string& section);

// Turns a key path into the subject of an error message (a file position, a flag).
using KeyNamer = std::function<std::string(const std::string& key_path)>;

// Throws rbf::InputError for the first field whose value is out of range, named by `name_key`.
void check_fields(const Config& config, const KeyNamer& name_key);

}  // namespace rbf::model::config_detail
