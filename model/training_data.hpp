// The trainer's inputs, prepared once per run: the standardized training and validation
// matrices, the candidate pool, and how validation predictions are scored.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/scaler.hpp"
#include "data/split.hpp"
#include "contracts/backend.hpp"
#include "model/config.hpp"

namespace rbf::model::detail {

// Standardized training and validation matrices, ready for a backend.
struct PreparedData {
  std::size_t d = 0, k = 0;
  std::vector<std::size_t> train_rows, val_rows;  // indices into the dataset
  std::vector<double> x_train, y_train, x_val;    // standardized, row-major
  std::vector<double> y_val_raw;                  // raw targets (regression) or one-hot
  std::vector<std::size_t> val_class;             // classification: true class per row
  data::Standardizer x_scaler, y_scaler;
  // Sample weights (data::Dataset::weights) of the training and of the validation rows, each
  // scaled to mean 1 (data/sample_weights.hpp); both empty for an unweighted run. The trainer
  // minimizes sum_i w_train_i ||error_i||^2: each training row, its target and every Gaussian
  // over it are multiplied by sqrt(w_i) (Backend::set_row_scale), and validation scores weigh
  // each row by w_val_i.
  std::vector<double> w_train, w_val;
  // trainer.linear_terms: d x k weights fitted before growth (empty: none). y_train then
  // holds what they leave, and val_linear (nv x k, target units) is their share of the
  // validation predictions, added back when those are scored, so that every validation
  // figure of the run is the whole model's.
  std::vector<double> linear, val_linear;
  double linear_alpha = 0;
};

// Splits, standardizes and checks the data set as `config` says. Throws rbf::InputError for
// data the trainer cannot use. Non-null scalers replace those fitted on the training rows.
PreparedData prepare(const data::Dataset& ds, const Config& config, std::size_t validation_from = 0,
                     const data::Standardizer* x_scaler = nullptr, const data::Standardizer* y_scaler = nullptr);

// The run's training and validation rows: with `validation_from` > 0 the rows before it and
// the rows from it on (a separate validation file); else stratified by class for
// classification when data.stratify is set, or a plain random split, seeded by data.seed.
data::Split validation_split(const data::Dataset& ds, const Config& config, std::size_t validation_from = 0);

// The candidate pool: P sampled training rows times S widths, candidate c = p * S + s.
struct CandidatePool {
  std::vector<double> centers;      // count x d, standardized
  std::vector<double> widths;       // count
  std::vector<std::size_t> rows;    // training-set row of each center
  std::size_t per_row = 1;          // S
  std::size_t base_width = 0;       // index s of the factor closest to 1
  double sigma0 = 1;
};

// sigma0 (configured or the median-distance heuristic) and the seeded sample of centers.
CandidatePool make_pool(const PreparedData& p, const Config& config);

template <typename T>
std::vector<T> to_scalar(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Validation metrics of the model with the first `nodes` nodes.
struct ValidationScore {
  double rmse = -1, accuracy = -1;
};

// Scores standardized validation predictions (nv x k); `scratch` is turned into target units.
ValidationScore score_predictions(const PreparedData& p, bool classify, std::vector<double>& scratch);

// What a backend needs to score the validation predictions itself (Backend::validation_sums),
// the same score as score_predictions: the targets in the predictions' standardized units with
// the linear terms' share taken off, each output's squared scale, and for classification the
// true classes and the linear terms' share of the class scores.
ValidationTargets validation_targets(const PreparedData& p, bool classify);

// The score of validation_sums' sums, as score_predictions would give it.
ValidationScore score_sums(const PreparedData& p, bool classify, const ValidationSums& sums);

template <typename T>
ValidationScore score_validation(Backend<T>& backend, const PreparedData& p, const std::vector<double>& w,
                                 std::size_t nodes, bool classify, std::vector<double>& scratch) {
  if (p.val_rows.empty()) return ValidationScore();
  ValidationSums sums;
  if (backend.validation_sums(w.data(), nodes, sums)) return score_sums(p, classify, sums);
  backend.predict_validation(w.data(), nodes, scratch);
  return score_predictions(p, classify, scratch);
}

}  // namespace rbf::model::detail
