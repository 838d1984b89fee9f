// The `rbfnet train` flags: each one overrides one config key, so a flag and the YAML key it
// stands for are parsed, checked and reported by the same code (model/config_yaml.cpp).
#include "app/cli_train_options.hpp"

#include <CLI/App.hpp>
#include <CLI/Option.hpp>

#include <algorithm>

#include "app/file_checks.hpp"
#include "data/errors.hpp"
#include "data/text.hpp"
#include "model/config_yaml.hpp"

namespace rbf::app {
namespace {

// "maximum nodes" -> "maximum nodes [stopping.max_nodes, default 300]"; empty defaults
// ("", [] or ~) are left out.
std::string with_key(const std::string& help, const std::string& key_path) {
  const std::string value = model::config_value_to_yaml(model::Config(), key_path);
  if (value == "\"\"" || value == "[]" || value == "~") return help + " [" + key_path + "]";
  return help + " [" + key_path + ", default " + value + "]";
}

}  // namespace

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
      items.back() += ',';
      ++i;
    } else if (text[i] == ',') {
      items.emplace_back();
    } else {
      items.back() += text[i];
    }
  }
  // Blanks around an item are not part of it (nor of a CSV header name); "a,,b" and a
  // trailing comma name no column.
  for (std::string& item : items) item = data::trim(item);
  items.erase(std::remove(items.begin(), items.end(), std::string()), items.end());
  return items;
}

void ConfigFlags::add_config_file(CLI::App& command) {
  config_option_ = command
                       .add_option("--config", config_path_,
                                   "YAML config file (see configs/default.yaml); flags override its values")
                       ->type_name("YAML");
}

CLI::Option* ConfigFlags::add_value(CLI::App& command, const std::string& flag, const std::string& key_path,
                                    const std::string& value_name, const std::string& help) {
  return add_binding(command, flag, key_path, value_name, help, false);
}

CLI::Option* ConfigFlags::add_list(CLI::App& command, const std::string& flag, const std::string& key_path,
                                   const std::string& value_name, const std::string& help) {
  // build_from splits the value at commas itself, so that "\," can stand for a comma inside a
  // column name.
  return add_binding(command, flag, key_path, value_name, help, true);
}

CLI::Option* ConfigFlags::add_binding(CLI::App& command, const std::string& flag, const std::string& key_path,
                                      const std::string& value_name, const std::string& help, bool is_list) {
  bindings_.emplace_back();
  Binding& binding = bindings_.back();
  binding.flag = flag;
  binding.key_path = key_path;
  binding.is_list = is_list;
  // One value per occurrence (so a stray word is not swallowed); a repeated flag replaces the
  // value, or the list, like any other repeated flag.
  binding.option = command.add_option(flag, binding.values, with_key(help, key_path))
                       ->type_name(value_name)
                       ->expected(1)
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                       ->allow_extra_args(false);  // else CLI11 reads "[a]" as the list {a}
  return binding.option;
}

CLI::Option* ConfigFlags::add_switch(CLI::App& command, const std::string& flag, const std::string& key_path,
                                     const std::string& value, const std::string& help) {
  bindings_.emplace_back();
  Binding& binding = bindings_.back();
  binding.flag = flag;
  binding.key_path = key_path;
  binding.switch_value = value;
  binding.is_switch = true;
  const std::string description = help + " [" + key_path + " = " + value + "]";
  binding.option = command.add_flag(flag, description);
  return binding.option;
}

model::Config ConfigFlags::build() const {
  return build_from(config_path_.empty() ? model::Config() : model::load_config(config_path_));
}

model::Config ConfigFlags::build_from(const model::Config& base) const {
  model::Config config = base;
  std::vector<model::ConfigOverride> overrides;
  for (const Binding& binding : bindings_) {
    if (binding.option->count() == 0) continue;  // only flags given explicitly override
    std::vector<std::string> values = binding.values;
    if (binding.is_switch) values = {binding.switch_value};
    if (binding.is_list) values = split_list(binding.values.back());
    overrides.push_back(model::ConfigOverride{binding.key_path, values, binding.flag});
  }
  model::apply_overrides(config, overrides);
  return config;
}

void add_common_trainer_flags(CLI::App& command, ConfigFlags& flags) {
  flags.add_value(command, "--pool", "candidates.pool", "P", "Rows sampled as candidate centers, >= 1");
  flags.add_value(command, "--validation", "data.validation", "FRACTION",
                  "Fraction held out for validation, in [0, 0.9]");
  flags.add_value(command, "--linear-terms", "trainer.linear_terms", "MODE",
                  "Linear terms beside the Gaussians: on, off, or auto (on unless the fit would cost more than the candidates or ~1 s)");
  flags.add_value(command, "--threads", "trainer.threads", "N", "CPU threads; 0 = all cores");
  flags.add_value(command, "--gpu-device", "backend.gpu_device", "INDEX", "CUDA device (see rbfnet info)");
  flags.add_value(command, "--log-level", "logging.level", "LEVEL",
                  "Log level: trace, debug, info, warn, error or off");
}

