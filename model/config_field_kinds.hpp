// The kinds of field the config schema is made of (integers, reals, texts, lists, choices,
// the delimiter, penalties): each reads its YAML value, writes it back and checks it. Only
// model/config_schema.cpp includes this; it builds the table of fields from these.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "model/config_messages.hpp"
#include "model/config_scalars.hpp"
#include "model/config_schema.hpp"
#include "model/config_yaml.hpp"

namespace rbf::model::config_detail {

using YAML::Node;

// Each item of a YAML list, or a single value as a list of one. No value (`~`) is no items
// when `none_is_empty`, else it is read as an item (and refused by read_item).
template <typename Value, typename ReadItem>
std::vector<Value> read_list(const YAML::Node& node, bool none_is_empty, ReadItem read_item) {
  std::vector<Value> values;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) values.push_back(read_item(item));
  } else if (!node.IsNull() || !none_is_empty) {
    values.push_back(read_item(node));
  }
  return values;
}

// "[a, b]", each item written by write_item.
template <typename Value, typename WriteItem>
std::string write_list(const std::vector<Value>& values, WriteItem write_item) {
  std::vector<std::string> items;
  for (const Value& value : values) items.push_back(write_item(value));
  return "[" + join(items, ", ") + "]";
}

// Names a field of a section of Config by two member pointers.
template <typename Section, typename Value>
struct Member {
  Section Config::*section;
  Value Section::*field;
  Value& of(Config& config) const { return (config.*section).*field; }
  const Value& of(const Config& config) const { return (config.*section).*field; }
};

template <typename Section, typename Value>
Member<Section, Value> member(Section Config::*section, Value Section::*field) {
  return Member<Section, Value>{section, field};
}

inline Field make_field(const char* section, const char* key, std::string allowed) {
  Field field;
  field.section = section;
  field.key = key;
  field.allowed = std::move(allowed);
  return field;
}

template <typename Section, typename Unsigned>
Field unsigned_field(const char* section, const char* key, Member<Section, Unsigned> m, Unsigned min) {
  Field field = make_field(section, key, "an integer >= " + std::to_string(min));
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = static_cast<Unsigned>(read_unsigned(node, subject, allowed, std::numeric_limits<Unsigned>::max()));
  };
  field.write = [m](const Config& config) { return std::to_string(m.of(config)); };
  field.valid = [m, min](const Config& config) { return m.of(config) >= min; };
  return field;
}

// An integer in [min, max]; max = INT_MAX means no upper bound.
template <typename Section>
Field int_field(const char* section, const char* key, Member<Section, int> m, int min,
                int max = std::numeric_limits<int>::max()) {
  Field field = make_field(section, key,
                           max == std::numeric_limits<int>::max()
                               ? "an integer >= " + std::to_string(min)
                               : "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = read_int(node, subject, allowed);
  };
  field.write = [m](const Config& config) { return std::to_string(m.of(config)); };
  field.valid = [m, min, max](const Config& config) { return m.of(config) >= min && m.of(config) <= max; };
  return field;
}

// An interval of real numbers; hi = infinity means no upper bound.
struct RealRange {
  double lo;
  bool lo_open;
  double hi;
  bool hi_open;

  bool contains(double value) const {
    if (!std::isfinite(value)) return false;
    if (lo_open ? value <= lo : value < lo) return false;
    if (std::isinf(hi)) return true;
    return hi_open ? value < hi : value <= hi;
  }
  std::string describe() const {
    if (std::isinf(hi)) return std::string(lo_open ? "> " : ">= ") + format_real(lo);
    return std::string("in ") + (lo_open ? "(" : "[") + format_real(lo) + ", " + format_real(hi) +
           (hi_open ? ")" : "]");
  }
};

const double kNoLimit = std::numeric_limits<double>::infinity();

template <typename Section>
Field real_field(const char* section, const char* key, Member<Section, double> m, RealRange range) {
  Field field = make_field(section, key, "a number " + range.describe());
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = read_real(node, subject, allowed);
  };
  field.write = [m](const Config& config) { return format_real(m.of(config)); };
  field.valid = [m, range](const Config& config) { return range.contains(m.of(config)); };
  return field;
}

