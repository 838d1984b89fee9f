// Tests of stopping.refit: the node count kept on validation, grown again on every row.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>

#include "data/synthetic.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "model/trainer.hpp"
#include "model/training_state.hpp"

using namespace rbf;

namespace {

const data::Dataset& refit_data() {
  static const data::Dataset ds = data::make_friedman1(600, 5, 0.5, 7);
  return ds;
}

model::Config refit_config(bool refit) {
  model::Config c;
  c.data.validation = 0.25;
  c.data.folds = 0;  // a refit follows a hold-out
  c.stopping.patience = 6;
  c.stopping.max_nodes = 120;
  c.stopping.refit = refit;
  c.candidates.pool = 300;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

// The same nodes, widths and weights, bit for bit.
void check_same_network(const model::Network& a, const model::Network& b) {
  CHECK(a.centers == b.centers);
  CHECK(a.widths == b.widths);
  CHECK(a.weights == b.weights);
  CHECK(a.bias == b.bias);
  CHECK(a.x_scaler.mean == b.x_scaler.mean);
}

}  // namespace

TEST_CASE("refit: grows the node count chosen on validation again on every row") {
  const model::TrainResult early = model::train(refit_data(), refit_config(false));
  const model::TrainResult refit = model::train(refit_data(), refit_config(true));
  const std::size_t chosen = early.network.nodes();
  REQUIRE(chosen > 0);
  REQUIRE(chosen < early.iterations.back().nodes);  // patience stopped growth past the best

  REQUIRE(refit.refit.done);
  CHECK(refit.refit.nodes == chosen);
  CHECK(refit.refit.rows == refit_data().rows);
  CHECK(refit.refit.stop_reason == "reached max_nodes");
  CHECK(refit.network.nodes() == chosen);
  CHECK(refit.network.training_state.empty());
  // The early-stopping run is the same with or without the refit after it.
  CHECK(refit.iterations.size() == early.iterations.size());
  CHECK(refit.stop_reason == early.stop_reason);
  CHECK(refit.validation_scores.rmse == early.validation_scores.rmse);
  CHECK(refit.train_scores.rows == refit_data().rows);
  CHECK(early.train_scores.rows + early.validation_scores.rows == refit_data().rows);

  // It is the model a run without validation grows to that count on every row.
  model::Config all = refit_config(false);
  all.data.validation = 0;
  all.stopping.max_nodes = chosen;
  all.trainer.output_ridge = refit.output_ridge;  // without validation the refit takes the chosen penalty
  const model::TrainResult direct = model::train(refit_data(), all);
  check_same_network(refit.network, direct.network);
  // ... and not the early-stopped one.
  CHECK(refit.network.x_scaler.mean != early.network.x_scaler.mean);
}

TEST_CASE("refit: without validation rows there is nothing to add, and the model is the usual one") {
  model::Config with = refit_config(true), without = refit_config(false);
  with.data.validation = without.data.validation = 0;
  with.stopping.max_nodes = without.stopping.max_nodes = 15;
  const model::TrainResult a = model::train(refit_data(), with);
  const model::TrainResult b = model::train(refit_data(), without);
  CHECK_FALSE(a.refit.done);
  check_same_network(a.network, b.network);
  CHECK(a.network.training_state.empty());
}

TEST_CASE("refit: a stop during the refit leaves the early-stopped run as the checkpoint, and resuming it refits") {
  const model::Config cfg = refit_config(true);
  const model::TrainResult whole = model::train(refit_data(), cfg);
  REQUIRE(whole.refit.done);

  // The refit opens the run's second backend: ask for a stop there.
  std::atomic<bool> stop{false};
  int backends = 0;
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.hooks.make_float = [&](model::BackendKind) -> std::unique_ptr<model::Backend<float>> {
    if (++backends == 2) stop = true;
    return cpu::make_backend<float>(model::CpuOptions{2});
  };
  const model::TrainResult part = model::train(refit_data(), cfg, first);
  REQUIRE(backends == 2);
  CHECK(part.interrupted);
  CHECK(part.stop_reason == "interrupted");
  CHECK_FALSE(part.refit.done);
  REQUIRE_FALSE(part.network.training_state.empty());
  CHECK(part.network.nodes() == whole.refit.nodes);

  const model::TrainingState state = model::decode_training_state(part.network.training_state, "checkpoint");
  model::TrainOptions second;
  second.resume = &state;
  const model::TrainResult resumed = model::train(refit_data(), cfg, second);
  REQUIRE(resumed.refit.done);
  CHECK(resumed.iterations.empty());  // growth had already stopped: only the refit is left
  CHECK(resumed.stop_reason == whole.stop_reason);
  check_same_network(resumed.network, whole.network);
}
