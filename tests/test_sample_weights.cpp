// Sample weights: the CSV weight column, the weighted metrics (as scikit-learn's sample_weight
// defines them), and the trainer: a row of weight 0 is a row left out, and weights change
// which rows the fit follows.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/sample_weights.hpp"
#include "data/synthetic.hpp"
#include "model/fit_scores.hpp"
#include "model/metrics.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

model::Config small_config() {
  model::Config c;
  c.data.folds = 0;
  c.stopping.max_nodes = 25;
  c.trainer.threads = 1;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

std::vector<double> predictions(const model::Network& net, const data::Dataset& ds) {
  std::vector<double> out;
  net.predict(ds.x.data(), ds.rows, out);
  return out;
}

}  // namespace

TEST_CASE("sample weights: the CSV weight column is neither feature nor target, and bad weights name their cell") {
  data::ColumnSpec spec{{"y"}, {}, "w"};
  const data::Dataset ds = data::parse_csv("a,w,y\n1,2,3\n4,0.5,6\n", "w.csv", {}, spec);
  CHECK(ds.features == 1);
  CHECK(ds.feature_names == std::vector<std::string>{"a"});
  CHECK(ds.weights == std::vector<double>{2.0, 0.5});
  CHECK(ds.weight_name == "w");
  spec.weight = "1";  // by index, too
  CHECK(data::parse_csv("a,w,y\n1,2,3\n4,0.5,6\n", "w.csv", {}, spec).weights == std::vector<double>{2.0, 0.5});
  spec.weight = "w";
  CHECK_THROWS_WITH_AS(data::parse_csv("a,w,y\n1,2,3\n4,-0.5,6\n", "w.csv", {}, spec),
                       doctest::Contains("w.csv:3:2: the sample weight -0.5 in column 'w' is negative"), InputError);
  CHECK_THROWS_WITH_AS(data::parse_csv("a,w,y\n1,x,3\n", "w.csv", {}, spec), doctest::Contains("w.csv:2:2:"),
                       InputError);
  CHECK_THROWS_WITH_AS(data::parse_csv("a,w,y\n1,0,3\n2,0,4\n", "w.csv", {}, spec),
                       doctest::Contains("the sample weights in column 'w' are all zero"), InputError);
  CHECK_THROWS_WITH_AS(data::check_weights({1.0, std::nan("")}, "sample_weight"),
                       doctest::Contains("sample_weight: row 2 has the weight nan"), InputError);
}

TEST_CASE("sample weights: weighted metrics equal the metrics of rows repeated by their weights") {
  const std::vector<double> pred{1.0, 2.5, 2.0, 7.0}, truth{1.5, 2.0, 4.0, 6.0}, weight{2.0, 1.0, 3.0, 1.0};
  std::vector<double> rp, rt;
  for (std::size_t i = 0; i < pred.size(); ++i)
    for (int c = 0; c < static_cast<int>(weight[i]); ++c) {
      rp.push_back(pred[i]);
      rt.push_back(truth[i]);
    }
  const model::RegressionMetrics w = model::regression_metrics(pred.data(), truth.data(), 4, 1, weight.data());
  const model::RegressionMetrics r = model::regression_metrics(rp.data(), rt.data(), rp.size(), 1);
  CHECK(w.rmse[0] == doctest::Approx(r.rmse[0]).epsilon(1e-14));
  CHECK(w.mae[0] == doctest::Approx(r.mae[0]).epsilon(1e-14));
  CHECK(w.r2[0] == doctest::Approx(r.r2[0]).epsilon(1e-14));
  CHECK(model::pooled_rmse(pred.data(), truth.data(), 4, 1, weight) == doctest::Approx(r.rmse[0]).epsilon(1e-14));
  // Classes 0 1 1 0 predicted 0 1 0 0: the third row (weight 3) is wrong.
  const std::vector<std::size_t> predicted{0, 1, 0, 0}, truth_class{0, 1, 1, 0};
  CHECK(model::accuracy(predicted, truth_class, weight) == doctest::Approx(4.0 / 7.0));
  const model::ClassificationMetrics m = model::classification_metrics(predicted, truth_class, 2, weight);
  CHECK(m.accuracy == doctest::Approx(4.0 / 7.0));
  // Class 0: 3 right of 3 true, 6 guessed (F1 = 6/9); class 1: 1 right of 4 true, 1 guessed (2/5).
  CHECK(m.macro_f1 == doctest::Approx((6.0 / 9.0 + 2.0 / 5.0) / 2));
  CHECK(data::balanced_class_weights({0, 1, 1, 1}, 2) == std::vector<double>{2.0, 4.0 / 6.0});
}

TEST_CASE("sample weights: rows of weight 0 are rows left out, and weights steer the fit") {
  data::Dataset ds = data::make_friedman1(400, 5, 0.3, 11);
  data::Dataset kept = ds;
  kept.rows = 0;
  kept.x.clear();
  kept.y.clear();
  ds.weights.assign(ds.rows, 1.0);
  for (std::size_t i = 0; i < ds.rows; ++i) {
    if (i % 5 == 2) {
      ds.weights[i] = 0;
      continue;
    }
    kept.x.insert(kept.x.end(), ds.row(i), ds.row(i) + ds.features);
    kept.y.push_back(ds.y[i]);
    ++kept.rows;
  }
  const model::Config config = small_config();
  const model::TrainResult weighted = model::train(ds, config);
  const model::TrainResult left_out = model::train(kept, config);
  CHECK(weighted.network.nodes() == left_out.network.nodes());
  const std::vector<double> a = predictions(weighted.network, ds), b = predictions(left_out.network, ds);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-9));

  // Rows whose target is wrong by 30: weight 0 and they are ignored; weight 1 and the fit
  // bends toward them.
  data::Dataset noisy = ds;
  for (std::size_t i = 0; i < noisy.rows; ++i)
    if (i % 5 == 2) noisy.y[i] += 30;
  std::vector<std::size_t> clean;
  for (std::size_t i = 0; i < ds.rows; ++i)
    if (i % 5 != 2) clean.push_back(i);
  const double ignored = model::score_rows(model::train(noisy, config).network, ds, clean).rmse;
  noisy.weights.clear();
  const double followed = model::score_rows(model::train(noisy, config).network, ds, clean).rmse;
  CHECK(ignored < 1.0);
  CHECK(followed > 3.0);
}
