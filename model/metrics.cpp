// Evaluation metrics shared by `rbfnet evaluate`, the trainer's summary and the tests.
#include "model/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rbf::model {

namespace {

// Sum of squared differences of `count` values `stride` apart.
double squared_error(const double* pred, const double* truth, std::size_t count, std::size_t stride) {
  double sse = 0;
  for (std::size_t i = 0; i < count * stride; i += stride) {
    const double e = pred[i] - truth[i];
    sse += e * e;
  }
  return sse;
}

// Output j's sums of squared errors, absolute errors and squared deviations from `mean`, each
// term in units of `unit`. With unit 1 these are the plain sums, whose last digits scikit-learn
// gives (each term divided by 1 is itself).
struct Sums {
  double sse = 0, sae = 0, sst = 0;
  bool finite() const { return std::isfinite(sse) && std::isfinite(sae) && std::isfinite(sst); }
};

Sums sums_in_units(const double* pred, const double* truth, std::size_t rows, std::size_t k, std::size_t j,
                   double mean, double unit, const double* weights) {
  Sums s;
  for (std::size_t i = 0; i < rows; ++i) {
    const double e = (pred[i * k + j] - truth[i * k + j]) / unit;
    const double c = (truth[i * k + j] - mean) / unit;
    const double w = weights != nullptr ? weights[i] : 1.0;
    s.sse += w * (e * e);
    s.sae += w * std::abs(e);
    s.sst += w * (c * c);
  }
  return s;
}

double total_weight(const double* weights, std::size_t rows) {
  if (weights == nullptr) return static_cast<double>(rows);
  double total = 0;
  for (std::size_t i = 0; i < rows; ++i) total += weights[i];
  return total;
}

// The unit that keeps output j's sums finite, as hypot does: its largest error or deviation
// from `mean` (the mean of each target divided by n, which cannot overflow); 0 when none is a
// finite positive number (an error past a double's range is infinite indeed).
double largest_term(const double* pred, const double* truth, std::size_t rows, std::size_t k, std::size_t j,
                    double mean) {
  double unit = 0;
  for (std::size_t i = 0; i < rows; ++i)
    unit = std::max({unit, std::abs(pred[i * k + j] - truth[i * k + j]), std::abs(truth[i * k + j] - mean)});
  return unit > 0 && std::isfinite(unit) ? unit : 0.0;
}

}  // namespace

RegressionMetrics regression_metrics(const double* pred, const double* truth, std::size_t rows, std::size_t k,
                                     const double* weights) {
  RegressionMetrics m;
  m.rmse.assign(k, 0.0);
  m.mae.assign(k, 0.0);
  m.r2.assign(k, 0.0);
  const double n = total_weight(weights, rows);  // the rows' count when unweighted
  if (rows == 0 || !(n > 0)) return m;
  for (std::size_t j = 0; j < k; ++j) {
    double mean = 0;
    for (std::size_t i = 0; i < rows; ++i) mean += (weights != nullptr ? weights[i] : 1.0) * truth[i * k + j];
    mean /= n;
    const Sums plain = sums_in_units(pred, truth, rows, k, j, mean, 1.0, weights);
    // R^2 is undefined for a constant target; report 0 for an exact fit-free baseline.
    m.r2[j] = plain.sst > 0 ? 1.0 - plain.sse / plain.sst : (plain.sse == 0 ? 1.0 : 0.0);
    Sums s = plain;
    double unit = 1.0;
    if (!plain.finite()) {
      // Finite predictions far from their targets (1e200 off, say) square past a double's
      // range, and a finite answer would read "RMSE inf": the sums again in larger units.
      double scaled_mean = 0;
      for (std::size_t i = 0; i < rows; ++i) scaled_mean += (weights != nullptr ? weights[i] : 1.0) * (truth[i * k + j] / n);
      const double largest = largest_term(pred, truth, rows, k, j, scaled_mean);
      if (largest > 0) {
        unit = largest;
        s = sums_in_units(pred, truth, rows, k, j, scaled_mean, unit, weights);
        // Where the deviations vanish in these units R^2 lies beyond a double: the plain -inf stays.
        if (s.sst > 0) m.r2[j] = 1.0 - s.sse / s.sst;
      }
    }
    m.rmse[j] = unit * std::sqrt(s.sse / n);
    m.mae[j] = unit * (s.sae / n);
  }
  return m;
}

