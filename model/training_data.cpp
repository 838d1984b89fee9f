// Preparing the trainer's inputs: split, standardize, check, sample the candidate pool, and
// score validation predictions.
#include "model/training_data.hpp"

#include <algorithm>
#include <cmath>

#include "data/class_labels.hpp"
#include "data/errors.hpp"
#include "data/sample_weights.hpp"
#include "data/split.hpp"
#include "model/linear_terms.hpp"
#include "model/metrics.hpp"
#include "model/trainer.hpp"

namespace rbf::model::detail {

namespace {

// Standardized training values must be finite. Only data near the ends of the double range
// breaks this (a column sum beyond 1.8e308, a spread too small to divide by), and a clear
// error beats a model full of NaN.
void check_standardized(const data::Dataset& ds, const data::Standardizer& scaler, const std::vector<double>& values,
                        const std::vector<std::string>& names, const char* what) {
  const std::size_t cols = scaler.columns();
  std::size_t bad = cols;  // the first column with a problem
  for (std::size_t j = 0; j < cols && bad == cols; ++j)
    if (!std::isfinite(scaler.mean[j]) || !std::isfinite(scaler.scale[j])) bad = j;
  for (std::size_t i = 0; i < values.size() && bad == cols; ++i)
    if (!std::isfinite(values[i])) bad = i % cols;
  if (bad == cols) return;
  throw InputError(ds.source + ": " + what + " column '" + (bad < names.size() ? names[bad] : std::to_string(bad)) +
                   "' cannot be standardized: its values are too close to the limits of a double");
}

// Fits the linear terms on the training rows and leaves the nodes their residuals. The same
// data and config give the same fit, so a resumed run and its checkpoint agree without it
// being stored in the training state.
void fit_linear_part(PreparedData& p) {
  const std::size_t n = p.train_rows.size(), nv = p.val_rows.size();
  const LinearFit fit = fit_linear_terms(p.x_train, n, p.d, p.y_train, p.k, p.w_train);
  p.linear = fit.weights;
  p.linear_alpha = fit.alpha;
  add_linear_terms(p.x_train.data(), n, p.d, p.linear, p.k, -1.0, p.y_train.data());
  p.val_linear.assign(nv * p.k, 0.0);
  add_linear_terms(p.x_val.data(), nv, p.d, p.linear, p.k, 1.0, p.val_linear.data());
  for (std::size_t i = 0; i < nv; ++i)
    for (std::size_t j = 0; j < p.k; ++j) p.val_linear[i * p.k + j] *= p.y_scaler.scale[j];
}

}  // namespace

data::Split validation_split(const data::Dataset& ds, const Config& config, std::size_t validation_from) {
  if (validation_from > 0) {
    data::Split split;
    for (std::size_t i = 0; i < ds.rows; ++i) (i < validation_from ? split.train : split.validation).push_back(i);
    return split;
  }
  if (ds.task != data::Task::classification || !config.data.stratify)
    return data::train_validation_split(ds.rows, config.data.validation, config.data.seed);
  return data::stratified_split(data::class_of_rows(ds), config.data.validation, config.data.seed);
}

PreparedData prepare(const data::Dataset& ds, const Config& config, std::size_t validation_from,
                     const data::Standardizer* x_scaler, const data::Standardizer* y_scaler) {
  if (ds.rows < 2) throw InputError(ds.source + ": at least 2 data rows are needed to train, found " + std::to_string(ds.rows));
  PreparedData p;
  p.d = ds.features;
  const bool classify = ds.task == data::Task::classification;
  if (classify && ds.class_names.size() < 2)
    throw InputError(ds.source + ": classification needs at least 2 classes, found " + std::to_string(ds.class_names.size()));
  p.k = classify ? ds.class_names.size() : ds.targets;

  const data::Split split = validation_split(ds, config, validation_from);
  p.train_rows = split.train;
  p.val_rows = split.validation;

  p.x_scaler = x_scaler != nullptr ? *x_scaler : data::Standardizer::fit(ds.x.data(), ds.rows, ds.features, p.train_rows);
  auto take_x = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.resize(rows.size() * p.d);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::copy_n(ds.row(rows[i]), p.d, out.begin() + static_cast<std::ptrdiff_t>(i * p.d));
    p.x_scaler.transform(out.data(), rows.size());
  };
  take_x(p.train_rows, p.x_train);
  take_x(p.val_rows, p.x_val);
  check_standardized(ds, p.x_scaler, p.x_train, ds.feature_names, "feature");

