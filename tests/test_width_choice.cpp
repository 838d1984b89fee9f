// Tests of the width choice on the validation rows: when data.folds auto makes it, what it
// keeps, what it reports, and that the kept model is the one a direct run of its widths grows.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "data/synthetic.hpp"
#include "model/training_data.hpp"
#include "model/width_choice.hpp"

using namespace rbf;

namespace {

model::Config holdout_config() {
  model::Config c;
  c.stopping.max_nodes = 30;
  c.candidates.pool = 200;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.backend.kind = model::BackendKind::cpu;
  c.stopping.refit = true;  // rules cross-validation out, not the width choice
  return c;
}

// A growth that does no work: its validation RMSE is its narrowest width factor, so the wider
// set ({1, 2} of {0.5, 1, 2}) wins; it records two iterations, tagged by that factor.
model::TrainResult fake_growth(const data::Dataset&, const model::Config& c, const model::TrainOptions& o) {
  model::TrainResult r;
  r.best_val_rmse = 3.0 - c.candidates.width_factors.front();
  r.network.widths.assign(c.candidates.width_factors.size(), 1.0);
  for (std::size_t i = 1; i <= 2; ++i) {
    model::IterationRecord rec;
    rec.nodes = i;
    rec.width = c.candidates.width_factors.front();
    if (o.on_iteration) o.on_iteration(rec);
  }
  return r;
}

}  // namespace

TEST_CASE("width choice: made when folds auto holds out rows on small enough data, and not otherwise") {
  const data::Dataset ds = data::make_friedman1(300, 5, 0.5, 1);
  const model::Config c = holdout_config();
  CHECK(model::cross_validation_folds(ds, c, {}) == 0);
  CHECK(model::chooses_widths_on_validation(ds, c, {}, 0));
  CHECK_FALSE(model::chooses_widths_on_validation(ds, c, {}, 5));  // cross-validating instead

  model::Config explicit_folds = c;
  explicit_folds.data.folds = 0;
  CHECK_FALSE(model::chooses_widths_on_validation(ds, explicit_folds, {}, 0));
  model::Config one_width = c;
  one_width.candidates.width_factors = {1.0};
  CHECK_FALSE(model::chooses_widths_on_validation(ds, one_width, {}, 0));
  model::Config no_validation = c;
  no_validation.data.validation = 0;
  CHECK_FALSE(model::chooses_widths_on_validation(ds, no_validation, {}, 0));
  model::Config refining = c;
  refining.refine.at_end = true;
  CHECK_FALSE(model::chooses_widths_on_validation(ds, refining, {}, 0));
  model::Config limited = c;
  limited.stopping.max_seconds = 5;
  CHECK_FALSE(model::chooses_widths_on_validation(ds, limited, {}, 0));
  model::TrainOptions checkpoints;
  checkpoints.checkpoint_every = 10;
  CHECK_FALSE(model::chooses_widths_on_validation(ds, c, checkpoints, 0));

  // A fraction that holds out nothing: a stratified split keeps a class of one row in training.
  data::Dataset singletons = ds;
  singletons.task = data::Task::classification;
  singletons.targets = 1;
  singletons.class_names.clear();
  for (std::size_t r = 0; r < ds.rows; ++r) {
    singletons.class_names.push_back("c" + std::to_string(r));
    singletons.y[r] = static_cast<double>(r);
  }
  CHECK(model::detail::validation_split(singletons, c, 0).validation.empty());
  CHECK_FALSE(model::chooses_widths_on_validation(singletons, c, {}, 0));

  // The work limit: rows x min(pool, rows) x widths, here 300 x 300 x 3 against the limit.
  model::Config big = c;
  big.candidates.pool = 100000;
  big.candidates.width_factors = std::vector<double>(static_cast<std::size_t>(model::kWidthChoiceMaxWork / 9e4), 1.0);
  CHECK(model::chooses_widths_on_validation(ds, big, {}, 0));
  big.candidates.width_factors.push_back(1.0);
  CHECK_FALSE(model::chooses_widths_on_validation(ds, big, {}, 0));
}

