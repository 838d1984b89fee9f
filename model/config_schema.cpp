// The YAML schema of model::Config: one table of fields drives reading, writing and validation,
// so a key cannot be readable but unchecked, or checked but missing from the written form.
#include "model/config_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "model/config_messages.hpp"
#include "model/config_scalars.hpp"
#include "model/config_yaml.hpp"

namespace rbf::model::config_detail {
namespace {

using YAML::Node;

const char* const kSections[] = {"data", "candidates", "trainer", "stopping", "refine", "backend", "logging", "output"};

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
    if (node.IsSequence()) {
      for (const Node& item : node) values.push_back(read_real(item, subject, allowed));
    } else {
      values.push_back(read_real(node, subject, allowed));
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

// CUDA device indices, one row shard each; a single index is a list of one. No value (`~`)
// is the default, no list; an empty list is refused, since it names no device to run on.
template <typename Section>
Field device_list_field(const char* section, const char* key, Member<Section, std::vector<int>> m) {
  Field field = make_field(section, key, "a non-empty list of CUDA device indices >= 0");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    std::vector<int> values;
    if (node.IsSequence()) {
      for (const Node& item : node) values.push_back(read_int(item, subject, allowed));
      if (values.empty()) fail_value(subject, allowed, "an empty list");
    } else if (!node.IsNull()) {
      values.push_back(read_int(node, subject, allowed));
    }
    for (const int value : values)
      if (value < 0) fail_value(subject, allowed, std::to_string(value));
    m.of(config) = values;
  };
  field.write = [m](const Config& config) {
    if (m.of(config).empty()) return std::string("~");
    std::vector<std::string> items;
    for (const int value : m.of(config)) items.push_back(std::to_string(value));
    return "[" + join(items, ", ") + "]";
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


// A penalty >= 0, or "auto" (stored as kOutputRidgeAuto): chosen on validation.
template <typename Section>
Field auto_penalty_field(const char* section, const char* key, Member<Section, double> m) {
  Field field = make_field(section, key, "'auto' or a number >= 0");
  const std::string allowed = field.allowed;
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const bool automatic = node.IsScalar() && scalar_of(node, subject, allowed) == "auto";
    const double value = automatic ? kOutputRidgeAuto : read_real(node, subject, allowed);
    // The sentinel is negative: a negative number must not read as 'auto'.
    if (!automatic && !(value >= 0)) fail_value(subject, allowed, describe_node(node));
    m.of(config) = value;
  };
  field.write = [m](const Config& config) {
    return m.of(config) == kOutputRidgeAuto ? std::string("auto") : format_real(m.of(config));
  };
  field.valid = [m](const Config& config) {
    return m.of(config) == kOutputRidgeAuto || (std::isfinite(m.of(config)) && m.of(config) >= 0);
  };
  return field;
}

// data.folds: "auto" (kFoldsAuto), 0 (off) or a fold count in [2, 20].
Field folds_field() {
  Field field = make_field("data", "folds", "'auto', 0 or an integer from 2 to 20");
  const std::string allowed = field.allowed;
  Member<DataConfig, std::size_t> m = member(&Config::data, &DataConfig::folds);
  field.read = [m, allowed](Config& config, const Node& node, const std::string& subject) {
    const bool automatic = node.IsScalar() && scalar_of(node, subject, allowed) == "auto";
    m.of(config) = automatic ? kFoldsAuto : static_cast<std::size_t>(read_unsigned(node, subject, allowed, 20));
  };
  field.write = [m](const Config& config) {
    return m.of(config) == kFoldsAuto ? std::string("auto") : std::to_string(m.of(config));
  };
  field.valid = [m](const Config& config) {
    const std::size_t k = m.of(config);
    return k == kFoldsAuto || k == 0 || (k >= 2 && k <= 20);
  };
  return field;
}

// trainer.dependency_tol: "auto" (kDependencyTolAuto) or a number in (0, 1).
Field dependency_tol_field() {
  Field field = make_field("trainer", "dependency_tol", "'auto' or a number in (0, 1)");
  const std::string allowed = field.allowed;
  Member<TrainerConfig, double> m = member(&Config::trainer, &TrainerConfig::dependency_tol);
  auto in_range = [](double v) { return v > 0 && v < 1; };
  field.read = [m, allowed, in_range](Config& config, const Node& node, const std::string& subject) {
    const bool automatic = node.IsScalar() && scalar_of(node, subject, allowed) == "auto";
    const double value = automatic ? kDependencyTolAuto : read_real(node, subject, allowed);
    if (!automatic && !in_range(value)) fail_value(subject, allowed, describe_node(node));
    m.of(config) = value;
  };
  field.write = [m](const Config& config) {
    return m.of(config) == kDependencyTolAuto ? std::string("auto") : format_real(m.of(config));
  };
  field.valid = [m, in_range](const Config& config) {
    return m.of(config) == kDependencyTolAuto || in_range(m.of(config));
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
  f.push_back(bool_field("data", "stratify", member(&C::data, &DataConfig::stratify)));
  f.push_back(text_field("data", "validation_path", member(&C::data, &DataConfig::validation_path), true,
                         "a CSV file name"));
  f.push_back(folds_field());
  f.push_back(bool_field("data", "average_folds", member(&C::data, &DataConfig::average_folds)));
  // candidates
  f.push_back(unsigned_field("candidates", "pool", member(&C::candidates, &CandidateConfig::pool), std::size_t{1}));
  f.push_back(
      positive_list_field("candidates", "width_factors", member(&C::candidates, &CandidateConfig::width_factors)));
  f.push_back(real_field("candidates", "sigma0", member(&C::candidates, &CandidateConfig::sigma0),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("candidates", "sigma0_sample", member(&C::candidates, &CandidateConfig::sigma0_sample),
                             std::size_t{2}));
  f.push_back(memory_cap_field("candidates", "memory_budget_mb", member(&C::candidates, &CandidateConfig::memory_budget_mb)));
  // trainer
  f.push_back(
      choice_field("trainer", "strategy", member(&C::trainer, &TrainerConfig::strategy),
                   std::vector<Choice<Strategy>>{{Strategy::ols, "ols"}, {Strategy::max_residual, "max_residual"}}));
  f.push_back(real_field("trainer", "lambda", member(&C::trainer, &TrainerConfig::lambda),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(auto_penalty_field("trainer", "output_ridge", member(&C::trainer, &TrainerConfig::output_ridge)));
  f.push_back(choice_field("trainer", "linear_terms", member(&C::trainer, &TrainerConfig::linear_terms),
                           std::vector<Choice<LinearTerms>>{{LinearTerms::auto_select, "auto"},
                                                            {LinearTerms::on, "on"},
                                                            {LinearTerms::off, "off"}}));
  f.push_back(dependency_tol_field());
  f.push_back(choice_field("trainer", "precision", member(&C::trainer, &TrainerConfig::precision),
                           std::vector<Choice<Precision>>{{Precision::float32, "float32"},
                                                          {Precision::float64, "float64"},
                                                          {Precision::auto_select, "auto"}}));
  // OpenMP starts every thread asked for: 100000 of them exhaust the process limit and crash.
  f.push_back(int_field("trainer", "threads", member(&C::trainer, &TrainerConfig::threads), 0, 1024));
  // stopping
  f.push_back(
      unsigned_field("stopping", "max_nodes", member(&C::stopping, &StoppingConfig::max_nodes), std::size_t{1}));
  f.push_back(real_field("stopping", "goal", member(&C::stopping, &StoppingConfig::goal),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("stopping", "patience", member(&C::stopping, &StoppingConfig::patience), std::size_t{0}));
  f.push_back(bool_field("stopping", "refit", member(&C::stopping, &StoppingConfig::refit)));
  f.push_back(real_field("stopping", "max_seconds", member(&C::stopping, &StoppingConfig::max_seconds),
                         RealRange{0.0, false, kNoLimit, false}));
  // refine
  f.push_back(unsigned_field("refine", "every", member(&C::refine, &RefineConfig::every), std::size_t{0}));
  f.push_back(bool_field("refine", "at_end", member(&C::refine, &RefineConfig::at_end)));
  f.push_back(choice_field("refine", "method", member(&C::refine, &RefineConfig::method),
                           std::vector<Choice<RefineMethod>>{{RefineMethod::adam, "adam"},
                                                                             {RefineMethod::lm, "lm"},
                                                                             {RefineMethod::auto_select, "auto"}}));
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
  f.push_back(device_list_field("backend", "gpu_devices", member(&C::backend, &BackendConfig::gpu_devices)));
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

}  // namespace

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

void check_fields(const Config& config, const KeyNamer& name_key) {
  for (const Field& field : fields()) {
    if (!field.valid(config)) {
      fail_value(name_key(field.path()), field.allowed, field.write(config));
    }
  }
}

}  // namespace rbf::model::config_detail

namespace rbf::model {

using config_detail::check_fields;
using config_detail::Field;
using config_detail::fields;
using config_detail::find_field;

void validate_config(const Config& config) {
  check_fields(config, [](const std::string& key) { return "'" + key + "'"; });
}

void validate_config(const Config& config, const std::function<std::string(const std::string& key_path)>& name_key) {
  check_fields(config, name_key);
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
