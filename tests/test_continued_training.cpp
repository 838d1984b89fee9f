// Continued training (TrainOptions::init, model/growth_init.cpp): a model's nodes kept in its
// own standardized space, more grown on new rows, the weights solved on them; against training
// on all rows at once; and the data a model cannot continue on.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/synthetic.hpp"
#include "model/fit_scores.hpp"
#include "model/trainer.hpp"
#include "model/training_state.hpp"

using namespace rbf;

namespace {

// Rows [first, first + count) of `ds` as a data set of their own.
data::Dataset slice(const data::Dataset& ds, std::size_t first, std::size_t count) {
  data::Dataset out = ds;
  out.rows = count;
  out.x.assign(ds.x.begin() + static_cast<std::ptrdiff_t>(first * ds.features),
               ds.x.begin() + static_cast<std::ptrdiff_t>((first + count) * ds.features));
  out.y.assign(ds.y.begin() + static_cast<std::ptrdiff_t>(first * ds.targets),
               ds.y.begin() + static_cast<std::ptrdiff_t>((first + count) * ds.targets));
  return out;
}

model::Config continued_config(std::size_t nodes) {
  model::Config c;
  c.data.folds = 0;
  c.stopping.max_nodes = nodes;
  c.trainer.threads = 1;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

double test_rmse(const model::Network& net, const data::Dataset& test) {
  std::vector<std::size_t> rows(test.rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  return model::score_rows(net, test, rows).rmse;
}

}  // namespace

TEST_CASE("continued training: the first chunk's nodes are kept and the result nears training on both chunks") {
  const data::Dataset all = data::make_friedman1(3000, 10, 1.0, 3);
  const data::Dataset first = slice(all, 0, 1000), second = slice(all, 1000, 1000), test = slice(all, 2000, 1000);
  const model::TrainResult a = model::train(first, continued_config(30));
  REQUIRE(a.network.nodes() > 0);

  model::TrainOptions options;
  options.init = &a.network;
  const model::TrainResult ab = model::train(second, continued_config(60), options);
  CHECK(ab.init_nodes == a.network.nodes());
  REQUIRE(ab.network.nodes() >= a.network.nodes());
  // The nodes stay where they were, in the first model's standardized space.
  CHECK(ab.network.x_scaler.mean == a.network.x_scaler.mean);
  CHECK(ab.network.x_scaler.scale == a.network.x_scaler.scale);
  for (std::size_t i = 0; i < a.network.centers.size(); ++i) CHECK(ab.network.centers[i] == a.network.centers[i]);
  for (std::size_t j = 0; j < a.network.nodes(); ++j) CHECK(ab.network.widths[j] == a.network.widths[j]);

  const model::TrainResult both = model::train(slice(all, 0, 2000), continued_config(60));
  const double rmse_a = test_rmse(a.network, test), rmse_ab = test_rmse(ab.network, test);
  const double rmse_both = test_rmse(both.network, test);
  MESSAGE("held-out RMSE: first chunk " << rmse_a << ", continued on the second " << rmse_ab << ", both at once "
                                        << rmse_both);
  // The weights forget the first chunk's rows (docs/USAGE.md): within 10% of both at once
  // (2.6% here), and better than the first chunk alone.
  CHECK(rmse_ab <= 1.10 * rmse_both);
  CHECK(rmse_ab < rmse_a);
}

TEST_CASE("continued training: data the model was not made for are refused, naming the difference") {
  const data::Dataset ds = data::make_friedman1(400, 10, 1.0, 5);
  const model::TrainResult a = model::train(ds, continued_config(10));
  model::TrainOptions options;
  options.init = &a.network;
  const data::Dataset narrower = data::make_friedman1(400, 8, 1.0, 5);
  CHECK_THROWS_WITH_AS(model::train(narrower, continued_config(20), options),
                       doctest::Contains("the model has 10 features, the data 8"), InputError);

  const data::Dataset iris = data::read_csv(std::string(RBF_SOURCE_DIR) + "/data/iris.csv", {}, {{"species"}, {}, ""});
  const model::TrainResult c = model::train(iris, continued_config(10));
  data::Dataset renamed = iris;
  renamed.class_names[2] = "virginia";
  model::TrainOptions on_iris;
  on_iris.init = &c.network;
  CHECK_THROWS_WITH_AS(model::train(renamed, continued_config(20), on_iris), doctest::Contains("its classes are"),
                       InputError);
  CHECK_THROWS_WITH_AS(model::train(ds, continued_config(20), on_iris), doctest::Contains("the model is a classifier"),
                       InputError);
  // The same classes: it continues.
  const model::TrainResult more = model::train(iris, continued_config(20), on_iris);
  CHECK(more.init_nodes == c.network.nodes());
  CHECK(more.network.class_names == c.network.class_names);
}

TEST_CASE("continued training: an interrupted continued run resumes, in the first model's space, to the same model") {
  const data::Dataset all = data::make_friedman1(2000, 6, 0.5, 9);
  const data::Dataset first = slice(all, 0, 1000), second = slice(all, 1000, 1000);
  const model::TrainResult a = model::train(first, continued_config(15));
  model::Config cfg = continued_config(35);
  cfg.stopping.patience = 0;  // every node grown: the resumed part has iterations to compare
  model::TrainOptions options;
  options.init = &a.network;
  const model::TrainResult whole = model::train(second, cfg, options);

  // The log counts on from the first model's nodes: the first new node's iteration follows them.
  REQUIRE(whole.iterations.size() > 10);
  CHECK(whole.iterations.front().iteration == whole.init_nodes + 1);
  const std::size_t stop_at = whole.iterations[5].iteration;
  std::atomic<bool> stop{false};
  model::TrainOptions part_options = options;
  part_options.stop_requested = &stop;
  part_options.on_iteration = [&stop, stop_at](const model::IterationRecord& rec) {
    if (rec.iteration == stop_at) stop = true;
  };
  const model::TrainResult part = model::train(second, cfg, part_options);
  REQUIRE(part.interrupted);
  const model::TrainingState state = model::decode_training_state(part.network.training_state, "part");
  // As `rbfnet train --resume` does: the checkpoint's scalers, its nodes' space.
  model::TrainOptions resumed_options;
  resumed_options.resume = &state;
  resumed_options.scalers_from = &part.network;
  const model::TrainResult resumed = model::train(second, cfg, resumed_options);
  // The same nodes; the weights to float32 rounding: a resumed run rebuilds every node of a
  // continued model at its center (add_node_at), where the whole run added the grown ones as
  // candidates, as after a refinement (docs/USAGE.md, "Interrupting and resuming").
  CHECK(resumed.network.centers == whole.network.centers);
  CHECK(resumed.network.widths == whole.network.widths);
  REQUIRE(resumed.network.weights.size() == whole.network.weights.size());
  double largest = 0;
  for (double w : whole.network.weights) largest = std::max(largest, std::abs(w));
  for (std::size_t i = 0; i < whole.network.weights.size(); ++i)
    CHECK(std::abs(resumed.network.weights[i] - whole.network.weights[i]) <= 1e-3 * largest);
  CHECK(resumed.network.x_scaler.mean == a.network.x_scaler.mean);
}
