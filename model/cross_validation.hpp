// K-fold cross-validation for small data (data.folds): the node count and the width factors
// chosen on the folds' validation errors, then the chosen model grown on every row.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "model/config.hpp"
#include "model/trainer.hpp"

namespace rbf::model {

// data.folds auto: this many folds while training rows x candidates stays at most
// kCrossValidationMaxWork (about 5,000 rows at the default pool and widths), where every
// fold grows a whole model in well under a second; larger data holds out validation rows.
constexpr std::size_t kAutoFolds = 5;
constexpr double kCrossValidationMaxWork = 1.6e7;

// Rows x candidates (pool capped at the rows, times the width factors): what one growth costs,
// to which the two limits above and model/width_choice.hpp's are compared.
double model_selection_work(const data::Dataset& dataset, const Config& config);

// "0.5,1,2": width factors for messages.
std::string widths_text(const std::vector<double>& widths);

// The fold count of this run, 0 = hold out validation rows. auto gives kAutoFolds when the
// data are small and nothing rules cross-validation out (a validation file, no validation,
// checkpoints, a resumed run, a refit, refinement, a time limit, too few rows of a class); an
// explicit count that cannot be honoured is an InputError naming the key.
std::size_t cross_validation_folds(const data::Dataset& dataset, const Config& config, const TrainOptions& options);

// An InputError naming data.folds when it asks for a fold count that the other settings rule
// out (checkpoints, a resumed run, a validation file, a refit, refinement, a time limit):
// checked before the data are read.
void check_folds_request(const Config& config, bool resuming);

// `config` with trainer.precision and trainer.dependency_tol made concrete: auto precision is
// float64 when the run chooses its model among several growths (cross-validation, or the
// width choice of model/width_choice.hpp: wide Gaussians stay independent enough to grow only
// in float64, and the data are small enough to make it cheap), float32 otherwise; auto
// tolerance 1e-4 in float32, 1e-9 in float64.
Config resolve_auto_arithmetic(const Config& config, bool choosing_among_growths);

// The width factors cross-validation tries: candidates.width_factors, and the same without
// its narrowest factor (smooth targets do better with only the wider Gaussians).
std::vector<std::vector<double>> cross_validation_width_sets(const std::vector<double>& width_factors);

namespace detail {

// Each fold's validation RMSE (and accuracy, for classes) at 0, 1, ... nodes, for one width set.
struct FoldCurves {
  std::vector<std::vector<double>> rmse;
  std::vector<std::vector<double>> accuracy;
};

struct CrossValidationChoice {
  std::size_t set = 0;
  std::size_t nodes = 0;
  double mse = std::numeric_limits<double>::infinity();  // mean over the folds
  double standard_error = 0;                              // of that mean
  double accuracy = -1;                                   // mean over the folds (classification)
  std::size_t lowest_nodes = 0;                           // where the mean MSE is lowest
  double lowest_mse = std::numeric_limits<double>::infinity();
};

// The width set and node count with the lowest mean validation MSE over the folds, except
// that no Gaussians (0 nodes) are chosen when their mean is within one standard error of
// that lowest mean.
CrossValidationChoice choose_from_folds(const std::vector<FoldCurves>& per_set);

// What a stop during model selection returns: interrupted, with nothing to save, since a
// growth's checkpoint would resume with another configuration (widths, precision) than the one
// a resumed run resolves; `stage` says when (TrainResult::unsaved_stage).
TrainResult stopped_with_nothing_to_save(const std::string& stage);

// One growth on `dataset` as `config` says (the trainer's, without cross-validation).
using GrowFunction = std::function<TrainResult(const data::Dataset&, const Config&, const TrainOptions&)>;

// Grows every width set on every fold to stopping.max_nodes (no early stopping), picks the
// width set and node count as choose_from_folds does, and grows that
// model on every row; its output ridge is the median of the folds' choices when
// trainer.output_ridge is auto. With data.average_folds and Gaussians chosen, the result is
// that model averaged with one grown to the same count on each fold's training rows.
TrainResult train_cross_validated(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  std::size_t folds, const GrowFunction& grow);

}  // namespace detail
}  // namespace rbf::model
