// The scale of the class scores whose softmax is a classifier's probabilities.
//
// A classifier's network regresses one-hot class indicators by least squares, so its scores
// estimate P(class | x) but stray below 0 and above 1; clipped and normalized they gave exact
// 0s and 1s (0.8-8% of the entries on three public data sets), which make a log loss infinite
// and thresholds useless. softmax(a x scores) is positive everywhere, keeps the predicted class
// as the most probable (a > 0 only rescales the scores), and its one parameter, fitted on
// rows the network was not grown on, sets how confident the probabilities are.
//
// The loss is the cross-entropy against targets smoothed as Platt's: each row's true class
// weighs 1 - eps + eps / k and every other class eps / k, eps = 1 / (rows + 2). Without it, rows
// the scores separate (30 validation rows of iris) drive the scale to infinity and the
// probabilities to 0 and 1; with it the fitted model gives such rows their smoothed targets,
// and on many rows eps vanishes. The loss is convex in a (its second derivative is the sum of
// the scores' variances under the softmax), and its derivative, the sum over rows of the
// expected score minus the targets' mean score, rises with a: bisection on log a finds the
// root, or an end of the range.
#include "model/probability_scale.hpp"

#include <algorithm>
#include <cmath>

namespace rbf::model {

namespace {

// d/da of the smoothed log loss at scale a, over every `step`-th row.
double loss_slope(const double* scores, const std::vector<std::size_t>& classes, std::size_t k, std::size_t step,
                  double eps, double a) {
  double slope = 0.0;
  for (std::size_t i = 0; i < classes.size(); i += step) {
    const double* s = scores + i * k;
    const double largest = *std::max_element(s, s + k);
    double total = 0.0, weighted = 0.0, sum = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
      const double e = std::exp(a * (s[c] - largest));
      total += e;
      weighted += e * s[c];
      sum += s[c];
    }
    slope += weighted / total - ((1.0 - eps) * s[classes[i]] + eps * sum / static_cast<double>(k));
  }
  return slope;
}

}  // namespace

std::size_t calibrate_probabilities(Network& net, const data::Dataset& ds, const std::vector<std::size_t>& rows) {
  if (net.task != data::Task::classification || rows.empty()) return 0;
  const std::size_t step = std::max<std::size_t>(1, (rows.size() + kCalibrationRows - 1) / kCalibrationRows);
  std::vector<double> x;
  std::vector<std::size_t> classes;
  for (std::size_t i = 0; i < rows.size(); i += step) {
    x.insert(x.end(), ds.row(rows[i]), ds.row(rows[i]) + ds.features);
    classes.push_back(static_cast<std::size_t>(ds.y[rows[i]]));
  }
  std::vector<double> scores;
  net.predict(x.data(), classes.size(), scores);
  net.proba_scale = fit_probability_scale(scores.data(), classes, net.outputs);
  return classes.size();
}

double fit_probability_scale(const double* scores, const std::vector<std::size_t>& classes, std::size_t k) {
  if (classes.empty() || k < 2) return 1.0;
  const std::size_t step = std::max<std::size_t>(1, (classes.size() + kCalibrationRows - 1) / kCalibrationRows);
  const double eps = probability_smoothing((classes.size() + step - 1) / step);
  double lo = std::log(kMinProbabilityScale), hi = std::log(kMaxProbabilityScale);
  if (loss_slope(scores, classes, k, step, eps, std::exp(hi)) <= 0.0) return kMaxProbabilityScale;
  if (loss_slope(scores, classes, k, step, eps, std::exp(lo)) >= 0.0) return kMinProbabilityScale;
  // 40 halvings of a range of 13.8 in log a: a to 1e-11 relative.
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (loss_slope(scores, classes, k, step, eps, std::exp(mid)) < 0.0 ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

}  // namespace rbf::model