// A memory cap in MB, or "auto" (stored as +infinity): no cap beyond what the machine has.
template <typename Section>
Field memory_cap_field(const char* section, const char* key, Member<Section, double> m) {
  Field field = make_field(section, key, "'auto' or a number >= 0");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const bool automatic = node.IsScalar() && scalar_of(node, subject, allowed) == "auto";
    m.of(config) = automatic ? kMachineMemory : read_real(node, subject, allowed);
  };
  field.write = [m](const Config& config) {
    return std::isinf(m.of(config)) ? std::string("auto") : format_real(m.of(config));
  };
  field.valid = [m](const Config& config) { return m.of(config) >= 0; };  // NaN fails
  return field;
}

template <typename Section>
Field bool_field(const char* section, const char* key, Member<Section, bool> m) {
  Field field = make_field(section, key, "true or false");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = read_bool(node, subject, allowed);
  };
  field.write = [m](const Config& config) { return std::string(m.of(config) ? "true" : "false"); };
  field.valid = [](const Config&) { return true; };
  return field;
}

// A string; a key with no value (`iteration_log:`) means the empty string.
template <typename Section>
Field text_field(const char* section, const char* key, Member<Section, std::string> m, bool may_be_empty,
                 std::string allowed) {
  Field field = make_field(section, key, std::move(allowed));
  const std::string allowed_text = field.allowed;
  field.read = [m, allowed_text](Config& config, const Node& node, const std::string& subject) {
    // Not trimmed: " a.csv" names another file than "a.csv" (YAML has already dropped the
    // blanks around an unquoted value).
    if (!node.IsNull() && !node.IsScalar()) fail_value(subject, allowed_text, describe_node(node));
    m.of(config) = node.IsNull() ? std::string() : node.Scalar();
  };
  field.write = [m](const Config& config) { return quote(m.of(config)); };
  field.valid = [m, may_be_empty](const Config& config) { return may_be_empty || !m.of(config).empty(); };
  return field;
}

// A list of column names or indices; a single scalar is a list of one, nothing is empty.
template <typename Section>
Field column_list_field(const char* section, const char* key, Member<Section, std::vector<std::string>> m) {
  Field field = make_field(section, key, "a column name or 0-based index, or a list of them");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = read_list<std::string>(node, true, [&](const Node& item) { return scalar_of(item, subject, allowed); });
  };
  field.write = [m](const Config& config) { return write_list(m.of(config), quote); };
  field.valid = [m](const Config& config) {
    const auto& values = m.of(config);
    return std::none_of(values.begin(), values.end(), [](const std::string& value) { return value.empty(); });
  };
  return field;
}

// A non-empty list of positive numbers; a single number is a list of one.
template <typename Section>
Field positive_list_field(const char* section, const char* key, Member<Section, std::vector<double>> m) {
  Field field = make_field(section, key, "a non-empty list of numbers > 0");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    m.of(config) = read_list<double>(node, false, [&](const Node& item) { return read_real(item, subject, allowed); });
  };
  field.write = [m](const Config& config) { return write_list(m.of(config), format_real); };
  field.valid = [m](const Config& config) {
    const auto& values = m.of(config);
    return !values.empty() &&
           std::all_of(values.begin(), values.end(), [](double value) { return std::isfinite(value) && value > 0.0; });
  };
  return field;
}

// CUDA device indices, one row shard each; a single index is a list of one. No value (`~`)
// is the default, no list; an empty list is refused, since it names no device to run on.
template <typename Section>
Field device_list_field(const char* section, const char* key, Member<Section, std::vector<int>> m) {
  Field field = make_field(section, key, "a non-empty list of CUDA device indices >= 0");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const std::vector<int> values =
        read_list<int>(node, true, [&](const Node& item) { return read_int(item, subject, allowed); });
    if (node.IsSequence() && values.empty()) fail_value(subject, allowed, "an empty list");
    for (const int value : values)
      if (value < 0) fail_value(subject, allowed, std::to_string(value));
    m.of(config) = values;
  };
  field.write = [m](const Config& config) {
    if (m.of(config).empty()) return std::string("~");
    return write_list(m.of(config), [](int value) { return std::to_string(value); });
  };
  field.valid = [m](const Config& config) {
    const auto& values = m.of(config);
    return std::all_of(values.begin(), values.end(), [](int value) { return value >= 0; });
  };
  return field;
}

template <typename Enum>
struct Choice {
  Enum value;
  const char* name;
};

