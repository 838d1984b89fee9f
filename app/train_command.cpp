// `rbfnet train`: read the CSV, grow the network, write the model and the cost log.
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <functional>
#include <string>
#include <utility>

#include "app/checkpoint_file.hpp"
#include "app/commands.hpp"
#include "app/iteration_log.hpp"
#include "app/label_check.hpp"
#include "app/raw_columns.hpp"
#include "app/resume_check.hpp"
#include "app/task_hint.hpp"
#include "app/train_summary.hpp"
#include "data/atomic_file.hpp"
#include "data/csv_reader.hpp"
#include "data/dataset_append.hpp"
#include "data/file_plan.hpp"
#include "data/input_file.hpp"
#include "data/errors.hpp"
#include "model/provenance.hpp"
#include "model/config_yaml.hpp"
#include "model/cross_validation.hpp"
#include "model/model_file.hpp"
#include "model/sha256.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

namespace {

// SIGINT, SIGTERM and SIGHUP (a dropped ssh session) ask the trainer to stop after the current
// iteration and save a checkpoint; a second signal gets the default behaviour, so a stuck run
// can still be killed.
std::atomic<bool> g_interrupt_requested{false};
std::atomic<int> g_interrupt_signal{0};

extern "C" void on_interrupt(int signal_number) {
  g_interrupt_signal.store(signal_number);
  g_interrupt_requested.store(true);
  std::signal(signal_number, SIG_DFL);
}

class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt_requested.store(false);
    g_interrupt_signal.store(0);
    previous_int_ = std::signal(SIGINT, on_interrupt);
    previous_term_ = std::signal(SIGTERM, on_interrupt);
    // A shell started with nohup ignores SIGHUP on purpose; that choice stays.
    previous_hup_ = std::signal(SIGHUP, SIG_IGN);
    if (previous_hup_ != SIG_IGN) std::signal(SIGHUP, on_interrupt);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
    std::signal(SIGHUP, previous_hup_);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  const std::atomic<bool>& requested() const { return g_interrupt_requested; }
  // The shell's status for a run its signal stopped: 128 + the signal (130 for SIGINT, 143
  // for SIGTERM), so scripts can tell an interruption from a failure.
  int exit_status() const { return 128 + g_interrupt_signal.load(); }

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
  void (*previous_hup_)(int) = SIG_DFL;
};

// What `rbfnet train` read: the data set (training rows first, then any validation file's)
// and the digests that the model and a checkpoint record.
struct TrainInputs {
  data::Dataset dataset;
  std::size_t training_rows = 0;
  std::string data_sha256;   // of the training file
  std::string state_sha256;  // of the training file followed by the validation file, if any
};

// Every output is checked before the data is read: a bad path fails now, not after training,
// and no output may be an input (a resumed checkpoint is read whole, then updated in place).
// Returns where the iteration log goes (no path: no log).
data::OutputTarget check_files(const model::Config& config, const std::string& ckpt_path,
                               const std::string& resume_from, const std::string& config_file,
                               const std::string& metrics_json, const std::string& init_model) {
  data::FilePlan files;
  files.input(config.data.path, "--data");
  if (!config.data.validation_path.empty()) files.input(config.data.validation_path, "--validation-data");
  if (!config_file.empty()) files.input(config_file, "--config");
  if (!resume_from.empty()) files.input(resume_from, "--resume", "--checkpoint");
  if (!init_model.empty()) files.input(init_model, "--init-model");
  // '-' means standard output to predict and evaluate; a model is binary and goes to a file.
  for (const auto& [path, flag] : {std::pair<std::string, const char*>{config.output.model, "--out"},
                                   std::pair<std::string, const char*>{ckpt_path, "--checkpoint"}})
    if (path == "-")
      throw InputError(std::string(flag) + " '-' would create a file named '-': a model is binary and is not "
                       "written to standard output; give a file name");
  files.output(config.output.model, "--out");
  files.output(ckpt_path, "--checkpoint");
  data::OutputTarget log_target;
  if (!config.logging.iteration_log.empty()) log_target = files.output(config.logging.iteration_log, "--log-iter");
  if (!metrics_json.empty()) files.output(metrics_json, "--metrics-json");
  return log_target;
}

