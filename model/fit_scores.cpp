// Scoring the kept network on its training and validation rows for the training summary.
#include "model/fit_scores.hpp"

#include "model/metrics.hpp"

namespace rbf::model {

FitScores score_rows(const Network& net, const data::Dataset& ds, const std::vector<std::size_t>& rows) {
  FitScores s;
  if (rows.empty()) return s;
  s.rows = rows.size();
  // Every row in order (a refit's, a run without validation) is the data set itself: no copy.
  bool in_order = rows.size() == ds.rows;
  for (std::size_t i = 0; in_order && i < rows.size(); ++i) in_order = rows[i] == i;
  std::vector<double> x;
  if (!in_order) {
    x.reserve(rows.size() * ds.features);
    for (std::size_t r : rows) x.insert(x.end(), ds.row(r), ds.row(r) + ds.features);
  }
  std::vector<double> pred;
  net.predict(in_order ? ds.x.data() : x.data(), rows.size(), pred);
  const std::size_t k = net.outputs;
  // The truth in the shape of the predictions: the targets, or one-hot classes.
  std::vector<double> truth(rows.size() * k, 0.0);
  const bool classify = net.task == data::Task::classification;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (classify) {
      truth[i * k + static_cast<std::size_t>(ds.y[rows[i]])] = 1.0;
    } else {
      for (std::size_t j = 0; j < k; ++j) truth[i * k + j] = ds.y[rows[i] * ds.targets + j];
    }
  }
  std::vector<double> weights;  // the rows' sample weights, if the data have them
  for (std::size_t i = 0; i < rows.size() && !ds.weights.empty(); ++i) weights.push_back(ds.weights[rows[i]]);
  s.rmse = pooled_rmse(pred.data(), truth.data(), rows.size(), k, weights);
  if (classify) {
    std::vector<std::size_t> truth_class(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) truth_class[i] = static_cast<std::size_t>(ds.y[rows[i]]);
    s.accuracy = accuracy(predicted_classes(pred.data(), rows.size(), k), truth_class, weights);
  } else {
    const RegressionMetrics m =
        regression_metrics(pred.data(), truth.data(), rows.size(), k, weights.empty() ? nullptr : weights.data());
    double sum = 0;
    for (double r2 : m.r2) sum += r2;
    s.r2 = sum / static_cast<double>(k);
  }
  return s;
}

}  // namespace rbf::model
