// The bodies of rbfnet's subcommands; app/main.cpp parses flags and calls these.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace rbf::app {

// Trains a network as `config` says (data, trainer, output paths), writes the model file
// and the optional per-iteration cost log, prints a summary. With `resume_from` (a
// checkpoint file) it continues that run instead. SIGINT/SIGTERM finish the current
// iteration and save a checkpoint. `config_file` (the --config given, if any) is an input no
// output may overwrite. `metrics_json`, when given, receives the summary as JSON. With
// `init_model` (a model file) training continues from that model's nodes on the new data
// (model/growth_init.cpp). Returns the exit code.
int run_train(const model::Config& config, const std::string& resume_from = "", const std::string& config_file = "",
              const std::string& metrics_json = "", const std::string& init_model = "");

struct PredictOptions {
  std::string model;      // model file
  std::string data;       // CSV with the model's feature columns (by name); "-" = standard input
  std::string out;        // predictions CSV; empty or "-" = standard output
  bool proba = false;     // classification: one probability column per class after the label
  std::vector<std::string> keep;  // columns copied from the data before the predictions
  char delimiter = 0;     // 0 = detect
  std::size_t skip_rows = 0;
};
int run_predict(const PredictOptions& options);

struct EvaluateOptions {
  std::string model;
  std::string data;
  std::vector<std::string> target;  // target column(s) by name or index
  std::string weight;               // sample weights' column; "" = every row weighs 1
  char delimiter = 0;
  std::size_t skip_rows = 0;
  bool json = false;  // one JSON object on standard output instead of text
};
int run_evaluate(const EvaluateOptions& options);

struct BenchOptions {
  std::string data;                  // CSV, or empty with synthetic_rows > 0
  std::vector<std::string> target;
  std::size_t synthetic_rows = 0;    // --synthetic N,D
  std::size_t synthetic_dims = 0;
  std::vector<std::string> backends{"cpu", "gpu", "auto"};
  std::string out_dir = "bench-out";
  std::size_t repeats = 1;           // --repeat R: separate trainings per backend
  model::Config config;              // trainer settings shared by every backend
};
int run_bench(const BenchOptions& options);

struct CalibrateOptions {
  int device = 0;  // CUDA device index
};
// Measures the GPU's costs for the automatic switch, caches them for this host and device
// (model/switching/calibration_cache.hpp) and prints them. Without a GPU: rbf::InputError (exit 2).
int run_calibrate(const CalibrateOptions& options);

struct InspectOptions {
  std::string model;  // model or checkpoint file
  bool json = false;  // one JSON object instead of text
};
// Prints what a model file holds: task, nodes, columns, classes, widths, provenance, config.
int run_inspect(const InspectOptions& options);

// Prints build options, compiler, library versions and CUDA devices (or why none).
int run_info();

}  // namespace rbf::app
