// Degenerate training data: each case trains correctly or fails with one clear rbf::InputError,
// and no model or prediction ever holds NaN or infinity.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/split.hpp"
#include "model/model_file.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

const model::Precision kPrecisions[] = {model::Precision::float32, model::Precision::float64};

const char* precision_name(model::Precision p) { return p == model::Precision::float32 ? "float32" : "float64"; }

model::Config base_config(model::Precision precision = model::Precision::float32) {
  model::Config c;
  c.data.validation = 0;
  c.stopping.patience = 0;
  c.stopping.max_nodes = 40;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.trainer.precision = precision;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

// A regression dataset of n rows: x from `feature(row, column)`, y from `target(x, t)`.
data::Dataset make_regression(std::size_t n, std::size_t d, std::size_t k,
                              const std::function<double(std::size_t, std::size_t)>& feature,
                              const std::function<double(const double*, std::size_t)>& target) {
  data::Dataset ds;
  ds.source = "degenerate.csv";
  ds.rows = n;
  ds.features = d;
  ds.targets = k;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) ds.x.push_back(feature(i, j));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < k; ++t) ds.y.push_back(target(ds.row(i), t));
  for (std::size_t j = 0; j < d; ++j) ds.feature_names.push_back("x" + std::to_string(j + 1));
  for (std::size_t t = 0; t < k; ++t) ds.target_names.push_back("y" + std::to_string(t + 1));
  return ds;
}

// Uniform values in [0, 1), the same for every run.
std::function<double(std::size_t, std::size_t)> uniform_features(std::uint64_t seed, std::size_t d) {
  auto values = std::make_shared<std::vector<double>>();
  data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < 100000; ++i) values->push_back(rng.uniform());
  return [values, d](std::size_t i, std::size_t j) { return (*values)[(i * d + j) % values->size()]; };
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

bool all_positive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

// Every number the network holds is finite (widths and scales positive), it is consistent and
// savable, and its predictions on the training rows are finite. Returns those predictions.
std::vector<double> check_finite_model(const model::Network& net, const data::Dataset& ds) {
  CHECK(all_finite(net.centers));
  CHECK(all_finite(net.widths));
  CHECK(all_positive(net.widths));
  CHECK(all_finite(net.weights));
  CHECK(all_finite(net.bias));
  CHECK(all_finite(net.x_scaler.mean));
  CHECK(all_finite(net.x_scaler.scale));
  CHECK(all_positive(net.x_scaler.scale));
  CHECK(all_finite(net.y_scaler.mean));
  CHECK(all_finite(net.y_scaler.scale));
  CHECK(all_positive(net.y_scaler.scale));
  CHECK(model::find_network_problem(net) == "");
  CHECK_NOTHROW(model::serialize_network(net));
  std::vector<double> pred;
  net.predict(ds.x.data(), ds.rows, pred);
  REQUIRE(pred.size() == ds.rows * net.outputs);
  CHECK(all_finite(pred));
  return pred;
}

// RMSE of target t over its standard deviation (0 = exact, 1 = no better than the mean),
// computed in units of the largest |target| so that targets near 1e300 do not overflow.
double relative_rmse(const std::vector<double>& pred, const data::Dataset& ds, std::size_t t) {
  const std::size_t k = ds.targets;
  double unit = 0;
  for (std::size_t i = 0; i < ds.rows; ++i) unit = std::max(unit, std::abs(ds.y[i * k + t]));
  double mean = 0;
  for (std::size_t i = 0; i < ds.rows; ++i) mean += ds.y[i * k + t] / unit;
  mean /= static_cast<double>(ds.rows);
  double sse = 0, sst = 0;
  for (std::size_t i = 0; i < ds.rows; ++i) {
    const double y = ds.y[i * k + t] / unit;
    const double e = pred[i * k + t] / unit - y;
    sse += e * e;
    sst += (y - mean) * (y - mean);
  }
  return std::sqrt(sse / sst);
}

std::string input_error_of(const data::Dataset& ds, const model::Config& cfg) {
  try {
    model::train(ds, cfg);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace

TEST_CASE("degenerate data: a constant feature column is kept at scale 1 and the others are learned") {
  const auto u = uniform_features(1, 3);
  const data::Dataset ds = make_regression(
      200, 3, 1, [&](std::size_t i, std::size_t j) { return j == 1 ? 7.5 : u(i, j); },
      [](const double* x, std::size_t) { return std::sin(3 * x[0]) + x[2] * x[2]; });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult res = model::train(ds, base_config(precision));
    CHECK(res.network.x_scaler.constant[1]);
    CHECK(res.network.x_scaler.scale[1] == 1.0);
    CHECK_FALSE(res.network.x_scaler.constant[0]);
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.1);
  }
}