// Reads the training file (and the validation file), once each: a FIFO cannot be read twice,
// so one read serves the parser and the digest. A resumed run must find the data its state
// was grown on.
TrainInputs read_inputs(const model::Config& config, const std::string& resume_from, const Checkpoint& resumed,
                        const model::Network* init) {
  TrainInputs in;
  const data::InputBytes bytes = data::read_input_file(config.data.path, "data file");
  model::Sha256 hash;
  hash.update(bytes.bytes.get(), bytes.size);
  in.data_sha256 = hash.hex_digest();
  data::InputBytes validation_bytes;
  in.state_sha256 = in.data_sha256;
  if (!config.data.validation_path.empty()) {
    validation_bytes = data::read_input_file(config.data.validation_path, "validation data file");
    model::Sha256 both;
    both.update(bytes.bytes.get(), bytes.size);
    both.update(validation_bytes.bytes.get(), validation_bytes.size);
    in.state_sha256 = both.hex_digest();
  }
  if (!resume_from.empty())
    check_resumed_data(resume_from, resumed.data_file, config.data.path, resumed.state.data_sha256, in.state_sha256);

  data::CsvOptions csv = training_csv_options(config, init);
  data::ColumnSpec columns;
  columns.targets = config.data.target;
  columns.features = config.data.features;
  columns.weight = config.data.weight;
  in.dataset = data::parse_csv(bytes.view(), config.data.path, csv, columns, task_hint(config.data.task));
  data::Dataset& dataset = in.dataset;
  in.training_rows = dataset.rows;
  if (!config.data.validation_path.empty()) {
    // The same columns by name, and the task the training file settled on.
    data::ColumnSpec same;
    same.targets = dataset.target_names;
    same.features = dataset.feature_names;
    same.weight = dataset.weight_name;
    for (const data::TextFeature& text : dataset.text_features)  // the training file's categories
      csv.text_columns.push_back(dataset.feature_names[text.feature]);
    csv.text_features = false;  // a column of numbers in the training file holds numbers here too
    csv.text_advice = "the training file " + config.data.path + " holds numbers in this column";
    const bool classify = dataset.task == data::Task::classification;
    const data::Dataset held_out =
        data::parse_csv(validation_bytes.view(), config.data.validation_path, csv, same,
                        classify ? data::TaskHint::classification : data::TaskHint::regression);
    data::append_rows(dataset, held_out);
  }
  spdlog::info("read {}: {} rows, {} features, {}", config.data.path, in.training_rows, dataset.features,
               dataset.task == data::Task::classification
                   ? fmt::format("{} classes", dataset.class_names.size())
                   : fmt::format("{} target(s)", dataset.targets));
  if (dataset.rows > in.training_rows)
    spdlog::info("read {}: {} validation rows", config.data.validation_path, dataset.rows - in.training_rows);
  if (config.data.task == model::TaskKind::auto_detect) {
    const std::string labels = integer_label_warning(dataset);
    if (!labels.empty()) spdlog::warn("{}: {}", config.data.path, labels);
  }
  return in;
}

// After training: the model, or on an interrupt the checkpoint (or nothing, said so), then
// the summary and its JSON. Returns the exit status.
int save_results(model::TrainResult& result, const std::function<void(model::Network&)>& stamp,
                 const model::Config& config, const std::string& ckpt_path, const std::string& resume_from,
                 const std::string& metrics_json, const InterruptGuard& interrupts) {
  if (result.resume_unchanged) {
    std::fprintf(stderr, "rbfnet: interrupted while setting up; %s is unchanged; continue with: rbfnet train --resume %s\n",
                 resume_from.c_str(), resume_from.c_str());
    return interrupts.exit_status();
  }
  if (result.nothing_to_save) {
    std::fprintf(stderr, "rbfnet: interrupted during %s; nothing was written\n", result.unsaved_stage.c_str());
    return interrupts.exit_status();
  }
  model::Network& net = result.network;
  stamp(net);
  if (result.out_of_device_memory) {
    // Not a signal: an explicit GPU ran out of memory mid-run. Its nodes are kept as at one.
    model::save_network(net, ckpt_path);
    std::fprintf(stderr,
                 "rbfnet: %s; the best model so far (%zu nodes) and the training state are in %s; continue on "
                 "more GPUs (--gpu-devices) or on the CPU (--backend cpu) with: rbfnet train --resume %s\n",
                 result.stop_reason.c_str(), net.nodes(), ckpt_path.c_str(), ckpt_path.c_str());
    return 1;
  }
  if (result.interrupted) {
    model::save_network(net, ckpt_path);
    std::fprintf(stderr,
                 "rbfnet: interrupted after %zu iterations; the best model so far (%zu nodes) and the training "
                 "state are in %s; continue with: rbfnet train --resume %s\n",
                 result.iterations.empty() ? std::size_t(0) : result.iterations.back().iteration, net.nodes(),
                 ckpt_path.c_str(), ckpt_path.c_str());
    return interrupts.exit_status();
  }
  model::save_network(net, config.output.model);

  print_train_summary(result, config);
  if (!metrics_json.empty()) {
    const std::string json = train_summary_json(result, config);
    data::write_file_atomically(metrics_json, json.data(), json.size());
  }
  return 0;
}

}  // namespace

