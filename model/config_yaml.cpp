// The YAML schema of model::Config: one table of fields drives reading, writing and validation,
// so a key cannot be readable but unchecked, or checked but missing from the written form.
#include "model/config_yaml.hpp"

#include <sys/stat.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "data/errors.hpp"

namespace rbf::model {
namespace {

using YAML::Node;

// Turns a key path into the subject of an error message (a file position, a flag).
using KeyNamer = std::function<std::string(const std::string& key_path)>;

const char* const kSections[] = {"data", "candidates", "trainer", "stopping", "refine", "backend", "logging", "output"};

// ---------------------------------------------------------------------------------------------
// Text helpers

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

// Shortest decimal text that reads back to exactly `value`, so written configs round-trip.
std::string format_real(double value) {
  char buffer[40];
  // Whole numbers as such: "10", not "1e+01".
  if (std::abs(value) < 1e15 && value == std::floor(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

// A YAML double-quoted scalar; every string is written this way so that no file name or
// column name can be mistaken for YAML syntax.
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

// How a node looks in "got ..." messages; long scalars are shortened so messages stay one line.
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

// "FILE:LINE:COL: " for a position in the file, "FILE: " when the position is unknown.
std::string at(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return name + ": ";
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
}

[[noreturn]] void fail_value(const std::string& subject, const std::string& allowed, const std::string& got) {
  throw InputError(subject + " must be " + allowed + ", got " + got);
}

// The scalar text of `node`; a map, a list or a missing value is a type error.
std::string scalar_of(const Node& node, const std::string& subject, const std::string& allowed) {
  if (!node.IsScalar()) fail_value(subject, allowed, describe_node(node));
  return trim(node.Scalar());
}

// ---------------------------------------------------------------------------------------------
// Scalar parsers: strict (the whole text must be the number) and locale-free in practice,
// since rbfnet never changes the C locale.

bool parse_unsigned(const std::string& text, std::uint64_t& out) {
  std::string digits = text;
  if (!digits.empty() && digits[0] == '+') digits.erase(0, 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  errno = 0;
  const unsigned long long value = std::strtoull(digits.c_str(), nullptr, 10);
  if (errno == ERANGE || value > std::numeric_limits<std::uint64_t>::max()) return false;
  out = static_cast<std::uint64_t>(value);
  return true;
}

bool parse_signed(const std::string& text, long long& out) {
  std::size_t start = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (start == text.size() || !std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                                           [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  errno = 0;
  out = std::strtoll(text.c_str(), nullptr, 10);
  return errno != ERANGE;
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  // strtod also accepts hex floats, "nan" and "inf"; a config wants plain finite decimals.
  if (text.find_first_of("xXnN") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) return false;
  out = value;
  return true;
}

bool parse_bool(const std::string& text, bool& out) {
  const std::string word = lower(text);
  if (word == "true" || word == "yes" || word == "on") {
    out = true;
    return true;
  }
  if (word == "false" || word == "no" || word == "off") {
    out = false;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The field table

// One key of the schema. `read` parses a node into the config (type errors), `write` gives the
// YAML text of the current value, `valid` checks the range; `allowed` is shared by all messages.
struct Field {
  std::string section;
  std::string key;
  std::string allowed;
  std::function<void(Config&, const Node&, const std::string& subject)> read;
  std::function<std::string(const Config&)> write;
  std::function<bool(const Config&)> valid;

  std::string path() const { return section + "." + key; }
};

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

Field make_field(const char* section, const char* key, std::string allowed) {
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
    const std::string text = scalar_of(node, subject, allowed);
    std::uint64_t value = 0;
    if (!parse_unsigned(text, value) || value > std::numeric_limits<Unsigned>::max()) {
      fail_value(subject, allowed, "'" + text + "'");
    }
    m.of(config) = static_cast<Unsigned>(value);
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
    const std::string text = scalar_of(node, subject, allowed);
    long long value = 0;
    if (!parse_signed(text, value) || value < std::numeric_limits<int>::min() ||
        value > std::numeric_limits<int>::max()) {
      fail_value(subject, allowed, "'" + text + "'");
    }
    m.of(config) = static_cast<int>(value);
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
    const std::string text = scalar_of(node, subject, allowed);
    double value = 0.0;
    if (!parse_real(text, value)) fail_value(subject, allowed, "'" + text + "'");
    m.of(config) = value;
  };
  field.write = [m](const Config& config) { return format_real(m.of(config)); };
  field.valid = [m, range](const Config& config) { return range.contains(m.of(config)); };
  return field;
}

template <typename Section>
Field bool_field(const char* section, const char* key, Member<Section, bool> m) {
  Field field = make_field(section, key, "true or false");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const std::string text = scalar_of(node, subject, allowed);
    bool value = false;
    if (!parse_bool(text, value)) fail_value(subject, allowed, "'" + text + "'");
    m.of(config) = value;
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
    m.of(config) = node.IsNull() ? std::string() : scalar_of(node, subject, allowed_text);
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
    std::vector<std::string> values;
    if (node.IsSequence()) {
      for (const Node& item : node) values.push_back(scalar_of(item, subject, allowed));
    } else if (!node.IsNull()) {
      values.push_back(scalar_of(node, subject, allowed));
    }
    m.of(config) = values;
  };
  field.write = [m](const Config& config) {
    std::vector<std::string> items;
    for (const std::string& value : m.of(config)) items.push_back(quote(value));
    return "[" + join(items, ", ") + "]";
  };
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
    std::vector<double> values;
    auto add = [&](const Node& item) {
      const std::string text = scalar_of(item, subject, allowed);
      double value = 0.0;
      if (!parse_real(text, value)) fail_value(subject, allowed, "'" + text + "'");
      values.push_back(value);
    };
    if (node.IsSequence()) {
      for (const Node& item : node) add(item);
    } else {
      add(node);
    }
    m.of(config) = values;
  };
  field.write = [m](const Config& config) {
    std::vector<std::string> items;
    for (const double value : m.of(config)) items.push_back(format_real(value));
    return "[" + join(items, ", ") + "]";
  };
  field.valid = [m](const Config& config) {
    const auto& values = m.of(config);
    return !values.empty() &&
           std::all_of(values.begin(), values.end(), [](double value) { return std::isfinite(value) && value > 0.0; });
  };
  return field;
}

template <typename Enum>
struct Choice {
  Enum value;
  const char* name;
};

template <typename Enum>
std::string describe_choices(const std::vector<Choice<Enum>>& choices) {
  std::vector<std::string> names;
  for (const auto& choice : choices) names.push_back(choice.name);
  return "one of " + join(names, ", ");
}

// An enumeration written by name; names are matched without regard to case.
template <typename Section, typename Enum>
Field choice_field(const char* section, const char* key, Member<Section, Enum> m, std::vector<Choice<Enum>> choices) {
  Field field = make_field(section, key, describe_choices(choices));
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
  Field field = make_field(section, key, "one of " + join(kLevels, ", "));
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

bool is_valid_delimiter(char c) { return c != '"' && c != '\n' && c != '\r'; }

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

std::vector<Field> build_fields() {
  using C = Config;
  std::vector<Field> f;
  // data
  f.push_back(text_field("data", "path", member(&C::data, &DataConfig::path), true, "a CSV file name"));
  f.push_back(column_list_field("data", "target", member(&C::data, &DataConfig::target)));
  f.push_back(column_list_field("data", "features", member(&C::data, &DataConfig::features)));
  f.push_back(delimiter_field("data", "delimiter", member(&C::data, &DataConfig::delimiter)));
  f.push_back(unsigned_field("data", "skip_rows", member(&C::data, &DataConfig::skip_rows), std::size_t{0}));
  f.push_back(choice_field("data", "task", member(&C::data, &DataConfig::task),
                           std::vector<Choice<TaskKind>>{{TaskKind::auto_detect, "auto"},
                                                         {TaskKind::regression, "regression"},
                                                         {TaskKind::classification, "classification"}}));
  f.push_back(
      real_field("data", "validation", member(&C::data, &DataConfig::validation), RealRange{0.0, false, 0.9, false}));
  f.push_back(unsigned_field("data", "seed", member(&C::data, &DataConfig::seed), std::uint64_t{0}));
  // candidates
  f.push_back(unsigned_field("candidates", "pool", member(&C::candidates, &CandidateConfig::pool), std::size_t{1}));
  f.push_back(
      positive_list_field("candidates", "width_factors", member(&C::candidates, &CandidateConfig::width_factors)));
  f.push_back(real_field("candidates", "sigma0", member(&C::candidates, &CandidateConfig::sigma0),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("candidates", "sigma0_sample", member(&C::candidates, &CandidateConfig::sigma0_sample),
                             std::size_t{2}));
  f.push_back(real_field("candidates", "memory_budget_mb", member(&C::candidates, &CandidateConfig::memory_budget_mb),
                         RealRange{0.0, false, kNoLimit, false}));
  // trainer
  f.push_back(
      choice_field("trainer", "strategy", member(&C::trainer, &TrainerConfig::strategy),
                   std::vector<Choice<Strategy>>{{Strategy::ols, "ols"}, {Strategy::max_residual, "max_residual"}}));
  f.push_back(real_field("trainer", "lambda", member(&C::trainer, &TrainerConfig::lambda),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(real_field("trainer", "dependency_tol", member(&C::trainer, &TrainerConfig::dependency_tol),
                         RealRange{0.0, true, 1.0, true}));
  f.push_back(
      choice_field("trainer", "precision", member(&C::trainer, &TrainerConfig::precision),
                   std::vector<Choice<Precision>>{{Precision::float32, "float32"}, {Precision::float64, "float64"}}));
  // OpenMP starts every thread asked for: 100000 of them exhaust the process limit and crash.
  f.push_back(int_field("trainer", "threads", member(&C::trainer, &TrainerConfig::threads), 0, 1024));
  // stopping
  f.push_back(
      unsigned_field("stopping", "max_nodes", member(&C::stopping, &StoppingConfig::max_nodes), std::size_t{1}));
  f.push_back(real_field("stopping", "goal", member(&C::stopping, &StoppingConfig::goal),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("stopping", "patience", member(&C::stopping, &StoppingConfig::patience), std::size_t{0}));
  f.push_back(real_field("stopping", "max_seconds", member(&C::stopping, &StoppingConfig::max_seconds),
                         RealRange{0.0, false, kNoLimit, false}));
  // refine
  f.push_back(unsigned_field("refine", "every", member(&C::refine, &RefineConfig::every), std::size_t{0}));
  f.push_back(bool_field("refine", "at_end", member(&C::refine, &RefineConfig::at_end)));
  f.push_back(choice_field("refine", "method", member(&C::refine, &RefineConfig::method),
                           std::vector<Choice<RefineMethod>>{{RefineMethod::adam, "adam"}, {RefineMethod::lm, "lm"}}));
  f.push_back(unsigned_field("refine", "epochs", member(&C::refine, &RefineConfig::epochs), std::size_t{1}));
  f.push_back(real_field("refine", "learning_rate", member(&C::refine, &RefineConfig::learning_rate),
                         RealRange{0.0, true, 10.0, false}));
  f.push_back(real_field("refine", "damping", member(&C::refine, &RefineConfig::damping),
                         RealRange{0.0, true, 1e10, false}));
  f.push_back(real_field("refine", "ridge", member(&C::refine, &RefineConfig::ridge),
                         RealRange{0.0, false, 1e6, false}));
  f.push_back(unsigned_field("refine", "patience", member(&C::refine, &RefineConfig::patience), std::size_t{0}));
  // backend
  f.push_back(
      choice_field("backend", "kind", member(&C::backend, &BackendConfig::kind),
                   std::vector<Choice<BackendKind>>{
                       {BackendKind::cpu, "cpu"}, {BackendKind::gpu, "gpu"}, {BackendKind::auto_select, "auto"}}));
  f.push_back(unsigned_field("backend", "switch_at_nodes", member(&C::backend, &BackendConfig::switch_at_nodes),
                             std::size_t{0}));
  f.push_back(unsigned_field("backend", "confirm", member(&C::backend, &BackendConfig::confirm), std::size_t{1}));
  f.push_back(int_field("backend", "gpu_device", member(&C::backend, &BackendConfig::gpu_device), 0));
  f.push_back(real_field("backend", "gpu_memory_budget_mb", member(&C::backend, &BackendConfig::gpu_memory_budget_mb),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(choice_field(
      "backend", "gpu_memory", member(&C::backend, &BackendConfig::gpu_memory),
      std::vector<Choice<GpuMemory>>{
          {GpuMemory::auto_select, "auto"}, {GpuMemory::device, "device"}, {GpuMemory::mapped, "mapped"}}));
  f.push_back(real_field("backend", "gpu_overhead_ms", member(&C::backend, &BackendConfig::gpu_overhead_ms),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(real_field("backend", "gpu_bandwidth_gbs", member(&C::backend, &BackendConfig::gpu_bandwidth_gbs),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(real_field("backend", "gpu_gflops", member(&C::backend, &BackendConfig::gpu_gflops),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(real_field("backend", "migration_fixed_ms", member(&C::backend, &BackendConfig::migration_fixed_ms),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(real_field("backend", "migration_gbs", member(&C::backend, &BackendConfig::migration_gbs),
                         RealRange{0.0, false, kNoLimit, false}));
  // logging
  f.push_back(level_field("logging", "level", member(&C::logging, &LoggingConfig::level)));
  f.push_back(text_field("logging", "iteration_log", member(&C::logging, &LoggingConfig::iteration_log), true,
                         "a file name (empty for none)"));
  f.push_back(bool_field("logging", "progress", member(&C::logging, &LoggingConfig::progress)));
  // output
  f.push_back(text_field("output", "model", member(&C::output, &OutputConfig::model), false, "a non-empty file name"));
  f.push_back(unsigned_field("output", "checkpoint_every", member(&C::output, &OutputConfig::checkpoint_every),
                             std::size_t{0}));
  f.push_back(text_field("output", "checkpoint", member(&C::output, &OutputConfig::checkpoint), true,
                         "a file name (empty for MODEL.ckpt)"));
  return f;
}

const std::vector<Field>& fields() {
  static const std::vector<Field> kFields = build_fields();
  return kFields;
}

const Field* find_field(const std::string& section, const std::string& key) {
  for (const Field& field : fields()) {
    if (field.section == section && field.key == key) return &field;
  }
  return nullptr;
}

const Field* find_field(const std::string& key_path) {
  const auto dot = key_path.find('.');
  if (dot == std::string::npos) return nullptr;
  return find_field(key_path.substr(0, dot), key_path.substr(dot + 1));
}

bool is_section(const std::string& name) {
  return std::find(std::begin(kSections), std::end(kSections), name) != std::end(kSections);
}

std::vector<std::string> keys_of(const std::string& section) {
  std::vector<std::string> keys;
  for (const Field& field : fields()) {
    if (field.section == section) keys.push_back(field.key);
  }
  return keys;
}

std::vector<std::string> section_names() {
  return std::vector<std::string>(std::begin(kSections), std::end(kSections));
}

// ---------------------------------------------------------------------------------------------
// Unknown keys

// "unknown section 'traner' (did you mean 'trainer'?)"; a section-level key that belongs in a
// section ("lambda:" at the top) points to its full path.
std::string unknown_section_message(const std::string& name) {
  std::string suggestion = closest_match(name, section_names());
  if (suggestion.empty()) {
    std::vector<std::string> paths;
    for (const Field& field : fields()) paths.push_back(field.key);
    const std::string key = closest_match(name, paths);
    for (const Field& field : fields()) {
      if (!key.empty() && field.key == key) {
        suggestion = field.path();
        break;
      }
    }
  }
  if (!suggestion.empty()) {
    return "unknown section '" + name + "' (did you mean '" + suggestion + "'?)";
  }
  return "unknown section '" + name + "'; the sections are " + join(section_names(), ", ");
}

// "unknown key 'trainer.lamda' (did you mean 'trainer.lambda'?)": first a near key in the same
// section, then the same or a near key in another section, else the list of valid keys.
std::string unknown_key_message(const std::string& section, const std::string& key) {
  const std::string path = section + "." + key;
  std::string suggestion;
  const std::string near_key = closest_match(key, keys_of(section));
  if (!near_key.empty()) {
    suggestion = section + "." + near_key;
  } else {
    std::vector<std::string> other_keys;
    for (const Field& field : fields()) other_keys.push_back(field.key);
    const std::string other = closest_match(key, other_keys);
    for (const Field& field : fields()) {
      if (!other.empty() && field.key == other) {
        suggestion = field.path();
        break;
      }
    }
  }
  if (!suggestion.empty()) {
    return "unknown key '" + path + "' (did you mean '" + suggestion + "'?)";
  }
  return "unknown key '" + path + "'; the keys of '" + section + "' are " + join(keys_of(section), ", ");
}

// ---------------------------------------------------------------------------------------------
// Reading a document

struct Seen {
  std::map<std::string, int> lines;  // key -> line of first occurrence (1-based)

  void add(const std::string& name, const std::string& key, const std::string& what, const YAML::Mark& mark) {
    const auto it = lines.find(key);
    if (it != lines.end()) {
      throw InputError(at(name, mark) + "duplicate " + what + " '" + key + "' (first given on line " +
                       std::to_string(it->second) + ")");
    }
    lines[key] = mark.is_null() ? 0 : mark.line + 1;
  }
};

// Reads the sections of `root` into `config`; `positions` receives "FILE:LINE:COL: " for
// every key given, so that range errors found afterwards can point at the value.
void read_document(Config& config, const Node& root, const std::string& name,
                   std::map<std::string, std::string>& positions) {
  if (!root.IsDefined() || root.IsNull()) return;
  if (!root.IsMap()) {
    throw InputError(at(name, root.Mark()) + "a config must be a map of sections (" + join(section_names(), ", ") +
                     "), got " + describe_node(root));
  }
  Seen seen_sections;
  for (auto section_it = root.begin(); section_it != root.end(); ++section_it) {
    const Node section_key = section_it->first;
    const Node section_value = section_it->second;
    if (!section_key.IsScalar()) {
      throw InputError(at(name, section_key.Mark()) + "section names must be plain words, got " +
                       describe_node(section_key));
    }
    const std::string section = section_key.Scalar();
    if (!is_section(section)) {
      throw InputError(at(name, section_key.Mark()) + unknown_section_message(section));
    }
    seen_sections.add(name, section, "section", section_key.Mark());
    if (section_value.IsNull()) continue;  // "trainer:" alone keeps the defaults
    if (!section_value.IsMap()) {
      const YAML::Mark mark = section_value.Mark().is_null() ? section_key.Mark() : section_value.Mark();
      throw InputError(at(name, mark) + "'" + section + "' must be a map of keys (" + join(keys_of(section), ", ") +
                       "), got " + describe_node(section_value));
    }
    Seen seen_keys;
    for (auto it = section_value.begin(); it != section_value.end(); ++it) {
      const Node key_node = it->first;
      const Node value = it->second;
      if (!key_node.IsScalar()) {
        throw InputError(at(name, key_node.Mark()) + "keys of '" + section + "' must be plain words, got " +
                         describe_node(key_node));
      }
      const std::string key = key_node.Scalar();
      const Field* field = find_field(section, key);
      if (field == nullptr) {
        throw InputError(at(name, key_node.Mark()) + unknown_key_message(section, key));
      }
      seen_keys.add(name, field->path(), "key", key_node.Mark());
      // yaml-cpp places an empty value where the next token starts; the key is clearer.
      const YAML::Mark mark = value.IsNull() || value.Mark().is_null() ? key_node.Mark() : value.Mark();
      positions[field->path()] = at(name, mark);
      field->read(config, value, at(name, mark) + "'" + field->path() + "'");
    }
  }
}

void check_fields(const Config& config, const KeyNamer& name_key) {
  for (const Field& field : fields()) {
    if (!field.valid(config)) {
      fail_value(name_key(field.path()), field.allowed, field.write(config));
    }
  }
}

// Damerau-Levenshtein (optimal string alignment): a swapped pair of letters counts as one edit.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// Case, dashes and underscores do not count as differences: "max-nodes" means "max_nodes".
std::string normalized(const std::string& word) {
  std::string out = lower(word);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// The style argument of EventHandler::OnSequenceStart/OnMapStart is `EmitterStyle::value` in
// yaml-cpp 0.7 and an `enum class EmitterStyle` in later sources; taking the type from the
// base class keeps one set of overrides for both.
template <typename Method>
struct StyleArgument;
template <typename Style>
struct StyleArgument<void (YAML::EventHandler::*)(const YAML::Mark&, const std::string&, YAML::anchor_t, Style)> {
  using type = Style;
};
using EmitterStyleArgument = StyleArgument<decltype(&YAML::EventHandler::OnSequenceStart)>::type;

// Records where the root node of each document of a YAML stream starts, and nothing else.
class DocumentRoots : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;

  void OnDocumentStart(const YAML::Mark& mark) override {
    marks.push_back(mark);
    root_pending_ = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node_at(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, EmitterStyleArgument) override {
    node_at(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, EmitterStyleArgument) override {
    node_at(mark);
  }
  void OnMapEnd() override {}

 private:
  void node_at(const YAML::Mark& mark) {
    if (root_pending_) marks.back() = mark;
    root_pending_ = false;
  }
  bool root_pending_ = false;
};

// A config is one YAML document. YAML::LoadAll cannot say so safely: on a token that no rule
// consumes (a stray ',' at the top level) yaml-cpp returns an empty document without moving
// on, and LoadAll collects such documents forever (yaml-cpp issue 1040, fixed after 0.8).
// So at most three documents are parsed here, and a document that starts where the previous
// one started is the syntax error it is. Throws InputError; yaml-cpp exceptions pass through.
void check_single_document(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentRoots roots;
  while (roots.marks.size() < 3 && parser.HandleNextDocument(roots)) {
    const std::size_t count = roots.marks.size();
    if (count >= 2 && roots.marks[count - 1].pos == roots.marks[count - 2].pos) {
      const YAML::Mark& mark = roots.marks[count - 1];
      const std::size_t pos = static_cast<std::size_t>(std::max(mark.pos, 0));
      const std::string what = pos < text.size() ? "unexpected '" + std::string(1, text[pos]) + "'" : "unexpected text";
      throw InputError(at(name, mark) + "YAML syntax error: " + what);
    }
  }
  if (roots.marks.size() > 1) {
    throw InputError(at(name, roots.marks[1]) + "a config holds one YAML document, but a second one starts here");
  }
}

// Tabs in indentation are the most common cause of a puzzling YAML syntax error; say so.
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public functions

std::string closest_match(const std::string& word, const std::vector<std::string>& choices) {
  const std::string target = normalized(word);
  if (target.empty()) return std::string();
  // Allow about one edit per three letters, at least one and at most three.
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, target.size() / 3));
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& choice : choices) {
    const std::size_t distance = edit_distance(target, normalized(choice));
    if (distance < best_distance) {
      best_distance = distance;
      best = choice;
    }
  }
  return best;
}

Config parse_config(const std::string& yaml_text, const std::string& name) {
  Config config;
  std::map<std::string, std::string> positions;
  if (yaml_text.find('\0') != std::string::npos) {
    throw InputError(name + ": is not a YAML text file (it contains NUL bytes)");
  }
  // yaml-cpp exceptions never leave this function: each becomes one InputError sentence.
  try {
    check_single_document(yaml_text, name);
    read_document(config, YAML::Load(yaml_text), name, positions);
  } catch (const YAML::ParserException& e) {
    throw InputError(at(name, e.mark) + "YAML syntax error: " + e.msg + tab_indent_hint(yaml_text, e.mark));
  } catch (const YAML::Exception& e) {
    throw InputError(at(name, e.mark) + "cannot read the config: " + e.msg);
  }
  check_fields(config, [&](const std::string& key) {
    const auto it = positions.find(key);
    return (it != positions.end() ? it->second : name + ": ") + "'" + key + "'";
  });
  return config;
}

Config load_config(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError("cannot open config file '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    throw InputError("cannot read config file '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open config file '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError("cannot read config file '" + path + "'");
  return parse_config(text.str(), path);
}

std::string config_to_yaml(const Config& config) {
  std::string out;
  std::string section;
  for (const Field& field : fields()) {
    if (field.section != section) {
      section = field.section;
      out += section + ":\n";
    }
    out += "  " + field.key + ": " + field.write(config) + "\n";
  }
  return out;
}

void validate_config(const Config& config) {
  check_fields(config, [](const std::string& key) { return "'" + key + "'"; });
}

void validate_config(const Config& config, const std::function<std::string(const std::string& key_path)>& name_key) {
  check_fields(config, name_key);
}

void apply_overrides(Config& config, const std::vector<ConfigOverride>& overrides) {
  std::map<std::string, std::string> flags;
  try {
    for (const ConfigOverride& override_value : overrides) {
      const Field* field = find_field(override_value.key_path);
      if (field == nullptr) {
        throw std::invalid_argument("no config key '" + override_value.key_path + "'");
      }
      Node node;
      if (override_value.values.size() == 1) {
        node = Node(override_value.values[0]);
      } else {
        node = Node(YAML::NodeType::Sequence);
        for (const std::string& value : override_value.values) node.push_back(value);
      }
      field->read(config, node, override_value.flag);
      flags[field->path()] = override_value.flag;
    }
  } catch (const YAML::Exception& e) {
    throw InputError("cannot apply a command-line value: " + e.msg);
  }
  check_fields(config, [&](const std::string& key) {
    const auto it = flags.find(key);
    return it != flags.end() ? it->second : "'" + key + "'";
  });
}

std::string config_value_to_yaml(const Config& config, const std::string& key_path) {
  const Field* field = find_field(key_path);
  if (field == nullptr) throw std::invalid_argument("no config key '" + key_path + "'");
  return field->write(config);
}

std::vector<std::string> config_key_paths() {
  std::vector<std::string> paths;
  for (const Field& field : fields()) paths.push_back(field.path());
  return paths;
}

}  // namespace rbf::model