double pooled_rmse(const double* pred, const double* truth, std::size_t count) {
  if (count == 0) return 0.0;
  return std::sqrt(squared_error(pred, truth, count, 1) / static_cast<double>(count));
}

double pooled_rmse(const double* pred, const double* truth, std::size_t rows, std::size_t k,
                   const std::vector<double>& weights) {
  if (weights.empty()) return pooled_rmse(pred, truth, rows * k);
  const double n = total_weight(weights.data(), rows) * static_cast<double>(k);
  if (!(n > 0)) return 0.0;
  double sse = 0;
  for (std::size_t i = 0; i < rows; ++i) sse += weights[i] * squared_error(pred + i * k, truth + i * k, k, 1);
  return std::sqrt(sse / n);
}

double accuracy(const std::vector<std::size_t>& predicted, const std::vector<std::size_t>& truth) {
  std::size_t right = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) right += truth[i] == predicted[i];
  return truth.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(truth.size());
}

double accuracy(const std::vector<std::size_t>& predicted, const std::vector<std::size_t>& truth,
                const std::vector<double>& weights) {
  if (weights.empty()) return accuracy(predicted, truth);
  double right = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) right += truth[i] == predicted[i] ? weights[i] : 0.0;
  const double total = total_weight(weights.data(), truth.size());
  return total > 0 ? right / total : 0.0;
}

ClassificationMetrics classification_metrics(const std::vector<std::size_t>& predicted,
                                             const std::vector<std::size_t>& truth, std::size_t classes,
                                             const std::vector<double>& weights) {
  ClassificationMetrics m;
  std::vector<std::pair<std::size_t, std::size_t>> pairs(truth.size());
  std::vector<double> right(classes, 0), actual(classes, 0), guessed(classes, 0);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    pairs[i] = {truth[i], predicted[i]};
    actual[truth[i]] += w;
    guessed[predicted[i]] += w;
    if (truth[i] == predicted[i]) right[truth[i]] += w;
  }
  std::sort(pairs.begin(), pairs.end());
  for (const auto& pair : pairs) {
    if (m.confusion.empty() || m.confusion.back().truth != pair.first || m.confusion.back().predicted != pair.second)
      m.confusion.push_back(ConfusionCell{pair.first, pair.second, 0});
    ++m.confusion.back().count;
  }
  m.accuracy = accuracy(predicted, truth, weights);
  double f1_sum = 0;
  std::size_t present = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    if (actual[c] == 0 && guessed[c] == 0) continue;
    ++present;
    f1_sum += 2.0 * right[c] / (actual[c] + guessed[c]);
  }
  m.macro_f1 = present ? f1_sum / static_cast<double>(present) : 0.0;
  return m;
}

std::vector<std::vector<std::size_t>> dense_confusion(const std::vector<ConfusionCell>& cells, std::size_t classes) {
  std::vector<std::vector<std::size_t>> matrix(classes, std::vector<std::size_t>(classes, 0));
  for (const ConfusionCell& cell : cells) matrix[cell.truth][cell.predicted] = cell.count;
  return matrix;
}

std::vector<std::size_t> predicted_classes(const double* scores, std::size_t rows, std::size_t k) {
  std::vector<std::size_t> classes(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* s = scores + i * k;
    classes[i] = static_cast<std::size_t>(std::max_element(s, s + k) - s);
  }
  return classes;
}

std::vector<double> class_probabilities(const double* scores, std::size_t rows, std::size_t k, double scale) {
  std::vector<double> proba(scores, scores + rows * k);
  const std::vector<std::size_t> top = predicted_classes(scores, rows, k);
  const double lift = 1.0 + static_cast<double>(k) * kProbabilityFloor;
  for (std::size_t i = 0; i < rows; ++i) {
    double* p = proba.data() + i * k;
    double total = 0;
    if (scale > 0) {
      const double largest = p[top[i]];  // subtracted: no overflow, the top term is 1
      for (std::size_t c = 0; c < k; ++c) total += p[c] = std::exp(scale * (p[c] - largest));
    } else {
      for (std::size_t c = 0; c < k; ++c) total += p[c] = std::max(p[c], 0.0);
      if (!(total > 0)) {
        p[top[i]] = total = 1.0;
      }
    }
    for (std::size_t c = 0; c < k; ++c) p[c] = (p[c] / total + kProbabilityFloor) / lift;
  }
  return proba;
}

}  // namespace rbf::model
