// Tests of refinement inside training: its gains, rollbacks, saving, interrupts and resuming.
// Refinement lowers validation error; refinements that do not help are rolled back; refined
// models save and load; runs with moved nodes resume from their checkpoints.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/synthetic.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "model/forwarding_backend.hpp"
#include "model/model_file.hpp"
#include "model/refine.hpp"
#include "model/trainer.hpp"
#include "model/training_state.hpp"

using namespace rbf;

namespace {

const data::Dataset& friedman() {
  static const data::Dataset ds = data::make_friedman1(700, 6, 0.3, 23);
  return ds;
}

model::Config refine_config() {
  model::Config c;
  c.data.validation = 0.25;
  c.data.folds = 0;  // refinement keeps or rolls back its steps by hold-out rows
  c.candidates.pool = 200;
  c.stopping.max_nodes = 24;
  c.stopping.patience = 0;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.trainer.precision = model::Precision::float64;
  c.backend.kind = model::BackendKind::cpu;
  c.refine.epochs = 30;
  c.refine.learning_rate = 0.02;
  return c;
}

std::vector<double> predict(const model::Network& net, const data::Dataset& ds) {
  std::vector<double> out;
  net.predict(ds.x.data(), ds.rows, out);
  return out;
}

bool has_event(const model::TrainResult& r, const std::string& text) {
  for (const auto& e : r.events)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("refine: refining during growth and at the end lowers validation error on Friedman #1") {
  const model::TrainResult plain = model::train(friedman(), refine_config());
  model::Config c = refine_config();
  c.refine.every = 8;
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 8;
  const model::TrainResult refined = model::train(friedman(), c);
  CHECK(has_event(refined, "refine 8 nodes"));
  CHECK(has_event(refined, "at the end: refine"));
  CHECK(refined.refine_seconds > 0);
  CHECK(refined.best_val_rmse < plain.best_val_rmse);
  // The refined model's centers are no longer training rows.
  bool moved = false;
  const model::Network& net = refined.network;
  for (std::size_t j = 0; j < net.nodes() && !moved; ++j)
    moved = net.centers[j * net.inputs] != plain.network.centers[j * net.inputs];
  CHECK(moved);
  // Refinement events appear in the iteration records too, with their time.
  bool logged = false;
  for (const auto& rec : refined.iterations) logged = logged || (rec.refine_ms > 0 && rec.event.find("refine") == 0);
  CHECK(logged);
}

TEST_CASE("refine: lm on a model that could outgrow it is refused before growth starts") {
  model::Config c = refine_config();
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.stopping.max_nodes = model::kMaxLmParameters / 8 + 1;  // d = 6, k = 1: 8 parameters per node
  bool grew = false;
  model::TrainOptions options;
  options.on_iteration = [&](const model::IterationRecord&) { grew = true; };
  CHECK_THROWS_WITH_AS(model::train(friedman(), c, options), doctest::Contains("use refine.method adam or at most 749 nodes"),
                       InputError);
  CHECK_FALSE(grew);
}

TEST_CASE("refine: a refined model saves, loads and predicts identically") {
  model::Config c = refine_config();
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 5;
  c.stopping.max_nodes = 10;
  const model::TrainResult r = model::train(friedman(), c);
  REQUIRE(has_event(r, "validation RMSE"));
  const std::string path = "refine_roundtrip.rbfn";
  model::save_network(r.network, path);
  const model::Network back = model::load_network(path);
  std::remove(path.c_str());
  CHECK(back.centers == r.network.centers);
  CHECK(back.widths == r.network.widths);
  CHECK(predict(back, friedman()) == predict(r.network, friedman()));
}

TEST_CASE("refine: a diverging refinement is rolled back and leaves the model as grown") {
  model::Config c = refine_config();
  c.stopping.max_nodes = 12;
  const model::TrainResult plain = model::train(friedman(), c);
  c.refine.every = 6;
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::adam;
  c.refine.learning_rate = 10.0;  // every step overshoots: validation gets worse at once
  c.refine.epochs = 5;
  c.refine.patience = 2;
  const model::TrainResult r = model::train(friedman(), c);
  CHECK(has_event(r, "no improvement"));
  CHECK(r.network.centers == plain.network.centers);
  CHECK(predict(r.network, friedman()) == predict(plain.network, friedman()));
  CHECK(r.best_val_rmse == plain.best_val_rmse);
}

TEST_CASE("refine: a refinement whose rebuilt model validates worse is rolled back") {
  // On the noisy diabetes data the optimizer's own weights validate better after a step, but
  // least squares on the moved nodes (what growth continues with) validates worse: every
  // refinement during growth (with the linear terms held fixed) is rolled back, and the run
  // ends with the grown model.
  const data::Dataset ds =
      data::read_csv(std::string(RBF_SOURCE_DIR) + "/data/diabetes.csv", {}, {{"progression"}, {}, ""});
  model::Config c;  // the defaults, as `rbfnet train --refine-every` would use them
  c.data.folds = 0;  // the plain run too: refinement holds out validation rows
  c.trainer.precision = model::Precision::float64;
  c.backend.kind = model::BackendKind::cpu;
  c.logging.progress = false;
  c.stopping.max_nodes = 30;
  const model::TrainResult plain = model::train(ds, c);
  c.refine.every = 10;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 10;
  const model::TrainResult r = model::train(ds, c);
  std::size_t rolled_back = 0, refinements = 0;
  for (const auto& e : r.events) {
    rolled_back += e.find("rolled back") != std::string::npos;
    refinements += e.rfind("refine ", 0) == 0;
  }
  CHECK(rolled_back >= 2);
  CHECK(rolled_back == refinements);
  CHECK(r.network.centers == plain.network.centers);
  CHECK(r.network.weights == plain.network.weights);
  CHECK(r.best_val_rmse == plain.best_val_rmse);
}

TEST_CASE("refine: without validation the training objective guards the refinement") {
  model::Config c = refine_config();
  c.data.validation = 0;
  c.stopping.max_nodes = 12;
  const model::TrainResult plain = model::train(friedman(), c);
  c.refine.every = 6;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 5;
  const model::TrainResult r = model::train(friedman(), c);
  CHECK(r.final_train_rmse < plain.final_train_rmse);
}

TEST_CASE("refine: a run with moved nodes resumes from its checkpoint") {
  model::Config c = refine_config();
  c.refine.every = 5;
  c.stopping.max_nodes = 16;
  const model::TrainResult whole = model::train(friedman(), c);
  REQUIRE(has_event(whole, "training RMSE"));

  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.iteration == 12) stop = true;
  };
  const model::TrainResult cut = model::train(friedman(), c, first);
  REQUIRE(cut.interrupted);
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK_FALSE(state.node_widths.empty());
  model::TrainOptions second;
  second.resume = &state;
  const model::TrainResult resumed = model::train(friedman(), c, second);
  // Replaying moved nodes recomputes CGS2 projections the growth took from its history, so
  // the resumed run agrees to rounding, not bit for bit.
  REQUIRE(resumed.network.nodes() == whole.network.nodes());
  const std::vector<double> a = predict(resumed.network, friedman()), b = predict(whole.network, friedman());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-6));
}

