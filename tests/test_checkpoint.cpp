// Tests of interrupting, checkpointing and resuming training.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "data/errors.hpp"
#include "data/synthetic.hpp"
#include "data/scaler.hpp"
#include "model/model_file.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

model::Config checkpoint_config(bool validation) {
  model::Config c;
  c.data.validation = validation ? 0.25 : 0;
  c.data.folds = 0;  // checkpoints save one growth with hold-out rows
  c.stopping.patience = validation ? 8 : 0;
  c.stopping.max_nodes = 45;
  c.candidates.pool = 200;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

const data::Dataset& checkpoint_data() {
  static const data::Dataset ds = data::make_friedman1(2500, 6, 0.3, 23);
  return ds;
}

// Interrupts a run after `stop_at` iterations, saves and reloads the checkpoint file, and
// resumes from it.
model::TrainResult interrupted_then_resumed(const model::Config& cfg, std::size_t stop_at) {
  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.data_sha256 = "abc123";
  first.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.iteration == stop_at) stop = true;
  };
  const model::TrainResult part = model::train(checkpoint_data(), cfg, first);
  REQUIRE(part.interrupted);
  REQUIRE(part.iterations.size() == stop_at);
  REQUIRE_FALSE(part.network.training_state.empty());
  REQUIRE_FALSE(part.network.linear.empty());  // the checkpoint predicts with the linear terms

  // One file per process: ctest runs the test cases of this file side by side.
  const std::string path = "test_checkpoint_resume_" + std::to_string(::getpid()) + ".ckpt";
  model::save_network(part.network, path);
  const model::Network loaded = model::load_network(path);
  std::remove(path.c_str());
  const model::TrainingState state = model::decode_training_state(loaded.training_state, path);

  model::TrainOptions second;
  second.resume = &state;
  second.data_sha256 = "abc123";
  return model::train(checkpoint_data(), cfg, second);
}

void check_identical(const model::TrainResult& whole, const model::TrainResult& resumed, std::size_t stop_at) {
  CHECK(resumed.stop_reason == whole.stop_reason);
  REQUIRE(resumed.iterations.size() + stop_at == whole.iterations.size());
  for (std::size_t i = 0; i < resumed.iterations.size(); ++i) {
    const auto& a = whole.iterations[i + stop_at];
    const auto& b = resumed.iterations[i];
    CHECK(a.iteration == b.iteration);
    CHECK(a.row == b.row);
    CHECK(a.train_rmse == b.train_rmse);
    CHECK(a.val_rmse == b.val_rmse);
  }
  CHECK(whole.network.centers == resumed.network.centers);
  CHECK(whole.network.widths == resumed.network.widths);
  CHECK(whole.network.weights == resumed.network.weights);
  CHECK(whole.network.bias == resumed.network.bias);
  // The default config fits linear terms; a resumed run fits them again, to the same bits.
  CHECK_FALSE(whole.network.linear.empty());
  CHECK(whole.network.linear == resumed.network.linear);
}

}  // namespace

TEST_CASE("checkpoint: resuming an interrupted run gives the bit-identical model") {
  const model::Config cfg = checkpoint_config(false);
  const model::TrainResult whole = model::train(checkpoint_data(), cfg);
  REQUIRE(whole.iterations.size() == 45);
  check_identical(whole, interrupted_then_resumed(cfg, 17), 17);
}

TEST_CASE("checkpoint: resuming keeps validation patience and the best model") {
  const model::Config cfg = checkpoint_config(true);
  const model::TrainResult whole = model::train(checkpoint_data(), cfg);
  REQUIRE(whole.iterations.size() > 12);
  check_identical(whole, interrupted_then_resumed(cfg, 11), 11);
  CHECK(whole.best_val_rmse > 0);
}

TEST_CASE("checkpoint: periodic checkpoints are valid models that resume") {
  model::Config cfg = checkpoint_config(false);
  std::vector<model::Network> saved;
  model::TrainOptions opt;
  opt.checkpoint_every = 10;
  opt.on_checkpoint = [&](const model::Network& net) { saved.push_back(net); };
  const model::TrainResult whole = model::train(checkpoint_data(), cfg, opt);
  REQUIRE(saved.size() == 4);
  CHECK(saved[1].nodes() == 20);
  const model::TrainingState state = model::decode_training_state(saved[1].training_state, "checkpoint");
  CHECK(state.iteration == 20);
  model::TrainOptions again;
  again.resume = &state;
  check_identical(whole, model::train(checkpoint_data(), cfg, again), 20);
}