// --init-model: the model to continue, and the configuration that reads the new data by its
// feature names (where the model has names, and the config names no features itself).
model::Config continued_config(const model::Config& config, const model::Network& init) {
  model::Config out = config;
  const std::vector<std::string> columns = init.input_columns();
  bool named = !columns.empty();
  for (std::size_t f = 0; f < columns.size(); ++f) named = named && !model::generic_feature_name(columns[f], f);
  if (named && out.data.features.empty()) out.data.features = columns;
  return out;
}

int run_train(const model::Config& given, const std::string& resume_from, const std::string& config_file,
              const std::string& metrics_json, const std::string& init_model) {
  model::Network init;
  if (!init_model.empty()) init = model::load_network(init_model);
  const model::Config config = init_model.empty() ? given : continued_config(given, init);
  if (config.data.path.empty()) throw InputError("no training data: give --data FILE.csv or data.path in the config");
  if (config.data.target.empty()) throw InputError("no target column: give --target COL or data.target in the config");
  if (!config.data.weight.empty() && (config.refine.every > 0 || config.refine.at_end))
    throw InputError(model::kRefinementIgnoresWeights);
  if (config.trainer.partitions > 1 && (!resume_from.empty() || !init_model.empty() || config.output.checkpoint_every > 0))
    throw InputError("--partitions " + std::to_string(config.trainer.partitions) +
                     ": --resume, --init-model and --checkpoint-every work on one network only; use --partitions 1 with them");

  const std::string ckpt_path = checkpoint_path(config);
  const data::OutputTarget log_target =
      check_files(config, ckpt_path, resume_from, config_file, metrics_json, init_model);
  model::check_folds_request(config, !resume_from.empty());

  Checkpoint resumed;
  if (!resume_from.empty()) {
    resumed = read_checkpoint(resume_from);
    check_resume_matches(resume_from, resumed.config, config);
  }
  const model::TrainingState& resume_state = resumed.state;
  TrainInputs inputs = read_inputs(config, resume_from, resumed, init_model.empty() ? nullptr : &init);

  model::TrainOptions options;
  options.data_sha256 = inputs.state_sha256;
  if (!config.data.validation_path.empty()) options.validation_from = inputs.training_rows;
  if (!init_model.empty()) {
    options.init = &init;
    spdlog::info("continuing {} ({} nodes) on {}", init_model, init.nodes(), config.data.path);
  }
  if (!resume_from.empty()) {
    options.resume = &resume_state;
    options.scalers_from = &resumed.network;
    spdlog::info("resuming {} at iteration {} with {} nodes", resume_from, resume_state.iteration,
                 resume_state.chosen.size());
  }

  // Provenance shared by checkpoints and the final model.
  model::Provenance provenance;
  provenance.rbfnet_version = RBF_VERSION;
  provenance.data_file = config.data.path;
  provenance.data_sha256 = inputs.data_sha256;
  provenance.config_yaml = model::config_to_yaml(config);

  IterationLog log(log_target, config.logging.progress, config.stopping.max_nodes,
                   /*append=*/!resume_from.empty(), resume_from.empty() ? 0 : resume_state.iteration);
  if (config.trainer.partitions > 1) log.add_part_column();
  options.on_iteration = [&log](const model::IterationRecord& rec) { log.record(rec); };
  options.on_fold_iteration = [&log](const model::IterationRecord& rec) { log.record_fold(rec); };
  options.on_growth_start = [&log](const std::string& growth, std::size_t max_nodes, std::size_t growths_after) {
    log.begin_growth(growth, max_nodes, growths_after);
  };
  options.checkpoint_every = config.output.checkpoint_every;
  // The trainer fills in the backend; everything else about where the model came from is ours.
  const std::function<void(model::Network&)> stamp = [&provenance](model::Network& net) {
    const std::string backend = net.provenance.backend;
    net.provenance = provenance;
    net.provenance.backend = backend;
    net.provenance.created_utc = model::utc_now_iso8601();
  };
  options.on_checkpoint = [&](const model::Network& checkpoint) {
    model::Network net = checkpoint;
    stamp(net);
    model::save_network(net, ckpt_path);
    spdlog::debug("checkpoint written to {}", ckpt_path);
  };
  InterruptGuard interrupts;
  options.stop_requested = &interrupts.requested();

  model::TrainResult result = model::train(inputs.dataset, config, options);
  log.finish();
  return save_results(result, stamp, config, ckpt_path, resume_from, metrics_json, interrupts);
}

}  // namespace rbf::app
