// The YAML schema of model::Config: one table of fields drives reading, writing and validation,
// so a key cannot be readable but unchecked, or checked but missing from the written form.
#include "model/config_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "model/config_field_kinds.hpp"
#include "model/config_messages.hpp"
#include "model/config_scalars.hpp"
#include "model/config_yaml.hpp"

namespace rbf::model::config_detail {
namespace {

const char* const kSections[] = {"data", "candidates", "trainer", "stopping", "refine", "backend", "logging", "output"};

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

// The data section's keys, in the order configs/default.yaml lists them.
void add_data_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(text_field("data", "path", member(&C::data, &DataConfig::path), true, "a CSV file name"));
  f.push_back(column_list_field("data", "target", member(&C::data, &DataConfig::target)));
  f.push_back(column_list_field("data", "features", member(&C::data, &DataConfig::features)));
  f.push_back(text_field("data", "weight", member(&C::data, &DataConfig::weight), true,
                         "a column name or 0-based index, or empty for none"));
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
  f.push_back(choice_field("data", "categorical", member(&C::data, &DataConfig::categorical),
                           std::vector<Choice<bool>>{{true, "auto"}, {false, "off"}}));
  f.push_back(choice_field("data", "missing", member(&C::data, &DataConfig::missing),
                           std::vector<Choice<bool>>{{true, "auto"}, {false, "off"}}));
  f.push_back(
      unsigned_field("data", "rare_level_rows", member(&C::data, &DataConfig::rare_level_rows), std::size_t{1}));
  f.push_back(unsigned_field("data", "max_levels", member(&C::data, &DataConfig::max_levels), std::size_t{1}));
}

// The candidates section's keys, in the order configs/default.yaml lists them.
void add_candidates_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(unsigned_field("candidates", "pool", member(&C::candidates, &CandidateConfig::pool), std::size_t{1}));
  f.push_back(
      positive_list_field("candidates", "width_factors", member(&C::candidates, &CandidateConfig::width_factors)));
  f.push_back(real_field("candidates", "sigma0", member(&C::candidates, &CandidateConfig::sigma0),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("candidates", "sigma0_sample", member(&C::candidates, &CandidateConfig::sigma0_sample),
                             std::size_t{2}));
  f.push_back(memory_cap_field("candidates", "memory_budget_mb", member(&C::candidates, &CandidateConfig::memory_budget_mb)));
}

// The trainer section's keys, in the order configs/default.yaml lists them.
void add_trainer_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(
      choice_field("trainer", "strategy", member(&C::trainer, &TrainerConfig::strategy),
                   std::vector<Choice<Strategy>>{{Strategy::ols, "ols"}, {Strategy::max_residual, "max_residual"}}));
  f.push_back(real_field("trainer", "lambda", member(&C::trainer, &TrainerConfig::lambda),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(auto_or_real_field("trainer", "output_ridge", member(&C::trainer, &TrainerConfig::output_ridge),
                                 kOutputRidgeAuto, RealRange{0, false, kNoLimit, true}));
  f.push_back(choice_field("trainer", "linear_terms", member(&C::trainer, &TrainerConfig::linear_terms),
                           std::vector<Choice<LinearTerms>>{{LinearTerms::auto_select, "auto"},
                                                            {LinearTerms::on, "on"},
                                                            {LinearTerms::off, "off"}}));
  f.push_back(auto_or_real_field("trainer", "dependency_tol", member(&C::trainer, &TrainerConfig::dependency_tol),
                                 kDependencyTolAuto, RealRange{0, true, 1, true}));
  f.push_back(choice_field("trainer", "precision", member(&C::trainer, &TrainerConfig::precision),
                           std::vector<Choice<Precision>>{{Precision::float32, "float32"},
                                                          {Precision::float64, "float64"},
                                                          {Precision::auto_select, "auto"}}));
  // OpenMP starts every thread asked for: 100000 of them exhaust the process limit and crash.
  f.push_back(int_field("trainer", "threads", member(&C::trainer, &TrainerConfig::threads), 0, 1024));
  f.push_back(unsigned_field("trainer", "partitions", member(&C::trainer, &TrainerConfig::partitions), std::size_t{1}));
}

// The stopping section's keys, in the order configs/default.yaml lists them.
void add_stopping_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(
      unsigned_field("stopping", "max_nodes", member(&C::stopping, &StoppingConfig::max_nodes), std::size_t{1}));
  f.push_back(real_field("stopping", "goal", member(&C::stopping, &StoppingConfig::goal),
                         RealRange{0.0, false, kNoLimit, false}));
  f.push_back(unsigned_field("stopping", "patience", member(&C::stopping, &StoppingConfig::patience), std::size_t{0}));
  f.push_back(bool_field("stopping", "refit", member(&C::stopping, &StoppingConfig::refit)));
  f.push_back(real_field("stopping", "max_seconds", member(&C::stopping, &StoppingConfig::max_seconds),
                         RealRange{0.0, false, kNoLimit, false}));
}

// The refine section's keys, in the order configs/default.yaml lists them.
void add_refine_fields(std::vector<Field>& f) {
  using C = Config;
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
}

// The backend section's keys, in the order configs/default.yaml lists them.
void add_backend_fields(std::vector<Field>& f) {
  using C = Config;
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
  f.push_back(choice_field(
      "backend", "gpu_basis", member(&C::backend, &BackendConfig::gpu_basis),
      std::vector<Choice<GpuBasis>>{{GpuBasis::auto_select, "auto"}, {GpuBasis::full, "full"}, {GpuBasis::half, "half"}}));
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
}

// The logging section's keys, in the order configs/default.yaml lists them.
void add_logging_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(level_field("logging", "level", member(&C::logging, &LoggingConfig::level)));
  f.push_back(text_field("logging", "iteration_log", member(&C::logging, &LoggingConfig::iteration_log), true,
                         "a file name (empty for none)"));
  f.push_back(bool_field("logging", "progress", member(&C::logging, &LoggingConfig::progress)));
}

// The output section's keys, in the order configs/default.yaml lists them.
void add_output_fields(std::vector<Field>& f) {
  using C = Config;
  f.push_back(text_field("output", "model", member(&C::output, &OutputConfig::model), false, "a non-empty file name"));
  f.push_back(unsigned_field("output", "checkpoint_every", member(&C::output, &OutputConfig::checkpoint_every),
                             std::size_t{0}));
  f.push_back(text_field("output", "checkpoint", member(&C::output, &OutputConfig::checkpoint), true,
                         "a file name (empty for MODEL.ckpt)"));
}

std::vector<Field> build_fields() {
  std::vector<Field> f;
  add_data_fields(f);
  add_candidates_fields(f);
  add_trainer_fields(f);
  add_stopping_fields(f);
  add_refine_fields(f);
  add_backend_fields(f);
  add_logging_fields(f);
  add_output_fields(f);
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
