// Classifier probabilities: softmax(a x class scores) with a fitted on held-out rows
// (model/probability_scale.cpp), the clipped scores of older model files, and the scale kept
// in the model file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/split.hpp"
#include "model/metrics.hpp"
#include "model/model_file.hpp"
#include "model/probability_scale.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

std::string bundled_data(const char* name) { return std::string(RBF_SOURCE_DIR) + "/data/" + name; }

}  // namespace

TEST_CASE("metrics: without a scale (older files) probabilities are the clipped scores, never exactly 0 or 1") {
  const double scores[] = {0.6, 0.6, -0.2, 0.5, 0.5, 0.0, -1, -2, -0.5};
  const std::vector<double> p = model::class_probabilities(scores, 3, 3, 0.0);
  const std::vector<double> expected{0.5, 0.5, 0, 0.5, 0.5, 0, 0, 0, 1};
  REQUIRE(p.size() == expected.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    CHECK(p[i] == doctest::Approx(expected[i]).epsilon(1e-9));
    CHECK(p[i] > 0.0);
    CHECK(p[i] < 1.0);
  }
}

TEST_CASE("metrics: with a scale probabilities are the softmax of the scaled scores") {
  const double scores[] = {0.6, 0.6, -0.2, 0.9, 0.1, 0.0, -1, -2, -0.5};
  for (const double scale : {0.5, 4.0, 900.0}) {
    CAPTURE(scale);
    const std::vector<double> p = model::class_probabilities(scores, 3, 3, scale);
    for (std::size_t i = 0; i < 3; ++i) {
      double total = 0, exps = 0, top = scores[i * 3];
      for (std::size_t c = 1; c < 3; ++c) top = std::max(top, scores[i * 3 + c]);
      for (std::size_t c = 0; c < 3; ++c) exps += std::exp(scale * (scores[i * 3 + c] - top));
      for (std::size_t c = 0; c < 3; ++c) {
        total += p[i * 3 + c];
        CHECK(p[i * 3 + c] > 0.0);
        CHECK(p[i * 3 + c] < 1.0);
        CHECK(p[i * 3 + c] == doctest::Approx(std::exp(scale * (scores[i * 3 + c] - top)) / exps).epsilon(1e-9));
      }
      CHECK(total == doctest::Approx(1.0));
    }
    CHECK(model::predicted_classes(p.data(), 3, 3) == model::predicted_classes(scores, 3, 3));
  }
}

namespace {

// The cross-entropy of softmax(a x scores) against the smoothed targets.
double softmax_log_loss(const std::vector<double>& scores, const std::vector<std::size_t>& classes, std::size_t k,
                        double a) {
  const double eps = model::probability_smoothing(classes.size());
  double loss = 0;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    double total = 0;
    for (std::size_t c = 0; c < k; ++c) total += std::exp(a * scores[i * k + c]);
    for (std::size_t c = 0; c < k; ++c) {
      const double target = (c == classes[i] ? 1.0 - eps : 0.0) + eps / static_cast<double>(k);
      loss -= target * (a * scores[i * k + c] - std::log(total));
    }
  }
  return loss;
}

}  // namespace

TEST_CASE("probability scale: the least log loss of softmax(a x scores) on the rows") {
  // Least-squares class scores: near 1 for the true class, near 0 elsewhere, noisy.
  data::SplitMix64 rng(5);
  const std::size_t k = 3, rows = 600;
  std::vector<double> scores(rows * k);
  std::vector<std::size_t> classes(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    classes[i] = rng.below(k);
    for (std::size_t c = 0; c < k; ++c) scores[i * k + c] = (c == classes[i] ? 0.7 : 0.15) + 0.35 * rng.normal();
  }
  const double a = model::fit_probability_scale(scores.data(), classes, k);
  CHECK(a > model::kMinProbabilityScale);
  CHECK(a < model::kMaxProbabilityScale);
  const double best = softmax_log_loss(scores, classes, k, a);
  for (double g = -3; g <= 3; g += 0.01) CHECK(best <= softmax_log_loss(scores, classes, k, std::pow(10.0, g)) + 1e-9);

  // Separated rows: the fitted probabilities are the smoothed targets, not 0 and 1.
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < k; ++c) scores[i * k + c] = c == classes[i] ? 1.0 : 0.0;
  const double separated = model::fit_probability_scale(scores.data(), classes, k);
  CHECK(separated < model::kMaxProbabilityScale);
  const double top = std::exp(separated) / (std::exp(separated) + static_cast<double>(k - 1));
  const double eps = model::probability_smoothing(rows);
  CHECK(top == doctest::Approx(1.0 - eps + eps / static_cast<double>(k)).epsilon(1e-9));
}

TEST_CASE("probability scale: a classifier's training fits it on the validation rows and the model file keeps it") {
  const data::Dataset ds = data::read_csv(bundled_data("iris.csv"), {}, {{"species"}, {}, ""});
  model::Config config;
  config.stopping.max_nodes = 15;
  config.data.folds = 0;
  config.trainer.threads = 1;
  const model::TrainResult result = model::train(ds, config);
  CHECK(result.network.proba_scale > 0);
  CHECK(result.proba_fitted_on == "validation");
  CHECK(result.proba_rows == result.validation_rows);
  const std::vector<std::uint8_t> bytes = model::serialize_network(result.network);
  const model::Network again = model::parse_network(bytes.data(), bytes.size(), "iris.rbfn");
  CHECK(again.proba_scale == result.network.proba_scale);
}