// An enumeration written by name; names are matched without regard to case.
template <typename Section, typename Enum>
Field choice_field(const char* section, const char* key, Member<Section, Enum> m, std::vector<Choice<Enum>> choices) {
  std::vector<std::string> names;
  for (const auto& choice : choices) names.push_back(choice.name);
  Field field = make_field(section, key, describe_choices(names));
  const std::string allowed = field.allowed;
  field.read = [m, allowed, choices](Config& config, const Node& node, const std::string& subject) {
    const std::string text = scalar_of(node, subject, allowed);
    for (const auto& choice : choices) {
      if (lower(text) == choice.name) {
        m.of(config) = choice.value;
        return;
      }
    }
    fail_value(subject, allowed, "'" + text + "'");
  };
  field.write = [m, choices](const Config& config) {
    for (const auto& choice : choices) {
      if (choice.value == m.of(config)) return std::string(choice.name);
    }
    return std::string("invalid");
  };
  field.valid = [m, choices](const Config& config) {
    return std::any_of(choices.begin(), choices.end(),
                       [&](const Choice<Enum>& choice) { return choice.value == m.of(config); });
  };
  return field;
}

// The log level is kept as text (spdlog's names) but only these words are accepted.
template <typename Section>
Field level_field(const char* section, const char* key, Member<Section, std::string> m) {
  static const std::vector<std::string> kLevels{"trace", "debug", "info", "warn", "error", "off"};
  Field field = make_field(section, key, describe_choices(kLevels));
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const std::string text = scalar_of(node, subject, allowed);
    const std::string word = lower(text);
    if (std::find(kLevels.begin(), kLevels.end(), word) == kLevels.end()) {
      fail_value(subject, allowed, "'" + text + "'");
    }
    m.of(config) = word;
  };
  field.write = [m](const Config& config) { return m.of(config); };
  field.valid = [m](const Config& config) {
    return std::find(kLevels.begin(), kLevels.end(), m.of(config)) != kLevels.end();
  };
  return field;
}

inline bool is_valid_delimiter(char c) { return c != '"' && c != '\n' && c != '\r'; }

// The CSV delimiter: `auto` (detect), `tab`, or one character. A literal backslash-t is a
// tab too, since that is what people type on a command line.
template <typename Section>
Field delimiter_field(const char* section, const char* key, Member<Section, char> m) {
  Field field = make_field(section, key, "auto, tab or a single character other than a quote or line break");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    if (!node.IsScalar()) fail_value(subject, allowed, describe_node(node));
    const std::string text = node.Scalar();  // not trimmed: " " is a valid delimiter
    char value = 0;
    if (lower(text) == "auto") {
      value = 0;
    } else if (lower(text) == "tab" || text == "\\t" || text == "\t") {
      value = '\t';
    } else if (text.size() == 1 && text[0] != '\0' && is_valid_delimiter(text[0])) {
      value = text[0];
    } else {
      fail_value(subject, allowed, describe_node(node));
    }
    m.of(config) = value;
  };
  field.write = [m](const Config& config) {
    const char c = m.of(config);
    if (c == 0) return std::string("auto");
    if (c == '\t') return std::string("tab");
    return quote(std::string(1, c));
  };
  field.valid = [m](const Config& config) {
    const char c = m.of(config);
    return c == 0 || is_valid_delimiter(c);
  };
  return field;
}

// "auto" (stored as `auto_value`, a sentinel outside `range`, so that no number reads as
// "auto") or a number in `range`: the output ridge (chosen on validation), the dependency
// tolerance (chosen from the precision).
template <typename Section>
Field auto_or_real_field(const char* section, const char* key, Member<Section, double> m, double auto_value,
                         RealRange range) {
  Field field = make_field(section, key, "'auto' or a number " + range.describe());
  const std::string allowed = field.allowed;
  field.read = [m, allowed, auto_value, range](Config& config, const Node& node, const std::string& subject) {
    const bool automatic = node.IsScalar() && scalar_of(node, subject, allowed) == "auto";
    const double value = automatic ? auto_value : read_real(node, subject, allowed);
    if (!automatic && !range.contains(value)) fail_value(subject, allowed, describe_node(node));
    m.of(config) = value;
  };
  field.write = [m, auto_value](const Config& config) {
    return m.of(config) == auto_value ? std::string("auto") : format_real(m.of(config));
  };
  field.valid = [m, auto_value, range](const Config& config) {
    return m.of(config) == auto_value || range.contains(m.of(config));
  };
  return field;
}

}  // namespace rbf::model::config_detail