  auto take_y = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.assign(rows.size() * p.k, 0.0);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (classify) {
        out[i * p.k + static_cast<std::size_t>(ds.y[rows[i]])] = 1.0;
      } else {
        std::copy_n(ds.y.begin() + static_cast<std::ptrdiff_t>(rows[i] * ds.targets), p.k,
                    out.begin() + static_cast<std::ptrdiff_t>(i * p.k));
      }
    }
  };
  take_y(p.train_rows, p.y_train);
  take_y(p.val_rows, p.y_val_raw);
  if (classify) {
    p.y_scaler = data::Standardizer::identity(p.k);
    for (std::size_t r : p.val_rows) p.val_class.push_back(static_cast<std::size_t>(ds.y[r]));
  } else {
    p.y_scaler = y_scaler != nullptr ? *y_scaler : data::Standardizer::fit(p.y_train.data(), p.train_rows.size(), p.k);
    p.y_scaler.transform(p.y_train.data(), p.train_rows.size());
    check_standardized(ds, p.y_scaler, p.y_train, ds.target_names, "target");
  }
  p.w_train = data::rows_weights_with_unit_mean(ds.weights, p.train_rows, ds.source + ": every training row");
  p.w_val = data::rows_weights_with_unit_mean(ds.weights, p.val_rows, ds.source + ": every validation row");
  if (linear_terms_wanted(config, p.train_rows.size(), p.d)) fit_linear_part(p);
  return p;
}



CandidatePool make_pool(const PreparedData& p, const Config& config) {
  const std::size_t n = p.train_rows.size();
  CandidatePool pool;
  pool.sigma0 = config.candidates.sigma0 > 0
                    ? config.candidates.sigma0
                    : median_distance(p.x_train.data(), n, p.d, config.candidates.sigma0_sample,
                                      config.data.seed + 1);
  const auto& factors = config.candidates.width_factors;
  pool.per_row = factors.size();
  for (std::size_t s = 0; s < factors.size(); ++s)
    if (std::abs(std::log(factors[s])) < std::abs(std::log(factors[pool.base_width]))) pool.base_width = s;
  const std::vector<std::size_t> picked = data::sample_indices(n, config.candidates.pool, config.data.seed + 2);
  for (std::size_t r : picked) {
    for (double f : factors) {
      pool.centers.insert(pool.centers.end(), p.x_train.begin() + static_cast<std::ptrdiff_t>(r * p.d),
                          p.x_train.begin() + static_cast<std::ptrdiff_t>((r + 1) * p.d));
      pool.widths.push_back(f * pool.sigma0);
      pool.rows.push_back(r);
    }
  }
  return pool;
}





// Scores standardized validation predictions (nv x k); `pred` is turned into target units.
ValidationScore score_predictions(const PreparedData& p, bool classify, std::vector<double>& scratch) {
  ValidationScore score;
  const std::size_t nv = p.val_rows.size();
  if (nv == 0) return score;
  if (!classify) p.y_scaler.inverse_transform(scratch.data(), nv);
  for (std::size_t i = 0; i < p.val_linear.size(); ++i) scratch[i] += p.val_linear[i];
  // Pooled over all k outputs: for classification, the distance of the scores from one-hot.
  score.rmse = pooled_rmse(scratch.data(), p.y_val_raw.data(), nv, p.k, p.w_val);
  if (classify) {
    score.accuracy = accuracy(predicted_classes(scratch.data(), nv, p.k), p.val_class, p.w_val);
  }
  return score;
}

ValidationTargets validation_targets(const PreparedData& p, bool classify) {
  ValidationTargets t;
  const std::size_t nv = p.val_rows.size(), k = p.k;
  // score_predictions turns a standardized prediction v into v * scale + mean (+ the linear
  // share) and compares it with the raw target y: an error of scale * (v - target).
  t.target.resize(nv * k);
  for (std::size_t i = 0; i < nv; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      const double linear = p.val_linear.empty() ? 0.0 : p.val_linear[i * k + j];
      t.target[i * k + j] = (p.y_val_raw[i * k + j] - linear - p.y_scaler.mean[j]) / p.y_scaler.scale[j];
    }
  t.error_weight.resize(k);
  for (std::size_t j = 0; j < k; ++j) t.error_weight[j] = p.y_scaler.scale[j] * p.y_scaler.scale[j];
  if (classify) {
    t.class_offset = p.val_linear;  // class scores are not scaled (the scaler is the identity)
    t.classes.assign(p.val_class.begin(), p.val_class.end());
  }
  t.row_weight = p.w_val;
  return t;
}

ValidationScore score_sums(const PreparedData& p, bool classify, const ValidationSums& sums) {
  ValidationScore score;
  const std::size_t nv = p.val_rows.size();
  if (nv == 0) return score;
  score.rmse = std::sqrt(sums.weighted_sse / static_cast<double>(nv * p.k));  // NaN stays NaN
  // Row weights have mean 1 over the validation rows: the same divisors hold.
  if (classify) score.accuracy = sums.correct / static_cast<double>(nv);
  return score;
}

}  // namespace rbf::model::detail
