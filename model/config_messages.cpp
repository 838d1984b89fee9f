// Config error messages and value text: quoting, positions, "did you mean" hints.
#include "model/config_messages.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "data/errors.hpp"
#include "data/text.hpp"
#include "model/config_schema.hpp"
#include "model/config_yaml.hpp"

namespace rbf::model {

namespace config_detail {

using YAML::Node;

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string format_real(double value) {
  char buffer[40];
  // Whole numbers as such: "10", not "1e+01".
  if (std::abs(value) < 1e15 && value == std::floor(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  return data::round_trip_text(value);
}

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", u);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string describe_node(const Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return "'" + text + "'";
}

std::string at(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return name + ": ";
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
}

[[noreturn]] void fail_value(const std::string& subject, const std::string& allowed, const std::string& got) {
  throw InputError(subject + " must be " + allowed + ", got " + got);
}

std::string describe_choices(const std::vector<std::string>& names) { return "one of " + join(names, ", "); }

namespace {

// The path of the key of any section nearest to `word` ("lamda" -> "trainer.lambda"), or an
// empty string when no key is close; the first section's wins when several have that key.
std::string nearest_key_path(const std::string& word) {
  std::vector<std::string> keys;
  for (const Field& field : fields()) keys.push_back(field.key);
  const std::string key = closest_match(word, keys);
  if (key.empty()) return std::string();
  for (const Field& field : fields()) {
    if (field.key == key) return field.path();
  }
  return std::string();
}

}  // namespace

std::string unknown_section_message(const std::string& name) {
  std::string suggestion = closest_match(name, section_names());
  if (suggestion.empty()) suggestion = nearest_key_path(name);
  if (!suggestion.empty()) {
    return "unknown section '" + name + "' (did you mean '" + suggestion + "'?)";
  }
  return "unknown section '" + name + "'; the sections are " + join(section_names(), ", ");
}

std::string unknown_key_message(const std::string& section, const std::string& key) {
  const std::string path = section + "." + key;
  const std::string near_key = closest_match(key, keys_of(section));
  const std::string suggestion = near_key.empty() ? nearest_key_path(key) : section + "." + near_key;
  if (!suggestion.empty()) {
    return "unknown key '" + path + "' (did you mean '" + suggestion + "'?)";
  }
  return "unknown key '" + path + "'; the keys of '" + section + "' are " + join(keys_of(section), ", ");
}

std::string tab_indent_hint(const std::string& text, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return std::string();
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; i <= mark.line && std::getline(lines, line); ++i) {
  }
  const std::string indent = line.substr(0, line.find_first_not_of(" \t"));
  if (indent.find('\t') == std::string::npos) return std::string();
  return " (indent with spaces: YAML does not allow tabs there)";
}

}  // namespace config_detail

}  // namespace rbf::model
