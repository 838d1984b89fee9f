// Evaluation metrics shared by `rbfnet evaluate`, the trainer's summary and the tests.
#include "model/metrics.hpp"

#include <cmath>

namespace rbf::model {

RegressionMetrics regression_metrics(const double* pred, const double* truth, std::size_t rows, std::size_t k) {
  RegressionMetrics m;
  m.rmse.assign(k, 0.0);
  m.mae.assign(k, 0.0);
  m.r2.assign(k, 0.0);
  if (rows == 0) return m;
  for (std::size_t j = 0; j < k; ++j) {
    double mean = 0;
    for (std::size_t i = 0; i < rows; ++i) mean += truth[i * k + j];
    mean /= static_cast<double>(rows);
    double sse = 0, sae = 0, sst = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      const double e = pred[i * k + j] - truth[i * k + j];
      sse += e * e;
      sae += std::abs(e);
      const double c = truth[i * k + j] - mean;
      sst += c * c;
    }
    m.rmse[j] = std::sqrt(sse / static_cast<double>(rows));
    m.mae[j] = sae / static_cast<double>(rows);
    // R^2 is undefined for a constant target; report 0 for an exact fit-free baseline.
    m.r2[j] = sst > 0 ? 1.0 - sse / sst : (sse == 0 ? 1.0 : 0.0);
  }
  return m;
}

ClassificationMetrics classification_metrics(const std::vector<std::size_t>& predicted,
                                             const std::vector<std::size_t>& truth, std::size_t classes) {
  ClassificationMetrics m;
  m.confusion.assign(classes, std::vector<std::size_t>(classes, 0));
  std::size_t right = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    ++m.confusion[truth[i]][predicted[i]];
    right += truth[i] == predicted[i];
  }
  m.accuracy = truth.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(truth.size());
  double f1_sum = 0;
  std::size_t present = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    std::size_t tp = m.confusion[c][c], actual = 0, guessed = 0;
    for (std::size_t o = 0; o < classes; ++o) {
      actual += m.confusion[c][o];
      guessed += m.confusion[o][c];
    }
    if (actual == 0 && guessed == 0) continue;
    ++present;
    f1_sum += 2.0 * static_cast<double>(tp) / static_cast<double>(actual + guessed);
  }
  m.macro_f1 = present ? f1_sum / static_cast<double>(present) : 0.0;
  return m;
}

}  // namespace rbf::model
