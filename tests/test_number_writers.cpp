// Every writer of numbers meant for programs gives back the exact double: JSON, the iteration
// log, bench's costs.csv, the calibration cache, the config YAML and a checkpoint's training
// state (predictions: hostile.sh predictions_exact).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench_report.hpp"
#include "app/iteration_log.hpp"
#include "app/json_writer.hpp"
#include "data/text.hpp"
#include "model/config_yaml.hpp"
#include "model/switching/calibration_cache.hpp"
#include "model/training_state.hpp"

namespace {

// Hard cases for a number writer: more digits than %.6g or %.9g keep, thirds, the ends of the
// double range, a denormal, negative zero. All are >= 0 or -0 (logs use -1 for "none").
const std::vector<double>& hostile_values() {
  static const std::vector<double> values{1e9 + 1,
                                          0.1,
                                          1.0 / 3.0,
                                          2.0 / 3.0,
                                          1e-300,
                                          std::numeric_limits<double>::denorm_min(),
                                          std::numeric_limits<double>::min() / 3,
                                          std::numeric_limits<double>::max(),
                                          -0.0,
                                          123456.78901234567,
                                          0.30000000000000004,
                                          9007199254740993.0};
  return values;
}

// The double a text reads back as (strtod rounds correctly, as the CSV reader's parsers do);
// the whole text must be the number.
double read_back(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  REQUIRE_MESSAGE((!text.empty() && end == text.c_str() + text.size()), "'" << text << "' is not all one number");
  return value;
}

// Same double, bit for bit (so -0 differs from 0).
bool identical(double a, double b) { return std::signbit(a) == std::signbit(b) && a == b; }

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == separator) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

TEST_CASE("number writers: round_trip_text is exact and shortest, negative zero and denormals included") {
  for (const double v : hostile_values()) {
    const std::string text = rbf::data::round_trip_text(v);
    CHECK_MESSAGE(identical(read_back(text), v), text);
  }
  CHECK(rbf::data::round_trip_text(-0.0) == "-0");
  CHECK(rbf::data::round_trip_text(std::numeric_limits<double>::denorm_min()) == "5e-324");
  CHECK(rbf::data::round_trip_text(1e9 + 1) == "1000000001");
  CHECK(rbf::data::round_trip_text(0.30000000000000004) == "0.30000000000000004");
}

TEST_CASE("number writers: JSON numbers read back exactly") {
  rbf::app::JsonWriter json;
  json.numbers(hostile_values());
  std::string text = json.str();
  REQUIRE(text.size() > 3);
  text = text.substr(1, text.size() - 3);  // "[...]\n" -> "..."
  const std::vector<std::string> items = split(text, ',');
  REQUIRE(items.size() == hostile_values().size());
  for (std::size_t i = 0; i < items.size(); ++i) CHECK_MESSAGE(identical(read_back(items[i]), hostile_values()[i]), items[i]);
}

TEST_CASE("number writers: every number of the iteration log reads back exactly") {
  for (const double v : hostile_values()) {
    rbf::model::IterationRecord r;
    r.iteration = 7;
    r.nodes = 6;
    r.backend = "cpu";
    r.select_ms = r.add_ms = r.update_ms = r.evaluate_ms = r.total_ms = r.train_rmse = v;
    r.val_rmse = r.val_accuracy = r.width = r.refine_ms = v;
    r.row = 41;
    r.event = "switch, with a \"comma\"";
    const std::vector<std::string> header = split(rbf::app::IterationLog::csv_header(), ',');
    const std::vector<std::string> fields = split(rbf::app::IterationLog::csv_row(r), ',');
    REQUIRE(fields.size() == header.size() + 1);  // the quoted event holds one comma
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string& name = header[c];
      if (name == "iteration" || name == "nodes" || name == "backend" || name == "row" || name == "dependent" ||
          name == "event")
        continue;
      CHECK_MESSAGE(identical(read_back(fields[c]), v), name << " = " << fields[c]);
    }
  }
}

