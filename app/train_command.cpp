// `rbfnet train`: read the CSV, grow the network, write the model and the cost log.
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>

#include "app/commands.hpp"
#include "app/iteration_log.hpp"
#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "model/config_yaml.hpp"
#include "model/model_file.hpp"
#include "model/sha256.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

namespace {

data::TaskHint task_hint(model::TaskKind task) {
  switch (task) {
    case model::TaskKind::regression: return data::TaskHint::regression;
    case model::TaskKind::classification: return data::TaskHint::classification;
    case model::TaskKind::auto_detect: break;
  }
  return data::TaskHint::auto_detect;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

int run_train(const model::Config& config) {
  if (config.data.path.empty()) throw InputError("no training data: give --data FILE.csv or data.path in the config");
  if (config.data.target.empty()) throw InputError("no target column: give --target COL or data.target in the config");

  data::CsvOptions csv;
  csv.delimiter = config.data.delimiter;
  csv.skip_rows = config.data.skip_rows;
  data::ColumnSpec columns;
  columns.targets = config.data.target;
  columns.features = config.data.features;
  const data::Dataset dataset = data::read_csv(config.data.path, csv, columns, task_hint(config.data.task));
  spdlog::info("read {}: {} rows, {} features, {}", config.data.path, dataset.rows, dataset.features,
               dataset.task == data::Task::classification
                   ? fmt::format("{} classes", dataset.class_names.size())
                   : fmt::format("{} target(s)", dataset.targets));

  IterationLog log(config.logging.iteration_log, config.logging.progress, config.stopping.max_nodes);
  model::TrainResult result =
      model::train(dataset, config, [&log](const model::IterationRecord& rec) { log.record(rec); });
  log.finish();

  model::Network& net = result.network;
  net.provenance.rbfnet_version = RBF_VERSION;
  net.provenance.data_file = config.data.path;
  net.provenance.data_sha256 = model::sha256_file_hex(config.data.path);
  net.provenance.created_utc = utc_now();
  net.provenance.config_yaml = model::config_to_yaml(config);
  model::save_network(net, config.output.model);

  const std::size_t grown = result.iterations.empty() ? 0 : result.iterations.back().nodes;
  std::printf("grew %zu nodes in %zu iterations, %.3f s on %s (setup %.3f s), stopped: %s\n", grown,
              result.iterations.size(), result.seconds, net.provenance.backend.c_str(), result.setup_seconds,
              result.stop_reason.c_str());
  std::printf("  kept %zu nodes%s\n", net.nodes(), result.validation_rows > 0 ? " (best on validation)" : "");
  std::printf("  rows: %zu training, %zu validation; candidates: %zu (%s), sigma0 %.4g\n", result.train_rows,
              result.validation_rows, result.candidates, result.candidates_stored ? "stored" : "evaluated on the fly",
              result.sigma0);
  std::printf("  training RMSE (standardized targets): %.6g\n", result.final_train_rmse);
  if (result.best_val_rmse >= 0) {
    if (result.best_val_accuracy >= 0) {
      std::printf("  validation accuracy: %.4f\n", result.best_val_accuracy);
    } else {
      std::printf("  validation RMSE: %.6g\n", result.best_val_rmse);
    }
  }
  if (!config.logging.iteration_log.empty())
    std::printf("  iteration log: %s\n", config.logging.iteration_log.c_str());
  std::printf("  model: %s\n", config.output.model.c_str());
  return 0;
}

}  // namespace rbf::app
