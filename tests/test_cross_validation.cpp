// Tests of data.folds: the fold assignment, when auto cross-validates, what it chooses, and
// that the chosen model is the one grown on every row.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "data/synthetic.hpp"
#include "model/cross_validation.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

model::Config cv_config() {
  model::Config c;
  c.stopping.max_nodes = 40;
  c.candidates.pool = 200;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

// y = 1 + 2 x1 - x2 + noise: the linear terms explain it, and Gaussians only fit the noise.
data::Dataset linear_data(std::size_t rows) {
  data::Dataset ds;
  ds.source = "linear";
  ds.rows = rows;
  ds.features = 3;
  ds.targets = 1;
  data::SplitMix64 rng(5);
  for (std::size_t i = 0; i < rows * 3; ++i) ds.x.push_back(rng.uniform() * 2 - 1);
  for (std::size_t i = 0; i < rows; ++i)
    ds.y.push_back(1 + 2 * ds.x[i * 3] - ds.x[i * 3 + 1] + 0.3 * rng.normal());
  ds.feature_names = {"x1", "x2", "x3"};
  ds.target_names = {"y"};
  return ds;
}

data::Dataset two_classes(std::size_t rows, std::size_t rare) {
  data::Dataset ds;
  ds.source = "classes";
  ds.rows = rows;
  ds.features = 2;
  ds.targets = 1;
  ds.task = data::Task::classification;
  ds.class_names = {"common", "rare"};
  data::SplitMix64 rng(9);
  for (std::size_t i = 0; i < rows; ++i) {
    const bool is_rare = i < rare;
    ds.x.push_back(rng.normal() + (is_rare ? 2.0 : 0.0));
    ds.x.push_back(rng.normal());
    ds.y.push_back(is_rare ? 1.0 : 0.0);
  }
  ds.feature_names = {"a", "b"};
  ds.target_names = {"class"};
  return ds;
}

std::string input_error(const data::Dataset& ds, const model::Config& c, const model::TrainOptions& o = {}) {
  try {
    model::cross_validation_folds(ds, c, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("folds: every row in one fold, fold sizes within one, the same seed the same folds") {
  const std::vector<std::size_t> f = data::fold_assignment(103, 5, 11);
  std::vector<std::size_t> size(5, 0);
  for (std::size_t k : f) {
    REQUIRE(k < 5);
    ++size[k];
  }
  CHECK(*std::max_element(size.begin(), size.end()) - *std::min_element(size.begin(), size.end()) <= 1);
  CHECK(data::fold_assignment(103, 5, 11) == f);
  CHECK(data::fold_assignment(103, 5, 12) != f);
  // Shuffled: the first rows are not dealt 0, 1, 2, ... in order.
  std::vector<std::size_t> dealt(f.begin(), f.begin() + 10);
  CHECK(dealt != std::vector<std::size_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4});
}

TEST_CASE("folds: stratified, each fold holds each class in proportion") {
  std::vector<std::size_t> labels;
  for (std::size_t i = 0; i < 100; ++i) labels.push_back(i < 80 ? 0 : (i < 95 ? 1 : 2));
  const std::vector<std::size_t> f = data::fold_assignment(labels.size(), 5, 3, labels);
  std::vector<std::vector<std::size_t>> count(5, std::vector<std::size_t>(3, 0));
  for (std::size_t i = 0; i < labels.size(); ++i) ++count[f[i]][labels[i]];
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(count[k][0] == 16);
    CHECK(count[k][1] == 3);
    CHECK(count[k][2] == 1);
  }
}

TEST_CASE("folds: auto cross-validates small data only, and not where a run rules it out") {
  const data::Dataset small = data::make_friedman1(300, 5, 0.5, 1);
  model::Config c = cv_config();
  CHECK(model::cross_validation_folds(small, c, {}) == model::kAutoFolds);
  c.data.folds = 0;
  CHECK(model::cross_validation_folds(small, c, {}) == 0);
  c.data.folds = 3;
  CHECK(model::cross_validation_folds(small, c, {}) == 3);

  model::Config automatic = cv_config();
  // Larger data: rows x candidates over the limit holds out validation rows instead.
  automatic.candidates.pool = 20000;
  const data::Dataset large = data::make_friedman1(6000, 5, 0.5, 1);
  CHECK(model::cross_validation_folds(large, automatic, {}) == 0);
  automatic = cv_config();
  automatic.data.validation = 0;
  CHECK(model::cross_validation_folds(small, automatic, {}) == 0);
  automatic = cv_config();
  automatic.stopping.max_seconds = 5;
  CHECK(model::cross_validation_folds(small, automatic, {}) == 0);
  model::TrainOptions checkpoints;
  checkpoints.checkpoint_every = 10;
  CHECK(model::cross_validation_folds(small, cv_config(), checkpoints) == 0);
  model::TrainOptions validation_file;
  validation_file.validation_from = 200;
  CHECK(model::cross_validation_folds(small, cv_config(), validation_file) == 0);
  CHECK(model::cross_validation_folds(data::make_friedman1(40, 5, 0.5, 1), cv_config(), {}) == 0);
}

TEST_CASE("folds: an explicit count that cannot be honoured names the key and the way out") {
  const data::Dataset small = data::make_friedman1(300, 5, 0.5, 1);
  model::Config c = cv_config();
  c.data.folds = 5;
  model::TrainOptions checkpoints;
  checkpoints.checkpoint_every = 10;
  CHECK(input_error(small, c, checkpoints) ==
        "data.folds 5: checkpoints save one growth, and cross-validation runs several; set data.folds to 0 "
        "(--folds 0) to hold out validation rows instead");
  c.data.folds = 10;
  CHECK(input_error(two_classes(200, 6), c) ==
        "data.folds 10: class 'rare' has 6 rows, fewer than the 10 folds; set data.folds to 0 (--folds 0) to hold "
        "out validation rows instead");
  // auto quietly holds out instead.
  c.data.folds = model::kFoldsAuto;
  CHECK(model::cross_validation_folds(two_classes(200, 3), c, {}) == 0);
}

TEST_CASE("folds: auto arithmetic is float64 with a fine tolerance when cross-validating, else float32") {
  const model::Config c = cv_config();
  const model::Config cv = model::resolve_auto_arithmetic(c, true);
  CHECK(cv.trainer.precision == model::Precision::float64);
  CHECK(cv.trainer.dependency_tol == 1e-9);
  const model::Config held = model::resolve_auto_arithmetic(c, false);
  CHECK(held.trainer.precision == model::Precision::float32);
  CHECK(held.trainer.dependency_tol == 1e-4);
  model::Config asked = c;
  asked.trainer.precision = model::Precision::float32;
  asked.trainer.dependency_tol = 1e-3;
  const model::Config kept = model::resolve_auto_arithmetic(asked, true);
  CHECK(kept.trainer.precision == model::Precision::float32);
  CHECK(kept.trainer.dependency_tol == 1e-3);
  CHECK(model::cross_validation_width_sets({0.5, 1, 2}) ==
        std::vector<std::vector<double>>{{0.5, 1, 2}, {1, 2}});
  CHECK(model::cross_validation_width_sets({1}) == std::vector<std::vector<double>>{{1}});
}

// Fold curves from columns: by_nodes[m][j] is fold j's validation RMSE at m nodes.
model::detail::FoldCurves curves_of(const std::vector<std::vector<double>>& by_nodes) {
  model::detail::FoldCurves f;
  f.rmse.assign(by_nodes.front().size(), {});
  f.accuracy.assign(by_nodes.front().size(), {});
  for (std::size_t m = 0; m < by_nodes.size(); ++m)
    for (std::size_t j = 0; j < by_nodes[m].size(); ++j) {
      f.rmse[j].push_back(by_nodes[m][j]);
      f.accuracy[j].push_back(0.5 + 0.1 * static_cast<double>(m));
    }
  return f;
}

TEST_CASE("cross-validation choice: the lowest mean MSE, unless no Gaussians come within one standard error") {
  using model::detail::choose_from_folds;
  // At 1 node the MSEs are .9025 1.3225 .81 1.1025 .9409: mean 1.01568, standard error 0.0901.
  const std::vector<double> one_node{0.95, 1.15, 0.9, 1.05, 0.97};
  SUBCASE("within one standard error: no Gaussians") {
    const auto c = choose_from_folds({curves_of({{1.0, 1.2, 0.9, 1.1, 1.0}, one_node, {1.0, 1.2, 0.95, 1.1, 1.0}})});
    CHECK(c.nodes == 0);
    CHECK(c.mse == doctest::Approx(1.092));  // the mean at 0 nodes
    CHECK(c.accuracy == doctest::Approx(0.5));
    CHECK(c.lowest_nodes == 1);
    CHECK(c.lowest_mse == doctest::Approx(1.01568));
    CHECK(c.standard_error > 0);
  }
  SUBCASE("beyond it: the lowest") {
    const auto c = choose_from_folds({curves_of({{1.1, 1.3, 1.0, 1.2, 1.1}, one_node})});  // mean 1.31 at 0 nodes
    CHECK(c.nodes == 1);
    CHECK(c.lowest_nodes == 1);
    CHECK(c.mse == doctest::Approx(1.01568));
    CHECK(c.standard_error == doctest::Approx(0.0901).epsilon(1e-3));
    CHECK(c.accuracy == doctest::Approx(0.6));
  }
  SUBCASE("folds that agree exactly leave no room: the lowest") {
    const auto c = choose_from_folds({curves_of({{1.0, 1.0, 1.0}, {0.999, 0.999, 0.999}})});
    CHECK(c.nodes == 1);
    CHECK(c.standard_error == 0);
  }
  SUBCASE("across width sets, and past node counts some fold never scored") {
    const double unscored = std::numeric_limits<double>::quiet_NaN();
    const auto c = choose_from_folds({curves_of({{2.0, 2.0}, {1.5, 1.6}, {1.4, unscored}}),
                                      curves_of({{2.0, 2.0}, {1.5, 1.5}, {1.3, 1.3}, {1.35, 1.3}})});
    CHECK(c.set == 1);
    CHECK(c.nodes == 2);
    CHECK(c.mse == doctest::Approx(1.69));
  }
  SUBCASE("nothing scored") {
    CHECK_FALSE(std::isfinite(choose_from_folds({}).mse));
  }
}

TEST_CASE("cross-validation: the chosen node count and widths grown on every row, as a direct run grows them") {
  const data::Dataset ds = data::make_friedman1(400, 5, 0.5, 3);
  model::Config one = cv_config();
  one.data.average_folds = false;
  const model::TrainResult r = model::train(ds, one);
  const model::CrossValidationReport& cv = r.cross_validation;
  REQUIRE(cv.folds == model::kAutoFolds);
  CHECK(cv.width_sets.size() == 2);
  CHECK(cv.nodes > 5);  // Friedman's target needs Gaussians
  CHECK(cv.nodes <= 40);
  CHECK(cv.rmse > 0);
  CHECK(r.network.nodes() == cv.nodes);
  CHECK(r.network.training_state.empty());
  CHECK(r.train_scores.rows == ds.rows);
  CHECK(r.stop_reason == "5-fold cross-validation chose " + std::to_string(cv.nodes) + " nodes");
  CHECK(cv.averaged_models == 0);

  model::Config direct = cv_config();
  direct.data.folds = 0;
  direct.data.validation = 0;
  direct.stopping.max_nodes = cv.nodes;
  direct.candidates.width_factors = cv.widths;
  direct.trainer.output_ridge = cv.output_ridge;
  direct.trainer.precision = model::Precision::float64;
  direct.trainer.dependency_tol = 1e-9;
  const model::TrainResult d = model::train(ds, direct);
  CHECK(d.network.centers == r.network.centers);
  CHECK(d.network.weights == r.network.weights);
  CHECK(d.network.widths == r.network.widths);
}

TEST_CASE("cross-validation: the saved model averages the model on every row with one grown per fold") {
  const data::Dataset ds = data::make_friedman1(400, 5, 0.5, 3);
  const model::TrainResult r = model::train(ds, cv_config());
  model::Config one = cv_config();
  one.data.average_folds = false;
  const model::TrainResult u = model::train(ds, one);
  const model::CrossValidationReport& cv = r.cross_validation;
  REQUIRE(cv.nodes > 5);
  // The same choice: the fold models come after it.
  CHECK(cv.nodes == u.cross_validation.nodes);
  CHECK(cv.widths == u.cross_validation.widths);
  CHECK(cv.averaged_models == model::kAutoFolds + 1);
  CHECK(cv.averaging_seconds > 0);
  REQUIRE(r.network.nodes() == cv.averaged_models * cv.nodes);
  // The model on every row comes first, its weights divided among the members, in its own
  // standardization, which every member shares.
  const std::size_t d = ds.features, k = 1, m = cv.nodes;
  CHECK(std::vector<double>(r.network.centers.begin(), r.network.centers.begin() + m * d) == u.network.centers);
  CHECK(std::vector<double>(r.network.widths.begin(), r.network.widths.begin() + m) == u.network.widths);
  for (std::size_t i = 0; i < m * k; ++i)
    CHECK(r.network.weights[i] == doctest::Approx(u.network.weights[i] / 6.0).epsilon(1e-12));
  CHECK(r.network.x_scaler.mean == u.network.x_scaler.mean);
  CHECK(r.network.y_scaler.scale == u.network.y_scaler.scale);
  // The folds' models differ from it: they were grown on other rows.
  CHECK(std::vector<double>(r.network.centers.begin() + m * d, r.network.centers.begin() + 2 * m * d) !=
        u.network.centers);
  CHECK(r.train_scores.rows == ds.rows);
  CHECK(r.train_scores.r2 > 0.8);
}

TEST_CASE("cross-validation: the growths for the average report every iteration to on_fold_iteration") {
  // What shows progress on the command line and checks for Ctrl-C in Python while they grow.
  model::TrainOptions o;
  bool averaging = false;
  std::size_t averaging_nodes = 0;
  o.on_growth_start = [&](const std::string& growth, std::size_t, std::size_t) {
    averaging = growth.find("for the average") != std::string::npos;
  };
  o.on_fold_iteration = [&](const model::IterationRecord& rec) {
    if (averaging && !rec.dependent) ++averaging_nodes;
  };
  const model::TrainResult r = model::train(data::make_friedman1(400, 5, 0.5, 3), cv_config(), o);
  REQUIRE(r.cross_validation.averaged_models == model::kAutoFolds + 1);
  REQUIRE(r.cross_validation.nodes > 5);
  CHECK(averaging_nodes == model::kAutoFolds * r.cross_validation.nodes);
}

TEST_CASE("cross-validation: each growth says how many growths follow it, down to none") {
  // The progress line's estimate of the time left in all counts on it.
  model::TrainOptions o;
  std::vector<std::size_t> after;
  o.on_growth_start = [&](const std::string&, std::size_t, std::size_t growths_after) {
    after.push_back(growths_after);
  };
  const model::TrainResult r = model::train(data::make_friedman1(400, 5, 0.5, 3), cv_config(), o);
  REQUIRE(r.cross_validation.averaged_models > 0);
  REQUIRE(after.size() == r.cross_validation.width_sets.size() * model::kAutoFolds + 1 + model::kAutoFolds);
  for (std::size_t i = 0; i < after.size(); ++i) CHECK(after[i] == after.size() - 1 - i);
}

TEST_CASE("cross-validation: without Gaussians there is nothing to average") {
  const model::TrainResult r = model::train(linear_data(300), cv_config());
  REQUIRE(r.cross_validation.nodes == 0);
  CHECK(r.cross_validation.averaged_models == 0);
  CHECK(r.network.nodes() == 0);
}

TEST_CASE("cross-validation: a stop while the folds' models grow leaves nothing to save") {
  std::atomic<bool> stop{false};
  model::TrainOptions o;
  o.stop_requested = &stop;
  std::vector<std::string> growths;
  o.on_growth_start = [&](const std::string& growth, std::size_t, std::size_t) {
    growths.push_back(growth);
    if (growth.find("for the average") != std::string::npos) stop.store(true);
  };
  const model::TrainResult r = model::train(data::make_friedman1(300, 5, 0.5, 2), cv_config(), o);
  REQUIRE(r.cross_validation.nodes == 0);  // nothing returned: no report either
  CHECK(r.interrupted);
  CHECK(r.nothing_to_save);
  CHECK(r.unsaved_stage.find("averaging") != std::string::npos);
  REQUIRE(growths.size() == 2 * model::kAutoFolds + 2);
  CHECK(growths[2 * model::kAutoFolds] == "all rows");
  CHECK(growths.back() == "fold 1 of 5, for the average");
}

TEST_CASE("cross-validation: on a linear target it keeps hardly any Gaussians") {
  const model::TrainResult r = model::train(linear_data(300), cv_config());
  REQUIRE(r.cross_validation.folds == model::kAutoFolds);
  CHECK(r.cross_validation.nodes == 0);  // of 40 grown, any only fit the noise
  CHECK(r.network.nodes() == r.cross_validation.nodes);
  CHECK(r.cross_validation.rmse < 0.31);
  CHECK(r.network.linear.size() == 3);
  CHECK(r.train_scores.rmse < 0.33);  // the noise's standard deviation is 0.3
}

TEST_CASE("cross-validation: a stop during the folds leaves nothing to save") {
  std::atomic<bool> stop{false};
  model::TrainOptions o;
  o.stop_requested = &stop;
  std::size_t seen = 0;
  o.on_fold_iteration = [&](const model::IterationRecord&) {
    if (++seen == 3) stop.store(true);
  };
  std::size_t final_iterations = 0;
  o.on_iteration = [&](const model::IterationRecord&) { ++final_iterations; };
  const model::TrainResult r = model::train(data::make_friedman1(300, 5, 0.5, 2), cv_config(), o);
  CHECK(r.interrupted);
  CHECK(r.nothing_to_save);
  CHECK(r.network.nodes() == 0);
  CHECK(seen == 3);
  CHECK(final_iterations == 0);
}
