// Tests of the linear terms beside the Gaussians: the ridge fit, training on linear data,
// refit, the network's predictions and the model file's LINR section.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/split.hpp"
#include "model/linear_terms.hpp"
#include "model/trainer.hpp"
#include "tests/model_file_test_support.hpp"

using namespace rbf::test::model_files;

namespace {

// y = 3 + 2 a - 5 b + 0 c, exactly, on raw inputs of different scales; with `noise`, plus a
// Gaussian bump and noise, so that nodes have something to fit.
rbf::data::Dataset linear_data(std::size_t n, std::uint64_t seed, double noise = 0) {
  rbf::data::Dataset ds;
  ds.source = "linear";
  ds.rows = n;
  ds.features = 3;
  ds.targets = 1;
  rbf::data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = rng.uniform() * 10, b = rng.uniform() - 0.5, c = rng.uniform() * 100;
    ds.x.insert(ds.x.end(), {a, b, c});
    double y = 3 + 2 * a - 5 * b;
    if (noise > 0) y += 4 * std::exp(-(a - 5) * (a - 5)) + noise * rng.normal();
    ds.y.push_back(y);
  }
  ds.feature_names = {"a", "b", "c"};
  ds.target_names = {"y"};
  return ds;
}

rbf::model::Config linear_config(rbf::model::LinearTerms mode) {
  rbf::model::Config c;
  c.trainer.linear_terms = mode;
  c.data.folds = 0;  // one growth with hold-out rows
  c.trainer.precision = rbf::model::Precision::float64;
  c.trainer.threads = 2;
  c.stopping.max_nodes = 40;
  c.logging.progress = false;
  c.backend.kind = rbf::model::BackendKind::cpu;
  return c;
}

double max_abs_error(const rbf::model::Network& net, const rbf::data::Dataset& ds) {
  std::vector<double> out;
  net.predict(ds.x.data(), ds.rows, out);
  double worst = 0;
  for (std::size_t i = 0; i < ds.rows; ++i) worst = std::max(worst, std::abs(out[i] - ds.y[i]));
  return worst;
}

Network with_linear(Network n) {
  n.linear.assign(n.inputs * n.outputs, 0.0);
  for (std::size_t i = 0; i < n.linear.size(); ++i) n.linear[i] = 0.25 * static_cast<double>(i) - 0.5;
  return n;
}

std::uint32_t u32_at(const Bytes& b, std::size_t at) {
  return static_cast<std::uint32_t>(get_u64(b, at) & 0xffffffffu);
}

bool has_tag(const Bytes& b, const char* tag) {
  return std::search(b.begin(), b.end(), tag, tag + 4) != b.end();
}

}  // namespace

TEST_CASE("linear terms: the ridge fit recovers exact weights without a penalty") {
  // Standardized-like inputs (zero means) and targets that are an exact linear map of them.
  const std::size_t n = 50, d = 3, k = 2;
  rbf::data::SplitMix64 rng(7);
  std::vector<double> x(n * d), y(n * k);
  for (double& v : x) v = rng.normal();
  for (std::size_t f = 0; f < d; ++f) {
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += x[i * d + f] / n;
    for (std::size_t i = 0; i < n; ++i) x[i * d + f] -= mean;
  }
  const double w[d][k] = {{1.5, 0}, {-2, 0.5}, {0.25, 3}};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      y[i * k + j] = 7.0 * static_cast<double>(j + 1);  // an intercept, left to the bias
      for (std::size_t f = 0; f < d; ++f) y[i * k + j] += x[i * d + f] * w[f][j];
    }
  const rbf::model::LinearFit fit = rbf::model::fit_linear_terms(x, n, d, y, k);
  CHECK(fit.alpha == 0);
  for (std::size_t f = 0; f < d; ++f)
    for (std::size_t j = 0; j < k; ++j) CHECK(fit.weights[f * k + j] == doctest::Approx(w[f][j]).epsilon(1e-12));
}

