// Internal to the config_*.cpp files: the text of config values and error messages.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace rbf::model::config_detail {

std::string lower(std::string text);

std::string join(const std::vector<std::string>& items, const char* separator);

// Shortest decimal text that reads back to exactly `value`, so written configs round-trip.
std::string format_real(double value);

// A YAML double-quoted scalar; every string is written this way so that no file name or
// column name can be mistaken for YAML syntax.
std::string quote(const std::string& text);

// How a node looks in "got ..." messages; long scalars are shortened so messages stay one line.
std::string describe_node(const YAML::Node& node);

// "FILE:LINE:COL: " for a position in the file, "FILE: " when the position is unknown.
std::string at(const std::string& name, const YAML::Mark& mark);

// Throws rbf::InputError "SUBJECT must be ALLOWED, got GOT".
[[noreturn]] void fail_value(const std::string& subject, const std::string& allowed, const std::string& got);

// "one of a, b, c".
std::string describe_choices(const std::vector<std::string>& names);

// "unknown section 'traner' (did you mean 'trainer'?)"; a section-level key that belongs in a
// section ("lambda:" at the top) points to its full path.
std::string unknown_section_message(const std::string& name);

// "unknown key 'trainer.lamda' (did you mean 'trainer.lambda'?)": first a near key in the same
// section, then the same or a near key in another section, else the list of valid keys.
std::string unknown_key_message(const std::string& section, const std::string& key);

// Tabs in indentation are the most common cause of a puzzling YAML syntax error; a hint that
// says so when the line of `mark` is indented with a tab, else an empty string.
std::string tab_indent_hint(const std::string& text, const YAML::Mark& mark);

}  // namespace rbf::model::config_detail
