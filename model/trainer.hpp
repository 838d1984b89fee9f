// The incremental OLS trainer: grows one Gaussian node per iteration on a Backend.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "model/config.hpp"
#include "model/network.hpp"

namespace rbf::model {

// One row of the per-iteration cost log.
struct IterationRecord {
  std::size_t iteration = 0;   // 1-based, dependent candidates included
  std::size_t nodes = 0;       // Gaussian nodes after this iteration
  std::string backend;         // "cpu" or "gpu"
  double select_ms = 0, add_ms = 0, update_ms = 0, evaluate_ms = 0, total_ms = 0;
  double train_rmse = 0;       // RMSE of the standardized targets (1 = predicting the mean)
  double val_rmse = -1;        // validation RMSE in target units (one-hot for classes); -1 = none
  double val_accuracy = -1;    // classification only; -1 = none
  long long row = -1;          // training row of the chosen center (index into the CSV's data rows)
  double width = 0;            // chosen width in standardized units
  bool dependent = false;      // the chosen candidate was linearly dependent and skipped
};

struct TrainResult {
  Network network;
  std::vector<IterationRecord> iterations;
  std::string stop_reason;
  double seconds = 0;          // wall time of the growth loop
  double setup_seconds = 0;    // data transfer, candidate evaluation, initial pass
  std::size_t train_rows = 0, validation_rows = 0, candidates = 0;
  bool candidates_stored = true;
  double sigma0 = 0;
  double final_train_rmse = 0;  // standardized, at the kept node count
  double best_val_rmse = -1;    // at the kept node count; -1 without validation
  double best_val_accuracy = -1;
};

using IterationCallback = std::function<void(const IterationRecord&)>;

// Trains on `dataset` as `config` says. `on_iteration` (optional) sees every iteration as
// it finishes. Throws rbf::InputError for data the trainer cannot use.
TrainResult train(const data::Dataset& dataset, const Config& config,
                  const IterationCallback& on_iteration = {});

// Median pairwise Euclidean distance among up to `sample` rows of the row-major n x d
// matrix x (the base width heuristic); 1 when every sampled distance is zero.
double median_distance(const double* x, std::size_t n, std::size_t d, std::size_t sample,
                       std::uint64_t seed);

}  // namespace rbf::model
