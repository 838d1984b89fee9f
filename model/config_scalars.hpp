// Internal to the config_*.cpp files: strict reading of one scalar value (text, integer, real, boolean).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

namespace rbf::model::config_detail {

// Each reads `node` as the value of a key; a map, a list, a missing value or text that is not
// wholly such a value throws rbf::InputError "SUBJECT must be ALLOWED, got ...". Numbers are
// read locale-free in practice, since rbfnet never changes the C locale.

// The scalar text of `node`, without surrounding white space.
std::string scalar_of(const YAML::Node& node, const std::string& subject, const std::string& allowed);

// An integer in [0, max]; a leading '+' is allowed.
std::uint64_t read_unsigned(const YAML::Node& node, const std::string& subject, const std::string& allowed,
                            std::uint64_t max);

// Any value of an int (range checks come later).
int read_int(const YAML::Node& node, const std::string& subject, const std::string& allowed);

// A finite decimal number; hex floats, "nan" and "inf" are refused.
double read_real(const YAML::Node& node, const std::string& subject, const std::string& allowed);

// true/yes/on or false/no/off, in any case.
bool read_bool(const YAML::Node& node, const std::string& subject, const std::string& allowed);

}  // namespace rbf::model::config_detail