TEST_CASE("linear terms: auto is on unless the features outnumber the candidates or the fit is large") {
  rbf::model::Config c;
  CHECK(rbf::model::linear_terms_wanted(c, 1437, 64));
  CHECK(rbf::model::linear_terms_wanted(c, 10000000, 10));
  CHECK_FALSE(rbf::model::linear_terms_wanted(c, 1000000, 512));  // 2.6e11: seconds of CPU
  c.candidates.pool = 10;
  c.candidates.width_factors = {1.0, 2.0};
  CHECK(rbf::model::linear_terms_wanted(c, 100, 20));
  CHECK_FALSE(rbf::model::linear_terms_wanted(c, 100, 21));
  c.trainer.linear_terms = rbf::model::LinearTerms::on;
  CHECK(rbf::model::linear_terms_wanted(c, 1000000, 512));
  c.trainer.linear_terms = rbf::model::LinearTerms::off;
  CHECK_FALSE(rbf::model::linear_terms_wanted(c, 100, 1));
}

TEST_CASE("linear terms: purely linear data is fitted to rounding with few nodes") {
  const rbf::data::Dataset ds = linear_data(200, 3);
  rbf::model::Config config = linear_config(rbf::model::LinearTerms::on);
  // What the linear terms leave is rounding, which nodes can fit on validation too; the goal
  // says that it is not worth a node.
  config.stopping.goal = 1e-10;
  const rbf::model::TrainResult on = rbf::model::train(ds, config);
  REQUIRE(on.network.linear.size() == 3);
  CHECK(on.linear_ridge == 0);
  CHECK(on.network.nodes() == 0);
  CHECK(max_abs_error(on.network, ds) < 1e-9);
  // The weights map standardized inputs to the standardized target: 2 a and -5 b, no c.
  const auto& s = on.network;
  CHECK(s.linear[0] * s.y_scaler.scale[0] / s.x_scaler.scale[0] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(s.linear[1] * s.y_scaler.scale[0] / s.x_scaler.scale[1] == doctest::Approx(-5.0).epsilon(1e-9));
  CHECK(std::abs(s.linear[2]) < 1e-9);

  const rbf::model::TrainResult off = rbf::model::train(ds, linear_config(rbf::model::LinearTerms::off));
  CHECK(off.network.linear.empty());
  CHECK(off.linear_ridge == -1);
  CHECK(max_abs_error(off.network, ds) > 1e-6);
}

TEST_CASE("linear terms: validation figures are the whole model's, nodes included") {
  const rbf::data::Dataset ds = linear_data(300, 4, 0.3);
  const rbf::model::TrainResult r = rbf::model::train(ds, linear_config(rbf::model::LinearTerms::on));
  REQUIRE_FALSE(r.network.linear.empty());
  CHECK(r.network.nodes() > 0);
  // What growth tracked on validation is what the saved network (linear part included) scores.
  CHECK(r.validation_scores.rmse == doctest::Approx(r.best_val_rmse).epsilon(1e-6));
  const rbf::model::TrainResult off = rbf::model::train(ds, linear_config(rbf::model::LinearTerms::off));
  CHECK(off.validation_scores.rmse == doctest::Approx(off.best_val_rmse).epsilon(1e-6));
}

TEST_CASE("linear terms: a refit fits them again on every row") {
  const rbf::data::Dataset ds = linear_data(200, 5, 0.3);
  rbf::model::Config refit = linear_config(rbf::model::LinearTerms::auto_select);
  refit.stopping.refit = true;
  const rbf::model::TrainResult again = rbf::model::train(ds, refit);
  REQUIRE(again.refit.done);
  REQUIRE_FALSE(again.network.linear.empty());
  rbf::model::Config same = refit;
  same.stopping.refit = false;
  same.data.validation = 0;
  same.stopping.max_nodes = again.network.nodes();
  same.trainer.output_ridge = again.output_ridge;
  const rbf::model::TrainResult all_rows = rbf::model::train(ds, same);
  CHECK(all_rows.network.linear == again.network.linear);
  CHECK(all_rows.network.weights == again.network.weights);
}

TEST_CASE("linear terms: a classifier's class scores include them") {
  rbf::data::Dataset ds = linear_data(240, 6);
  ds.task = rbf::data::Task::classification;
  ds.class_names = {"low", "high"};
  for (double& y : ds.y) y = y > 13 ? 1 : 0;
  const rbf::model::TrainResult r = rbf::model::train(ds, linear_config(rbf::model::LinearTerms::on));
  CHECK(r.network.linear.size() == 3 * 2);
  CHECK(r.validation_scores.accuracy == doctest::Approx(r.best_val_accuracy));
}

TEST_SUITE("model file") {
  TEST_CASE("linear terms round-trip in a required LINR section, minor version 1") {
    for (const Network& plain : {make_regression(), make_classification()}) {
      const Network n = with_linear(plain);
      const Bytes b = rbf::model::serialize_network(n);
      check_identical(n, rbf::model::parse_network(b.data(), b.size(), "m"));
      CHECK(u32_at(b, 12) == 1);
      const std::size_t linr = section_payload(b, "LINR");
      CHECK(u32_at(b, linr - 12) == 1);  // flags: required, so older builds refuse the file
      const Bytes without = rbf::model::serialize_network(plain);
      CHECK(u32_at(without, 12) == 0);
      CHECK_FALSE(has_tag(without, "LINR"));
    }
  }

  TEST_CASE("predictions add the linear terms to the nodes' sum") {
    Network n = make_regression();
    n.x_scaler.mean = {0.1, -0.5, 2.0};  // ordinary scales, so that the sums are checkable
    n.x_scaler.scale = {1.0, 2.0, 3.0};
    n.x_scaler.constant = {false, false, false};
    n.weights = {1, -1, 0.5, -0.5, 0.25, 0.75, 0.0, -0.0};
    const double x[3] = {0.5, -1.0, 2.0};
    std::vector<double> before, after;
    n.predict(x, 1, before);
    n.linear = {1, 0, 0, 2, 0.5, 0};  // inputs x outputs
    n.predict(x, 1, after);
    std::vector<double> xs(x, x + 3);
    n.x_scaler.transform(xs.data(), 1);
    const double add0 = xs[0] * 1 + xs[2] * 0.5, add1 = xs[1] * 2;
    CHECK(after[0] == doctest::Approx(before[0] + add0 * n.y_scaler.scale[0]));
    CHECK(after[1] == doctest::Approx(before[1] + add1 * n.y_scaler.scale[1]));
  }

  TEST_CASE("a malformed LINR section is a clear error naming the file") {
    const Bytes good = rbf::model::serialize_network(with_linear(make_regression()));
    const std::size_t linr = section_payload(good, "LINR");

    Bytes nan_weight = good;
    set_f64(nan_weight, linr + 8, std::nan(""));
    reseal(nan_weight);
    CHECK(parse_error(nan_weight) == "model.rbfn: invalid model file (linear[0] is not finite)");

    Bytes fewer = good;  // count 5 instead of 6: the last value is left over
    set_u64(fewer, linr, 5);
    reseal(fewer);
    CHECK(parse_error(fewer) == "model.rbfn: invalid model file (section LINR: 8 unexpected bytes at its end)");

    Bytes short_array = rbf::model::serialize_network(make_regression());
    Bytes payload(8, 0);
    payload[0] = 1;
    payload.resize(16, 0);
    append_section(short_array, "LINR", 1, payload);
    CHECK(parse_error(short_array) ==
          "model.rbfn: invalid model file (linear has 1 entries, expected 6 (inputs x outputs, or none))");

    Bytes empty = rbf::model::serialize_network(make_regression());
    append_section(empty, "LINR", 1, Bytes(8, 0));
    CHECK(parse_error(empty) == "model.rbfn: invalid model file (section LINR: holds no linear weights)");

    Bytes twice = good;
    append_section(twice, "LINR", 1, Bytes(good.begin() + std::ptrdiff_t(linr), good.begin() + std::ptrdiff_t(linr + 8 + 48)));
    CHECK(parse_error(twice) == "model.rbfn: invalid model file (section LINR: appears twice)");

    Bytes huge = good;
    set_u64(huge, linr, std::uint64_t(1) << 40);
    reseal(huge);
    CHECK(contains(parse_error(huge), "section LINR: linear weights claims 1099511627776 values"));
  }
}