TEST_CASE("degenerate data: every feature constant gives the bias-only model") {
  const data::Dataset ds = make_regression(
      50, 2, 1, [](std::size_t, std::size_t j) { return j == 0 ? -3.0 : 1e6; },
      [](const double*, std::size_t) { return 0.0; });
  data::Dataset varied = ds;
  for (std::size_t i = 0; i < varied.rows; ++i) varied.y[i] = static_cast<double>(i % 7);
  double mean = 0;
  for (const double y : varied.y) mean += y / static_cast<double>(varied.rows);
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult res = model::train(varied, base_config(precision));
    CHECK(res.network.nodes() == 0);
    CHECK(res.stop_reason == "no admissible candidate left");
    const std::vector<double> pred = check_finite_model(res.network, varied);
    for (const double p : pred) CHECK(p == doctest::Approx(mean));
  }
}

TEST_CASE("degenerate data: duplicate rows are skipped as dependent candidates") {
  // 30 distinct points, each three times: the kernel matrix has rank 30 at most, so at most
  // 29 nodes beside the bias can be independent.
  const auto u = uniform_features(2, 2);
  const data::Dataset ds = make_regression(
      90, 2, 1, [&](std::size_t i, std::size_t j) { return u(i % 30, j); },
      [](const double* x, std::size_t) { return std::cos(4 * x[0]) * x[1]; });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    model::Config cfg = base_config(precision);
    cfg.stopping.max_nodes = 60;
    const model::TrainResult res = model::train(ds, cfg);
    CHECK(res.network.nodes() <= 29);
    CHECK(res.stop_reason == "no admissible candidate left");
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.05);
    for (std::size_t i = 30; i < 90; ++i) CHECK(pred[i] == pred[i % 30]);
  }
}

TEST_CASE("degenerate data: fewer rows than requested nodes stops when the candidates run out") {
  const auto u = uniform_features(3, 2);
  const data::Dataset ds =
      make_regression(6, 2, 1, u, [](const double* x, std::size_t) { return 10 * x[0] - 4 * x[1] * x[1]; });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    model::Config cfg = base_config(precision);
    cfg.stopping.max_nodes = 100;
    const model::TrainResult res = model::train(ds, cfg);
    CHECK(res.network.nodes() <= 5);
    CHECK(res.stop_reason == "no admissible candidate left");
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.05);
  }
}

TEST_CASE("degenerate data: two rows train and one row is a clear error") {
  const data::Dataset two = make_regression(
      2, 1, 1, [](std::size_t i, std::size_t) { return static_cast<double>(i); },
      [](const double* x, std::size_t) { return 5 + x[0]; });
  for (const double validation : {0.0, 0.2}) {
    INFO("validation " << validation);
    model::Config cfg = base_config();
    cfg.data.validation = validation;
    const model::TrainResult res = model::train(two, cfg);
    check_finite_model(res.network, two);
  }
  data::Dataset one = two;
  one.rows = 1;
  one.x.resize(1);
  one.y.resize(1);
  CHECK(input_error_of(one, base_config()) == "degenerate.csv: at least 2 data rows are needed to train, found 1");
}

TEST_CASE("degenerate data: one class only is a clear error naming the file") {
  const data::Dataset ds = data::parse_csv("x,label\n1,a\n2,a\n3,a\n4,a\n", "one_class.csv", {}, {{"label"}, {}, ""});
  REQUIRE(ds.task == data::Task::classification);
  REQUIRE(ds.class_names.size() == 1);
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    CHECK(input_error_of(ds, base_config(precision)) ==
          "one_class.csv: classification needs at least 2 classes, found 1");
  }
}

TEST_CASE("degenerate data: a class missing from the training split still gives a finite classifier") {
  // Ten rows, the single 'b' row held out by the split: 'b' is never a training target.
  std::string text = "x,label\n";
  for (int i = 0; i < 10; ++i) text += std::to_string(i) + (i == 9 ? ",b\n" : ",a\n");
  const data::Dataset ds = data::parse_csv(text, "rare.csv", {}, {{"label"}, {}, ""});
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    model::Config cfg = base_config();
    cfg.data.validation = 0.3;
    cfg.data.seed = seed;
    const model::TrainResult res = model::train(ds, cfg);
    check_finite_model(res.network, ds);
    CHECK(res.network.outputs == 2);
  }
}