namespace {

// The CPU backend raising the stop flag inside the update that brings it to `at` nodes, as a
// signal arriving during that iteration would.
class StopDuringUpdate final : public model::ForwardingBackend<double> {
 public:
  StopDuringUpdate(std::atomic<bool>* stop, std::size_t at)
      : model::ForwardingBackend<double>(cpu::make_backend<double>(model::CpuOptions{2})), stop_(stop), at_(at) {}
  double update(bool statistics, std::vector<double>& a) override {
    const double sse = model::ForwardingBackend<double>::update(statistics, a);
    if (nodes() == at_) *stop_ = true;
    return sse;
  }

 private:
  std::atomic<bool>* stop_;
  std::size_t at_;
};

}  // namespace

TEST_CASE("refine: an interrupt does not start a refinement, and the resumed run refines first") {
  model::Config c = refine_config();
  c.refine.every = 5;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 3;
  c.stopping.max_nodes = 12;
  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.hooks.make_double = [&](model::BackendKind) -> std::unique_ptr<model::Backend<double>> {
    return std::make_unique<StopDuringUpdate>(&stop, 10);
  };
  const model::TrainResult cut = model::train(friedman(), c, first);
  REQUIRE(cut.interrupted);
  CHECK(cut.network.training_state.find("iteration 10") != std::string::npos);
  CHECK(has_event(cut, "refine 5 nodes"));
  CHECK_FALSE(has_event(cut, "refine 10 nodes"));
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK(state.grown_since_refine == 5);  // due
  model::TrainOptions second;
  second.resume = &state;
  const model::TrainResult resumed = model::train(friedman(), c, second);
  REQUIRE_FALSE(resumed.events.empty());
  CHECK(resumed.events.front().find("refine 11 nodes") == 0);
}