TEST_CASE("checkpoint: a checkpoint from other data or another pool is refused") {
  model::Config cfg = checkpoint_config(false);
  model::TrainingState state;
  state.iteration = 1;
  state.chosen = {0};
  state.train_rmse_at = {1.0, 0.9};
  state.candidates = 200;
  state.data_sha256 = "aaaa";
  model::TrainOptions opt;
  opt.resume = &state;
  opt.data_sha256 = "bbbb";
  CHECK_THROWS_AS(model::train(checkpoint_data(), cfg, opt), InputError);
  state.data_sha256.clear();
  cfg.candidates.pool = 100;
  CHECK_THROWS_AS(model::train(checkpoint_data(), cfg, opt), InputError);
}

TEST_CASE("checkpoint: a training state that lists a candidate twice is refused, not an internal error") {
  const model::Config cfg = checkpoint_config(false);
  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.iteration == 4) stop = true;
  };
  const model::TrainResult part = model::train(checkpoint_data(), cfg, first);
  REQUIRE(part.interrupted);
  model::TrainingState state = model::decode_training_state(part.network.training_state, "f");
  REQUIRE(state.chosen.size() >= 2);
  state.chosen[1] = state.chosen[0];
  model::TrainOptions again;
  again.resume = &state;
  CHECK_THROWS_WITH_AS(model::train(checkpoint_data(), cfg, again), doctest::Contains("twice"), InputError);
}

TEST_CASE("checkpoint: damaged training states are clear errors") {
  model::TrainingState ok;
  ok.iteration = 3;
  ok.chosen = {4, 2};
  ok.skipped = {7};
  ok.train_rmse_at = {1.0, 0.8, 0.7};
  ok.candidates = 10;
  const std::string text = model::encode_training_state(ok);
  const model::TrainingState back = model::decode_training_state(text, "f");
  CHECK(back.chosen == ok.chosen);
  CHECK(back.skipped == ok.skipped);
  CHECK(back.train_rmse_at == ok.train_rmse_at);
  for (std::size_t cut = 0; cut + 1 < text.size(); cut += 3)
    CHECK_THROWS_AS(model::decode_training_state(text.substr(0, cut), "f"), InputError);
  std::string big = text;
  big.replace(big.find("chosen 2"), 8, "chosen 99999999999");
  CHECK_THROWS_AS(model::decode_training_state(big, "f"), InputError);
  std::string outside = text;
  outside.replace(outside.find("chosen 2 4"), 10, "chosen 2 40");
  CHECK_THROWS_AS(model::decode_training_state(outside, "f"), InputError);
}

TEST_CASE("checkpoint: SIGKILL during a save leaves the previous file intact") {
  // A large network so that a save takes long enough to be killed in the middle of it.
  model::Network net;
  net.inputs = 50;
  net.outputs = 1;
  net.feature_names.resize(50);
  for (std::size_t j = 0; j < 50; ++j) net.feature_names[j] = "x" + std::to_string(j);
  net.target_names = {"y"};
  net.x_scaler = data::Standardizer::identity(50);
  net.y_scaler = data::Standardizer::identity(1);
  const std::size_t nodes = 40000;
  net.centers.assign(nodes * 50, 0.25);
  net.widths.assign(nodes, 1.5);
  net.weights.assign(nodes, -0.5);
  net.bias = {3.0};
  const std::string path = "test_checkpoint_sigkill.rbfn";
  model::save_network(net, path);

  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      model::Network changed = net;
      for (;;) {
        changed.bias[0] += 1.0;
        model::save_network(changed, path);
      }
    }
    usleep(static_cast<useconds_t>(30000 + 37000 * attempt));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));
    const model::Network loaded = model::load_network(path);  // throws if the file were broken
    CHECK(loaded.nodes() == nodes);
    // A writer killed mid-save leaves at most its own temporary file, never a damaged model.
    std::remove((path + ".tmp-" + std::to_string(child)).c_str());
  }
  std::remove(path.c_str());
}