void add_train_flags(CLI::App& command, ConfigFlags& flags) {
  flags.add_value(command, "--data", "data.path", "FILE", "Training CSV file (required here or in the config)");
  flags.add_list(command, "--target", "data.target", "COL",
                 "Target column(s) by name or 0-based index (required here or in the config)");
  flags.add_config_file(command);
  flags.add_value(command, "--task", "data.task", "KIND", "Task: auto, regression or classification");
  flags.add_value(command, "--out", "output.model", "MODEL", "Model file to write");
  flags.add_value(command, "--backend", "backend.kind", "KIND", "Compute backend: cpu, gpu or auto");
  flags.add_value(command, "--nodes", "stopping.max_nodes", "M", "Maximum Gaussian nodes, >= 1");
  add_common_trainer_flags(command, flags);
  flags.add_value(command, "--sigma", "candidates.sigma0", "S",
                  "Base Gaussian width in standardized inputs; 0 = median distance between rows");
  flags.add_list(command, "--widths", "candidates.width_factors", "F,...",
                 "Width factors: each candidate center is tried with widths F * sigma");
  flags.add_value(command, "--validation-data", "data.validation_path", "FILE",
                  "Validation CSV with the training file's columns, instead of holding out --validation");
  flags.add_value(command, "--folds", "data.folds", "K",
                  "Cross-validation folds choosing the node count and widths: auto (5 for small data), 0 = off, or 2 to 20");
  flags.add_value(command, "--seed", "data.seed", "S", "Seed of the split and candidate sampling");
  flags.add_value(command, "--log-iter", "logging.iteration_log", "FILE", "Per-iteration cost log (CSV)");
  flags.add_list(command, "--features", "data.features", "COL",
                 "Feature columns by name or index; default every non-target column");
  flags.add_value(command, "--weight", "data.weight", "COL",
                  "Column of per-row sample weights (>= 0): each row's share of the fit and of every score");
  flags.add_value(command, "--delimiter", "data.delimiter", "CHAR", "CSV separator: auto, tab or one character");
  flags.add_value(command, "--categorical", "data.categorical", "MODE",
                  "Text feature columns: auto (one-hot encoded) or off (an error)");
  flags.add_value(command, "--missing", "data.missing", "MODE",
                  "Missing feature cells: auto (imputed, with an indicator) or off (an error)");
  flags.add_value(command, "--skip-rows", "data.skip_rows", "N", "Metadata lines before the CSV header");
  flags.add_value(command, "--partitions", "trainer.partitions", "K",
                  "Sub-models: K > 1 grows one network per region of the inputs and blends them; 1 = one network");
  flags.add_value(command, "--lambda", "trainer.lambda", "L", "Regularized-OLS term, >= 0");
  flags.add_value(command, "--output-ridge", "trainer.output_ridge", "A",
                  "Ridge penalty on the output weights, >= 0, or auto (chosen on validation)");
  flags.add_value(command, "--strategy", "trainer.strategy", "NAME", "Node selection: ols or max_residual");
  flags.add_value(command, "--goal", "stopping.goal", "RMSE", "Stop at this training RMSE (standardized), >= 0");
  flags.add_value(command, "--patience", "stopping.patience", "N",
                  "Stop after N iterations without validation improvement; 0 = off");
  CLI::Option* refit = flags.add_switch(command, "--refit", "stopping.refit", "true",
                                        "Once validation has chosen the node count, grow that many nodes again on all rows");
  CLI::Option* no_refit = flags.add_switch(command, "--no-refit", "stopping.refit", "false",
                                           "Keep the model grown on the training rows, without refitting on all rows");
  refit->excludes(no_refit);
  CLI::Option* average = flags.add_switch(
      command, "--average-folds", "data.average_folds", "true",
      "With cross-validation, average the model on every row with one grown on each fold's rows (the default)");
  CLI::Option* no_average = flags.add_switch(command, "--no-average-folds", "data.average_folds", "false",
                                             "With cross-validation, keep the model grown on every row alone");
  average->excludes(no_average);
  flags.add_value(command, "--max-seconds", "stopping.max_seconds", "SEC", "Wall-clock limit; 0 = none");
  flags.add_value(command, "--refine-every", "refine.every", "K", "Refine centers, widths and weights every K nodes; 0 = never");
  flags.add_switch(command, "--refine-at-end", "refine.at_end", "true", "Refine the kept model once growth stops");
  flags.add_value(command, "--refine-method", "refine.method", "NAME", "Refinement optimizer: adam, lm, or auto (lm for small models)");
  flags.add_value(command, "--refine-epochs", "refine.epochs", "N", "Epochs per refinement, >= 1");
  flags.add_value(command, "--refine-lr", "refine.learning_rate", "RATE", "Adam step size, in (0, 10]");
  flags.add_value(command, "--refine-damping", "refine.damping", "MU", "Levenberg-Marquardt initial damping");
  flags.add_value(command, "--refine-ridge", "refine.ridge", "R", "L2 penalty on output weights while refining, >= 0");
  flags.add_value(command, "--refine-patience", "refine.patience", "N",
                  "Stop a refinement after N epochs without improvement; 0 = off");
  flags.add_value(command, "--precision", "trainer.precision", "TYPE",
                  "Arithmetic of the training passes: float32, float64, or auto (float64 when cross-validating or choosing the widths)");
  flags.add_value(command, "--switch-at-nodes", "backend.switch_at_nodes", "M",
                  "Auto backend: move to the GPU at M nodes; 0 = cost model");
  flags.add_list(command, "--gpu-devices", "backend.gpu_devices", "I,...",
                 "Train on several CUDA devices, each holding a share of the rows (docs/MULTI_GPU.md)");
  flags.add_switch(command, "--quiet", "logging.progress", "false",
                   "Print the summary and warnings only: no progress line, no per-iteration log");
  flags.add_value(command, "--checkpoint-every", "output.checkpoint_every", "K",
                  "Write a checkpoint every K iterations; 0 = only when interrupted");
  flags.add_value(command, "--checkpoint", "output.checkpoint", "FILE", "Checkpoint file; default MODEL.ckpt");
}

void require_training_inputs(const model::Config& config) {
  if (config.data.path.empty()) {
    throw InputError("no training data: give --data FILE (or data.path in the config)");
  }
  if (config.data.target.empty()) {
    throw InputError("no target column: give --target COL (or data.target in the config)");
  }
  require_readable_file(config.data.path, "data file");
}

}  // namespace rbf::app