TEST_CASE("number writers: every number of bench's costs.csv reads back exactly") {
  rbf::app::BenchRun run;
  run.backend = "cpu";
  run.result.setup_seconds = 0;
  for (const double v : hostile_values()) {
    rbf::model::IterationRecord r;
    r.iteration = run.result.iterations.size() + 1;
    r.nodes = r.iteration;
    r.backend = "cpu";
    r.select_ms = r.add_ms = r.update_ms = r.evaluate_ms = r.total_ms = r.train_rmse = r.val_rmse = v;
    run.result.iterations.push_back(r);
  }
  char folder[] = "/tmp/rbfnet-costs-test-XXXXXX";
  REQUIRE(::mkdtemp(folder) != nullptr);
  const std::string path = std::string(folder) + "/costs.csv";
  rbf::app::write_costs_csv(path, {run});
  std::ifstream in(path);
  std::string line;
  REQUIRE(std::getline(in, line));
  const std::vector<std::string> header = split(line, ',');
  for (const double v : hostile_values()) {
    REQUIRE(std::getline(in, line));
    const std::vector<std::string> fields = split(line, ',');
    REQUIRE(fields.size() == header.size());
    for (const char* name : {"select_ms", "add_ms", "update_ms", "evaluate_ms", "total_ms", "train_rmse", "val_rmse"}) {
      const std::size_t c = rbf::app::costs_column(name) - 1;
      CHECK_MESSAGE(identical(read_back(fields[c]), v), name << " = " << fields[c]);
    }
  }
  std::remove(path.c_str());
  ::rmdir(folder);
}

TEST_CASE("number writers: the calibration cache reads back exactly") {
  for (const double v : hostile_values()) {
    rbf::model::GpuCalibration cal;
    cal.device = 0;
    cal.device_name = "test GPU";
    cal.startup_ms = cal.alloc_ms = cal.sync_ms = cal.launch_ms = cal.overhead_ms = v;
    cal.bandwidth_gbs = cal.transfer_gbs = cal.pageable_transfer_gbs = cal.gflops = cal.probe_ms = v;
    rbf::model::GpuCalibration back;
    REQUIRE(rbf::model::calibration_from_text(rbf::model::calibration_to_text(cal, "host"), "host", 0, "test GPU", back));
    for (const double rbf::model::GpuCalibration::*figure :
         {&rbf::model::GpuCalibration::startup_ms, &rbf::model::GpuCalibration::sync_ms,
          &rbf::model::GpuCalibration::bandwidth_gbs, &rbf::model::GpuCalibration::gflops,
          &rbf::model::GpuCalibration::probe_ms}) {
      CHECK_MESSAGE(identical(back.*figure, v), rbf::data::round_trip_text(v));
    }
  }
}

TEST_CASE("number writers: real config values survive config_to_yaml and back") {
  for (const double v : {0.1, 1.0 / 3.0, 1e-300, 1e9 + 1, 0.30000000000000004, 123456.78901234567}) {
    rbf::model::Config config;
    config.trainer.lambda = v;
    config.refine.ridge = v <= 1e6 ? v : 1 / v;  // its range ends at 1e6
    const rbf::model::Config back = rbf::model::parse_config(rbf::model::config_to_yaml(config), "round trip");
    CHECK_MESSAGE(back.trainer.lambda == v, rbf::data::round_trip_text(v));
    CHECK(back.refine.ridge == config.refine.ridge);
  }
}

TEST_CASE("number writers: the training state of a checkpoint reads back exactly") {
  rbf::model::TrainingState state;
  state.train_rmse_at = hostile_values();  // one per node count, 0 included
  for (std::size_t node = 0; node + 1 < state.train_rmse_at.size(); ++node) state.chosen.push_back(node);
  state.iteration = state.chosen.size();
  state.candidates = state.chosen.size();
  state.best_nodes = 3;
  state.best_val_rmse = 1.0 / 3.0;
  state.best_val_accuracy = 2.0 / 3.0;
  state.elapsed_seconds = 1e9 + 1;
  state.node_centers = hostile_values();
  for (const double v : hostile_values())
    if (v > 0) state.node_widths.push_back(v);  // widths are positive; one per node
  const rbf::model::TrainingState back =
      rbf::model::decode_training_state(rbf::model::encode_training_state(state), "state");
  CHECK(identical(back.best_val_rmse, state.best_val_rmse));
  CHECK(identical(back.best_val_accuracy, state.best_val_accuracy));
  CHECK(identical(back.elapsed_seconds, state.elapsed_seconds));
  REQUIRE(back.train_rmse_at.size() == state.train_rmse_at.size());
  REQUIRE(back.node_centers.size() == state.node_centers.size());
  for (std::size_t i = 0; i < state.train_rmse_at.size(); ++i) {
    CHECK(identical(back.train_rmse_at[i], state.train_rmse_at[i]));
    CHECK(identical(back.node_centers[i], state.node_centers[i]));
  }
  REQUIRE(back.node_widths.size() == state.node_widths.size());
  for (std::size_t i = 0; i < state.node_widths.size(); ++i) CHECK(identical(back.node_widths[i], state.node_widths[i]));
}