TEST_CASE("degenerate data: identical targets are predicted exactly") {
  const auto u = uniform_features(4, 3);
  const data::Dataset ds = make_regression(80, 3, 1, u, [](const double*, std::size_t) { return 42.5; });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult res = model::train(ds, base_config(precision));
    CHECK(res.network.y_scaler.constant[0]);
    CHECK(res.final_train_rmse == 0.0);
    const std::vector<double> pred = check_finite_model(res.network, ds);
    for (const double p : pred) CHECK(p == 42.5);
  }
}

TEST_CASE("degenerate data: values near 1e30 train as well as values near 1") {
  const auto u = uniform_features(5, 2);
  const auto f = [](double a, double b) { return std::sin(4 * a) + b; };
  const data::Dataset unit = make_regression(150, 2, 1, u, [&](const double* x, std::size_t) { return f(x[0], x[1]); });
  const data::Dataset huge = make_regression(
      150, 2, 1, [&](std::size_t i, std::size_t j) { return 1e30 * u(i, j); },
      [&](const double* x, std::size_t) { return 1e30 * f(x[0] / 1e30, x[1] / 1e30); });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult ref = model::train(unit, base_config(precision));
    const model::TrainResult res = model::train(huge, base_config(precision));
    const std::vector<double> pred = check_finite_model(res.network, huge);
    CHECK(relative_rmse(pred, huge, 0) < 0.05);
    CHECK(res.final_train_rmse == doctest::Approx(ref.final_train_rmse).epsilon(0.01));
  }
}

TEST_CASE("degenerate data: values near 1e-30 train as well as values near 1") {
  const auto u = uniform_features(6, 2);
  const auto f = [](double a, double b) { return std::sin(4 * a) + b; };
  const data::Dataset unit = make_regression(150, 2, 1, u, [&](const double* x, std::size_t) { return f(x[0], x[1]); });
  const data::Dataset tiny = make_regression(
      150, 2, 1, [&](std::size_t i, std::size_t j) { return 1e-30 * u(i, j); },
      [&](const double* x, std::size_t) { return 1e-30 * f(x[0] / 1e-30, x[1] / 1e-30); });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult ref = model::train(unit, base_config(precision));
    const model::TrainResult res = model::train(tiny, base_config(precision));
    CHECK_FALSE(res.network.x_scaler.constant[0]);
    CHECK_FALSE(res.network.y_scaler.constant[0]);
    const std::vector<double> pred = check_finite_model(res.network, tiny);
    CHECK(relative_rmse(pred, tiny, 0) < 0.05);
    CHECK(res.final_train_rmse == doctest::Approx(ref.final_train_rmse).epsilon(0.01));
  }
}

TEST_CASE("degenerate data: one feature (d = 1)") {
  const data::Dataset ds = make_regression(
      120, 1, 1, [](std::size_t i, std::size_t) { return static_cast<double>(i) / 119.0; },
      [](const double* x, std::size_t) { return std::sin(6.283185307179586 * x[0]); });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult res = model::train(ds, base_config(precision));
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.02);
  }
}

TEST_CASE("degenerate data: several targets, one of them constant") {
  const auto u = uniform_features(7, 2);
  const data::Dataset ds = make_regression(150, 2, 3, u, [](const double* x, std::size_t t) {
    return t == 0 ? std::sin(4 * x[0]) : t == 1 ? -1000 * x[1] : 3.25;
  });
  for (const model::Precision precision : kPrecisions) {
    INFO(std::string(precision_name(precision)));
    const model::TrainResult res = model::train(ds, base_config(precision));
    REQUIRE(res.network.outputs == 3);
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.05);
    CHECK(relative_rmse(pred, ds, 1) < 0.05);
    for (std::size_t i = 0; i < ds.rows; ++i) CHECK(pred[i * 3 + 2] == doctest::Approx(3.25).epsilon(1e-12));
  }
}