TEST_CASE("refine: a training state with moved nodes and a best snapshot round-trips") {
  model::TrainingState s;
  s.iteration = 3;
  s.chosen = {1, 2};
  s.train_rmse_at = {1.0, 0.5, 0.4};
  s.candidates = 10;
  s.node_centers = {0.25, -1.5, 3.0, 0.125};
  s.node_widths = {0.75, 1.25};
  s.best_snapshot_nodes = 1;
  s.best_snapshot = {0.5, 0.5, 1.0, 2.0, -0.5};
  s.best_snapshot_train_rmse = 0.45;
  s.grown_since_refine = 3;
  const model::TrainingState back = model::decode_training_state(model::encode_training_state(s), "s");
  CHECK(back.node_centers == s.node_centers);
  CHECK(back.node_widths == s.node_widths);
  CHECK(back.best_snapshot_nodes == 1);
  CHECK(back.best_snapshot == s.best_snapshot);
  CHECK(back.best_snapshot_train_rmse == 0.45);
  CHECK(back.grown_since_refine == 3);
  // A version-1 state (before refinement existed) still reads.
  model::TrainingState empty;
  empty.train_rmse_at = {1.0};
  std::string v1 = model::encode_training_state(empty);
  v1.replace(v1.find("state 2"), 7, "state 1");
  v1 = v1.substr(0, v1.find("grown_since_refine"));
  CHECK(model::decode_training_state(v1, "v1").node_widths.empty());
  std::string bad = model::encode_training_state(s);
  bad.replace(bad.find("node_widths 2 0.75"), 18, "node_widths 2 -0.7");
  CHECK_THROWS_AS(model::decode_training_state(bad, "s"), InputError);
}

namespace {

// Trains with a stop raised 300 ms after the iteration that reaches `nodes` nodes is reported,
// i.e. while a refinement that comes later runs (one not started yet sees it at its first
// epoch). A refinement while growing runs before its iteration is reported: name the node
// before it.
model::TrainResult train_stopped_after(const model::Config& c, std::size_t nodes) {
  std::atomic<bool> stop{false};
  model::TrainOptions options;
  options.stop_requested = &stop;
  std::thread signal;
  options.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.nodes == nodes && !signal.joinable())
      signal = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop = true;
      });
  };
  model::TrainResult result = model::train(friedman(), c, options);
  if (signal.joinable()) signal.join();
  return result;
}

}  // namespace

TEST_CASE("refine: an interrupt during the refinement at the end leaves the grown model's checkpoint") {
  model::Config c = refine_config();
  c.stopping.max_nodes = 8;
  c.refine.at_end = true;
  c.refine.epochs = 100000000;  // without the check this would not end
  c.refine.patience = 0;
  const model::TrainResult cut = train_stopped_after(c, 8);
  REQUIRE(cut.interrupted);
  CHECK(cut.stop_reason == "interrupted");
  CHECK(has_event(cut, "interrupted"));
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK(state.chosen.size() == 8);
}

TEST_CASE("refine: an interrupt during a refinement while growing drops it and keeps it due") {
  model::Config c = refine_config();
  c.refine.every = 4;
  c.refine.epochs = 100000000;
  c.refine.patience = 0;
  const model::TrainResult cut = train_stopped_after(c, 3);  // the refinement at 4 nodes
  REQUIRE(cut.interrupted);
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK(state.chosen.size() == 4);
  CHECK(state.node_widths.empty());  // the nodes were not moved
  CHECK(state.grown_since_refine == 4);  // due again
}