TEST_CASE("width choice: the lower validation RMSE kept, the other reported, the kept growth's iterations replayed") {
  const data::Dataset ds = data::make_friedman1(100, 5, 0.5, 1);
  model::Config c = holdout_config();
  std::vector<double> progress, replayed;
  std::vector<std::string> growths;
  model::TrainOptions o;
  o.on_fold_iteration = [&](const model::IterationRecord& rec) { progress.push_back(rec.width); };
  o.on_iteration = [&](const model::IterationRecord& rec) { replayed.push_back(rec.width); };
  o.on_growth_start = [&](const std::string& g, std::size_t, std::size_t) { growths.push_back(g); };
  model::Config chosen;
  const model::TrainResult r = model::detail::train_choosing_widths(ds, c, o, fake_growth, chosen);
  CHECK(chosen.candidates.width_factors == std::vector<double>{1, 2});
  CHECK(r.best_val_rmse == 2.0);
  CHECK(r.network.nodes() == 2);
  CHECK(progress == std::vector<double>{0.5, 0.5, 1, 1});
  CHECK(replayed == std::vector<double>{1, 1});
  CHECK(growths == std::vector<std::string>{"widths 0.5,1,2 (1 of 2)", "widths 1,2 (2 of 2)"});
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].find("widths 1,2 chosen on the validation rows (RMSE 2) over widths 0.5,1,2: 2.5 (3 nodes") == 0);
  CHECK_FALSE(r.interrupted);

  // A tie keeps the first set: all the widths asked for.
  const model::detail::GrowFunction tie = [](const data::Dataset&, const model::Config&, const model::TrainOptions&) {
    model::TrainResult r;
    r.best_val_rmse = 1.0;
    return r;
  };
  model::detail::train_choosing_widths(ds, c, {}, tie, chosen);
  CHECK(chosen.candidates.width_factors == std::vector<double>{0.5, 1, 2});
}

TEST_CASE("width choice: a stop during a growth saves nothing and grows no other") {
  std::size_t grown = 0;
  const model::detail::GrowFunction stopped = [&](const data::Dataset&, const model::Config&,
                                                  const model::TrainOptions&) {
    ++grown;
    model::TrainResult r;
    r.best_val_rmse = 1.0;
    r.interrupted = true;
    r.network.widths.assign(3, 1.0);
    return r;
  };
  model::Config chosen;
  const model::TrainResult r =
      model::detail::train_choosing_widths(data::make_friedman1(100, 5, 0.5, 1), holdout_config(), {}, stopped, chosen);
  CHECK(grown == 1);
  CHECK(r.interrupted);
  CHECK(r.nothing_to_save);
  CHECK(r.network.nodes() == 0);
  CHECK(r.stop_reason == "interrupted");
  CHECK(r.unsaved_stage.find("width choice") != std::string::npos);
}

TEST_CASE("width choice: the trainer keeps the model a direct float64 run of the chosen widths grows") {
  const data::Dataset ds = data::make_friedman1(400, 5, 0.5, 3);
  model::Config c = holdout_config();
  c.stopping.refit = false;
  model::TrainOptions o;
  o.validation_from = 320;  // the last 80 rows validate, as a validation file would
  std::size_t kept_iterations = 0;
  o.on_iteration = [&](const model::IterationRecord&) { ++kept_iterations; };
  const model::TrainResult r = model::train(ds, c, o);
  std::string event;
  for (const std::string& e : r.events)
    if (e.find("chosen on the validation rows") != std::string::npos) event = e;
  REQUIRE_FALSE(event.empty());
  const bool wide = event.rfind("widths 1,2 chosen", 0) == 0;
  CHECK((wide || event.rfind("widths 0.5,1,2 chosen", 0) == 0));
  CHECK(kept_iterations > 0);

  model::Config direct = c;
  direct.data.folds = 0;
  direct.trainer.precision = model::Precision::float64;
  direct.trainer.dependency_tol = 1e-9;
  if (wide) direct.candidates.width_factors = {1, 2};
  model::TrainOptions plain;
  plain.validation_from = 320;
  const model::TrainResult d = model::train(ds, direct, plain);
  CHECK(d.network.centers == r.network.centers);
  CHECK(d.network.weights == r.network.weights);
  CHECK(d.best_val_rmse == r.best_val_rmse);
  CHECK(d.network.nodes() > 5);
}

TEST_CASE("width choice: a refit grows the chosen widths again on every row") {
  const data::Dataset ds = data::make_friedman1(400, 5, 0.5, 4);
  const model::TrainResult r = model::train(ds, holdout_config());
  REQUIRE(r.refit.done);
  std::string event;
  for (const std::string& e : r.events)
    if (e.find("chosen on the validation rows") != std::string::npos) event = e;
  REQUIRE_FALSE(event.empty());
  model::Config direct = holdout_config();
  direct.data.folds = 0;
  direct.trainer.precision = model::Precision::float64;
  direct.trainer.dependency_tol = 1e-9;
  if (event.rfind("widths 1,2 chosen", 0) == 0) direct.candidates.width_factors = {1, 2};
  const model::TrainResult d = model::train(ds, direct);
  REQUIRE(d.refit.done);
  CHECK(r.network.nodes() == d.network.nodes());
  CHECK(r.network.widths == d.network.widths);
  CHECK(r.network.weights == d.network.weights);
}