TEST_CASE("degenerate data: values near the ends of the double range train or are refused clearly") {
  const auto u = uniform_features(8, 2);
  const auto f = [](const double* x, double unit) { return unit * (std::sin(4 * x[0] / unit) + x[1] / unit); };
  SUBCASE("near 1e300 trains") {
    const data::Dataset ds = make_regression(
        150, 2, 1, [&](std::size_t i, std::size_t j) { return 1e300 * u(i, j); },
        [&](const double* x, std::size_t) { return f(x, 1e300); });
    const model::TrainResult res = model::train(ds, base_config());
    const std::vector<double> pred = check_finite_model(res.network, ds);
    CHECK(relative_rmse(pred, ds, 0) < 0.05);
  }
  SUBCASE("a feature whose sum overflows is refused") {
    const data::Dataset ds = make_regression(
        20, 2, 1, [&](std::size_t i, std::size_t j) { return j == 1 ? 1.5e308 * (1 - u(i, j) / 10) : u(i, j); },
        [&](const double* x, std::size_t) { return x[0]; });
    CHECK(input_error_of(ds, base_config()) ==
          "degenerate.csv: feature column 'x2' cannot be standardized: its values are too close to the limits of a "
          "double");
  }
  SUBCASE("a target whose sum overflows is refused") {
    const data::Dataset ds =
        make_regression(20, 2, 1, u, [&](const double* x, std::size_t) { return -1.7e308 * x[0]; });
    CHECK(input_error_of(ds, base_config()) ==
          "degenerate.csv: target column 'y1' cannot be standardized: its values are too close to the limits of a "
          "double");
  }
  SUBCASE("a subnormal spread is refused") {
    const data::Dataset ds = make_regression(
        20, 2, 1, [&](std::size_t i, std::size_t j) { return j == 0 ? 1e-310 * u(i, j) : u(i, j); },
        [&](const double* x, std::size_t) { return x[1]; });
    CHECK(input_error_of(ds, base_config()) ==
          "degenerate.csv: feature column 'x1' cannot be standardized: its values are too close to the limits of a "
          "double");
  }
}

TEST_CASE("degenerate data: extreme candidate widths from the config train or are refused clearly") {
  const auto u = uniform_features(9, 2);
  const data::Dataset ds = make_regression(60, 2, 1, u, [](const double* x, std::size_t) { return x[0] - x[1]; });
  for (const double sigma0 : {1e-200, 1e-20, 1e20, 1e200}) {
    for (const model::Precision precision : kPrecisions) {
      INFO(std::string(precision_name(precision)) << " sigma0 " << sigma0);
      model::Config cfg = base_config(precision);
      cfg.candidates.sigma0 = sigma0;
      // 1/(2 sigma^2) stays finite and positive in float64 for 1e-20 and 1e20, not in float32.
      const bool usable = precision == model::Precision::float64 && sigma0 > 1e-100 && sigma0 < 1e100;
      if (usable) {
        check_finite_model(model::train(ds, cfg).network, ds);
      } else {
        const std::string message = input_error_of(ds, cfg);
        CHECK(message.rfind("'candidates.sigma0' ", 0) == 0);
        CHECK(message.find(std::string("outside what ") + precision_name(precision) + " training can use") !=
              std::string::npos);
      }
    }
  }
}

TEST_CASE("degenerate data: extreme but valid config values train without exhausting memory") {
  // Every count at its largest: the trainer must clamp to the data, never allocate for the count.
  const auto u = uniform_features(10, 2);
  const data::Dataset ds = make_regression(40, 2, 1, u, [](const double* x, std::size_t) { return x[0] * x[1]; });
  model::Config cfg = base_config();
  cfg.candidates.pool = static_cast<std::size_t>(-1);
  cfg.candidates.sigma0_sample = static_cast<std::size_t>(-1);
  cfg.stopping.max_nodes = static_cast<std::size_t>(-1) / 2;
  cfg.stopping.patience = static_cast<std::size_t>(-1);
  cfg.stopping.max_seconds = 1e300;
  cfg.data.validation = 0.9;
  SUBCASE("huge lambda") { cfg.trainer.lambda = 1e308; }
  SUBCASE("dependency tolerance near 1") { cfg.trainer.dependency_tol = 0.999999999; }
  SUBCASE("tiny memory budget: candidates evaluated tile by tile") { cfg.candidates.memory_budget_mb = 1e-300; }
  const model::TrainResult res = model::train(ds, cfg);
  CHECK(res.network.nodes() < 40);
  check_finite_model(res.network, ds);
}
