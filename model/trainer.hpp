// The incremental OLS trainer: grows one Gaussian node per iteration on a Backend.
#pragma once

#include <cstddef>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "contracts/backend.hpp"
#include "model/config.hpp"
#include "model/fit_scores.hpp"
#include "model/network.hpp"
#include "model/switching/switch_rule.hpp"
#include "model/training_state.hpp"

namespace rbf::model {

// One row of the per-iteration cost log.
struct IterationRecord {
  std::size_t iteration = 0;   // 1-based, dependent candidates included
  std::size_t nodes = 0;       // Gaussian nodes after this iteration
  std::string backend;         // "cpu" or "gpu"
  double select_ms = 0, add_ms = 0, update_ms = 0, evaluate_ms = 0, total_ms = 0;
  double refine_ms = 0;        // a refinement after this iteration (refine.every), rebuild included; not in total_ms
  double train_rmse = 0;       // RMSE of the standardized targets (1 = predicting the mean)
  double val_rmse = -1;        // validation RMSE in target units (one-hot for classes); -1 = none
  double val_accuracy = -1;    // classification only; -1 = none
  long long row = -1;          // training row of the chosen center (index into the CSV's data rows)
  double width = 0;            // chosen width in standardized units
  bool dependent = false;      // the chosen candidate was linearly dependent and skipped
  std::string event;           // a backend switch or fallback that happened after this iteration
  std::size_t part = 0;        // a partitioned model's part (1-based) this iteration grew; 0 = not partitioned
};

// A partitioned model's part (trainer.partitions): its training rows (region and overlap),
// nodes kept, training time, why its growth stopped, and its own validation RMSE (-1 none).
struct PartReport {
  std::size_t rows = 0, nodes = 0;
  double seconds = 0;
  std::string stop_reason;
  double val_rmse = -1;
};

// stopping.refit: the node count kept on validation, grown again on every row.
struct RefitReport {
  bool done = false;           // false: no refit asked for, or no validation rows to add
  std::size_t nodes = 0;       // the kept node count, grown again
  std::size_t rows = 0;        // every row: training and validation
  double seconds = 0;          // the refit's set-up and growth
  std::string stop_reason;     // "reached max_nodes" unless no admissible candidate was left
};

// data.folds: what K-fold cross-validation tried and chose (model/cross_validation.hpp).
struct CrossValidationReport {
  std::size_t folds = 0;                          // 0: the run held out validation rows instead
  std::vector<std::vector<double>> width_sets;    // the width factors tried
  std::vector<double> widths;                     // the set chosen
  std::size_t nodes = 0;                          // the node count chosen (0: linear terms and bias only)
  double rmse = -1;                               // mean validation RMSE over the folds at that choice
  double accuracy = -1;                           // classification: their mean accuracy there
  std::size_t lowest_nodes = 0;  // where the mean validation MSE is lowest; differs from nodes when
  double lowest_rmse = -1;       // no Gaussians came within one standard error of it (then nodes = 0)
  double output_ridge = 0;                        // the median of the folds' output ridges, used on all rows
  double seconds = 0;                             // the fold runs, set-up included
  // data.average_folds: networks averaged into the result (the model on every row and one per
  // fold, each of `nodes` nodes); 0 when not averaged.
  std::size_t averaged_models = 0;
  double averaging_seconds = 0;                   // the fold models' growths
};

struct TrainResult {
  Network network;
  std::vector<IterationRecord> iterations;
  std::string stop_reason;
  double seconds = 0;          // wall time of the growth loop (refinements during growth included)
  double refine_seconds = 0;   // wall time of every refinement, rebuilds included
  double setup_seconds = 0;    // data transfer, candidate evaluation, initial pass
  // The whole training: model selection's growths (cross-validation, the widths on validation
  // rows), the kept growth, a refit, averaging and scoring; `seconds` is the kept growth's alone.
  double total_seconds = 0;
  std::size_t train_rows = 0, validation_rows = 0, candidates = 0;
  bool candidates_stored = true;
  std::string candidate_storage_reason;  // why, from contracts/candidate_storage.hpp's rule
  std::string basis_storage;  // Q held other than in the training precision, and why; "" if not
  // Classification: the rows the probability scale (network.proba_scale) was fitted on, and
  // which ones: "validation", "training" (no validation rows) or "all" (cross-validated).
  std::size_t proba_rows = 0;
  std::string proba_fitted_on;
  // Continued training: the nodes kept from TrainOptions::init (one the new rows find
  // dependent on the others leaves).
  std::size_t init_nodes = 0;
  double sigma0 = 0;
  double final_train_rmse = 0;  // standardized, at the kept node count (what stopping.goal compares)
  double best_val_rmse = -1;    // at the kept node count; -1 without validation
  double best_val_accuracy = -1;
  std::vector<std::string> events;  // switches and fallbacks, in order
  bool interrupted = false;         // stopped by TrainOptions::stop_requested, or out_of_device_memory
  // An explicit GPU ran out of memory mid-run: stopped as at an interrupt, the nodes grown so
  // far kept with the state to resume them (stop_reason says what ran short).
  bool out_of_device_memory = false;
  // The kept network on the training and the validation rows, in target units; not filled
  // in when interrupted. After a refit, train_scores are the refit network's on every row
  // and validation_scores the early-stopped network's, which chose the node count.
  FitScores train_scores, validation_scores;
  RefitReport refit;
  // trainer.output_ridge: the penalty (relative to the training rows) of the saved output
  // weights; 0 = least squares.
  double output_ridge = 0;
  // trainer.linear_terms: the penalty (relative to the training rows) of the saved linear
  // terms, chosen by generalized cross-validation; -1 = the model has none.
  double linear_ridge = -1;
  // Interrupted before a resumed run had rebuilt its model: nothing changed since the
  // checkpoint it resumed, which stays as it is; `network` is empty.
  bool resume_unchanged = false;
  // Validation RMSE and accuracy of the model without nodes (bias and linear terms); -1
  // without validation (accuracy: or for regression).
  double zero_node_val_rmse = -1;
  double zero_node_val_accuracy = -1;
  CrossValidationReport cross_validation;
  std::vector<PartReport> parts;  // a partitioned model's parts; empty for one network
  // Interrupted while choosing the model among several growths (cross-validation, or the width
  // choice of model/width_choice.hpp), whose checkpoint would resume another configuration
  // than the one saved with it: there is nothing to save or resume. `unsaved_stage` says what
  // the stop cut short, for the message.
  bool nothing_to_save = false;
  std::string unsaved_stage = "cross-validation, before the model on every row was grown";
};

using IterationCallback = std::function<void(const IterationRecord&)>;

// Seams for tests and tools; every member left empty takes the production behaviour.
struct TrainerHooks {
  // Creates a backend of `kind` (cpu or gpu) in the trainer's precision. Default: the run's
  // BackendFactory (model/backend_factory.hpp).
  std::function<std::unique_ptr<Backend<float>>(BackendKind)> make_float;
  std::function<std::unique_ptr<Backend<double>>(BackendKind)> make_double;
  // Whether `auto` may use a GPU; on false `why` says why not. Default: asks the CUDA runtime.
  std::function<bool(std::string& why)> gpu_available;
  // The GPU and migration cost models for `auto`. Default: config values, else calibration.
  std::function<void(CostModel&, MigrationModel&)> cost_models;
  // The CPU cost model for auto's decision to start on the GPU. Default: a short probe.
  std::function<CostModel()> cpu_cost;
  // Whether this process has opened a GPU already (its start-up is then paid). Default: asks
  // the CUDA backend.
  std::function<bool()> gpu_started;
  // Iteration at which a GPU backend fails as a device would (0: never). Default: the
  // RBFNET_FAULT_GPU_AT_ITERATION environment variable.
  std::size_t fault_gpu_at_iteration = 0;
  // That fault is the device running out of memory. Default: RBFNET_FAULT_GPU_OUT_OF_MEMORY=1.
  bool fault_gpu_out_of_memory = false;
};

struct TrainOptions {
  IterationCallback on_iteration;         // sees every iteration as it finishes
  // Sees every iteration of the cross-validation folds' growths (data.folds), and of the
  // growths averaged with the model on every row (data.average_folds), which on_iteration does
  // not: the result's iterations are those of the model on every row.
  IterationCallback on_fold_iteration;
  // Called before each growth of a cross-validated run: what it grows ("cross-validation fold
  // 2 of 5, widths 1,2", then "all rows"), to how many nodes, and how many growths follow it
  // in this training (at most), for progress displays.
  std::function<void(const std::string& growth, std::size_t max_nodes, std::size_t growths_after)> on_growth_start;
  // Every `checkpoint_every` iterations (0: never) on_checkpoint receives the best model so
  // far with its training_state filled in: a file to predict with and to resume from.
  std::size_t checkpoint_every = 0;
  std::function<void(const Network&)> on_checkpoint;
  // When it becomes true the trainer finishes the current iteration and stops
  // (stop_reason "interrupted"); the result is then a valid checkpoint too.
  const std::atomic<bool>* stop_requested = nullptr;
  // Continue the run this state describes (same data, same config) instead of starting anew.
  const TrainingState* resume = nullptr;
  std::string data_sha256;                // recorded in checkpoints, checked on resume
  // > 0: the dataset's rows from this one on are a separate validation set (the rows of
  // data.validation_path), and data.validation is not used.
  std::size_t validation_from = 0;
  // Growths this training runs from this one on, in this process (model selection's folds and
  // width sets, then the final growth): auto shares a GPU's start-up among them.
  std::size_t growths_ahead = 1;
  // The result's network carries its training state even when the run was not interrupted,
  // so that a stop during a refit can checkpoint the run that chose the node count.
  bool state_in_result = false;
  // Not null: the growth standardizes inputs and targets with these instead of its training
  // rows' statistics, so that its nodes live in another network's space (data.average_folds).
  const Network* scalers_from = nullptr;
  // Not null: continued training (model/growth_init.cpp). The run standardizes with this
  // network's scalers, starts from its nodes and grows more, to stopping.max_nodes in all; the
  // weights are solved on the new rows. No cross-validation, width choice or refit then.
  const Network* init = nullptr;
  // Cross-validation's folds: the patience is at least the node count of the lowest validation
  // error so far, so a fold grows to at least twice that count; a curve still falling slowly
  // (Friedman #1 keeps 160-280 nodes) is not cut where the run's patience alone would cut it.
  bool patience_past_best = false;
  TrainerHooks hooks;
};

// Trains on `dataset` as `config` says. Raw tabular data (text columns, missing cells) are
// encoded first (data/feature_encoding.hpp, as data.categorical and data.missing say; a
// continued model's own encoding), and the networks the run gives (result, checkpoints) carry
// the encoding. Throws rbf::InputError for data the trainer cannot use.
TrainResult train(const data::Dataset& dataset, const Config& config, const TrainOptions& options);
TrainResult train(const data::Dataset& dataset, const Config& config,
                  const IterationCallback& on_iteration = {}, const TrainerHooks& hooks = {});

// The encoding settings of config.data.
data::EncodingOptions encoding_options(const Config& config);

// Median pairwise Euclidean distance among up to `sample` rows of the row-major n x d
// matrix x (the base width heuristic); 1 when every sampled distance is zero.
double median_distance(const double* x, std::size_t n, std::size_t d, std::size_t sample,
                       std::uint64_t seed);

}  // namespace rbf::model
