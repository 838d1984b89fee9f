// Classification metrics: the confusion matrix is kept as its non-zero cells, linear in rows + classes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "model/metrics.hpp"

TEST_CASE("metrics: the confusion cells, accuracy and macro-F1 agree with a dense count") {
  std::mt19937 random(11);
  const std::size_t classes = 7, rows = 500;
  std::vector<std::size_t> truth(rows), predicted(rows);
  std::vector<std::vector<std::size_t>> dense(classes, std::vector<std::size_t>(classes, 0));
  for (std::size_t i = 0; i < rows; ++i) {
    truth[i] = random() % (classes - 1);  // the last class is never true, only predicted
    predicted[i] = random() % 3 == 0 ? random() % classes : truth[i];
    ++dense[truth[i]][predicted[i]];
  }
  const rbf::model::ClassificationMetrics m = rbf::model::classification_metrics(predicted, truth, classes);
  CHECK(rbf::model::dense_confusion(m.confusion, classes) == dense);
  for (std::size_t c = 1; c < m.confusion.size(); ++c) {
    const auto& a = m.confusion[c - 1];
    const auto& b = m.confusion[c];
    CHECK((a.truth < b.truth || (a.truth == b.truth && a.predicted < b.predicted)));
    CHECK(b.count > 0);
  }
  double f1_sum = 0, right = 0;
  std::size_t present = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    std::size_t actual = 0, guessed = 0;
    for (std::size_t o = 0; o < classes; ++o) {
      actual += dense[c][o];
      guessed += dense[o][c];
    }
    right += static_cast<double>(dense[c][c]);
    if (actual + guessed == 0) continue;
    ++present;
    f1_sum += 2.0 * static_cast<double>(dense[c][c]) / static_cast<double>(actual + guessed);
  }
  CHECK(m.accuracy == doctest::Approx(right / rows));
  CHECK(m.macro_f1 == doctest::Approx(f1_sum / static_cast<double>(present)));
}

TEST_CASE("metrics: 20,000 classes cost their rows, not a 400-million-cell matrix") {
  const std::size_t classes = 20000, rows = 40000;
  std::vector<std::size_t> truth(rows), predicted(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    truth[i] = i % classes;
    predicted[i] = i % 3 == 0 ? (i * 7) % classes : truth[i];
  }
  const rbf::model::ClassificationMetrics m = rbf::model::classification_metrics(predicted, truth, classes);
  CHECK(m.confusion.size() <= rows);
  std::size_t counted = 0;
  for (const auto& cell : m.confusion) counted += cell.count;
  CHECK(counted == rows);
  CHECK(m.macro_f1 > 0);
}

TEST_CASE("metrics: finite predictions far off give finite figures, not inf") {
  // Errors of 1e200 square past a double's range; the figures are taken in their units.
  const std::vector<double> truth{1.0, 2.0, 3.0, 4.0};
  const std::vector<double> pred{1.0, 2.0, 3.0, 4.0 + 2e200};
  const rbf::model::RegressionMetrics m = rbf::model::regression_metrics(pred.data(), truth.data(), 4, 1);
  CHECK(m.rmse[0] == doctest::Approx(1e200));  // sqrt(4e400 / 4)
  CHECK(m.mae[0] == doctest::Approx(5e199));
  CHECK(m.r2[0] < -1e300);  // beyond a double: -inf, which is what R^2 is here
  // Ordinary errors keep the plain sums' digits.
  const std::vector<double> near{1.5, 2.0, 3.0, 4.0};
  CHECK(rbf::model::regression_metrics(near.data(), truth.data(), 4, 1).rmse[0] == std::sqrt(0.25 / 4));
}
