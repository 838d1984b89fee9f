// Tests that a stop asked for during a run's set-up ends it promptly, with many classes too.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "data/synthetic.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "model/trainer.hpp"
#include "model/training_data.hpp"
#include "model/training_state.hpp"

using namespace rbf;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// 2,000 classes of two rows each. The first pass over the candidates costs rows x candidates x
// classes multiply-adds (3,200 x 16,000 x 2,000 = 1e11 here): more than 40 s on one thread of
// the development machine, so a set-up that ignores a stop cannot pass the bounds below.
const data::Dataset& many_classes() {
  static const data::Dataset ds = [] {
    constexpr std::size_t kClasses = 2000;
    data::Dataset d;
    d.source = "many_classes";
    d.rows = 2 * kClasses;
    d.features = 4;
    d.targets = 1;
    d.task = data::Task::classification;
    d.feature_names = {"a", "b", "c", "d"};
    d.target_names = {"y"};
    for (std::size_t c = 0; c < kClasses; ++c) d.class_names.push_back("c" + std::to_string(c));
    for (std::size_t i = 0; i < d.rows; ++i) {
      const std::size_t c = i % kClasses;
      for (std::size_t j = 0; j < d.features; ++j)
        d.x.push_back(std::sin(0.7 * static_cast<double>(i) + static_cast<double>(j)) + static_cast<double>(c) / kClasses);
      d.y.push_back(static_cast<double>(c));
    }
    return d;
  }();
  return ds;
}

model::Config many_class_config() {
  model::Config c;
  c.data.validation = 0.2;
  c.candidates.pool = 1000000;  // every training row
  c.candidates.width_factors = {0.5, 0.7, 1.0, 1.4, 2.0};
  c.stopping.max_nodes = 5;
  c.data.folds = 0;  // one growth: the width choice of larger data saves no checkpoint when stopped
  c.trainer.threads = 1;  // the same work on any machine
  c.backend.kind = model::BackendKind::cpu;
  c.logging.progress = false;
  return c;
}

}  // namespace

TEST_CASE("interrupt: a stop during set-up with 2,000 classes ends the run at once with the bias-only checkpoint") {
  std::atomic<bool> stop{true};  // as when SIGINT comes while the data is read
  model::TrainOptions options;
  options.stop_requested = &stop;
  const auto start = Clock::now();
  const model::TrainResult r = model::train(many_classes(), many_class_config(), options);
  // Generous for a loaded machine: what is left (splitting, the one-hot targets, copies)
  // takes well under a second.
  CHECK(seconds_since(start) < 10.0);
  CHECK(r.interrupted);
  CHECK(r.stop_reason == "interrupted");
  CHECK(r.iterations.empty());
  CHECK(r.network.nodes() == 0);
  CHECK_FALSE(r.network.training_state.empty());
  // The bias-only model is exact although the pass over the candidates never ran: the bias is
  // each class's share of the training rows, and the shares add up to 1.
  REQUIRE(r.network.bias.size() == 2000);
  double total = 0;
  for (double b : r.network.bias) total += b;
  CHECK(total == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("interrupt: a stop while set-up runs ends the run within seconds of the stop") {
  std::atomic<bool> stop{false};
  Clock::time_point stopped_at;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stopped_at = Clock::now();
    stop = true;
  });
  model::TrainOptions options;
  options.stop_requested = &stop;
  const model::TrainResult r = model::train(many_classes(), many_class_config(), options);
  const auto returned_at = Clock::now();
  stopper.join();
  // Wherever the stop fell (set-up or the first iterations), the run ends soon after it.
  CHECK(std::chrono::duration<double>(returned_at - stopped_at).count() < 10.0);
  CHECK(r.interrupted);
}

TEST_CASE("interrupt: a stop during a resumed run's set-up leaves its checkpoint as it is") {
  model::Config cfg;
  cfg.data.validation = 0.25;
  cfg.stopping.max_nodes = 20;
  cfg.candidates.pool = 100;
  cfg.trainer.threads = 2;
  cfg.backend.kind = model::BackendKind::cpu;
  cfg.logging.progress = false;
  const data::Dataset ds = data::make_friedman1(400, 5, 0.1, 7);
  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.iteration == 3) stop = true;
  };
  const model::TrainResult part = model::train(ds, cfg, first);
  REQUIRE(part.interrupted);
  const model::TrainingState state = model::decode_training_state(part.network.training_state, "part");

  model::TrainOptions again;
  again.stop_requested = &stop;  // still set: the stop came before the model was rebuilt
  again.resume = &state;
  const model::TrainResult r = model::train(ds, cfg, again);
  CHECK(r.interrupted);
  CHECK(r.resume_unchanged);
  CHECK(r.iterations.empty());
  CHECK(r.network.nodes() == 0);
  CHECK(r.network.training_state.empty());  // nothing to write over the checkpoint with
}

TEST_CASE("interrupt: the CPU backend's set-up returns at once after a stop, with q0^T Y still exact") {
  constexpr std::size_t n = 3000, d = 3, k = 2000, count = 8000;
  std::vector<float> x(n * d), y(n * k, 0.0f), centers(count * d), widths(count, 1.0f);
  std::vector<std::size_t> rows(count);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
  for (std::size_t i = 0; i < n; ++i) y[i * k + i % k] = 1.0f;
  for (std::size_t c = 0; c < count; ++c) {
    rows[c] = c % n;
    for (std::size_t j = 0; j < d; ++j) centers[c * d + j] = x[rows[c] * d + j];
  }
  std::atomic<bool> stop{true};
  const auto backend = cpu::make_backend<float>(model::CpuOptions{1});
  backend->set_setup_stop(&stop);
  const auto start = Clock::now();
  backend->set_training_data(x.data(), n, d, y.data(), k);
  backend->set_candidates(centers.data(), widths.data(), rows.data(), count, {1e12});
  std::vector<double> a;
  backend->reset_to_bias(a);
  // The full pass is 3,000 x 8,000 x 2,000 multiply-adds: over 20 s on one thread.
  CHECK(seconds_since(start) < 5.0);
  REQUIRE(a.size() == k);
  // q0 = 1/sqrt(n): q0^T y_j = (rows of class j) / sqrt(n); classes below 1000 have 2 rows.
  CHECK(a[0] == doctest::Approx(2.0 / std::sqrt(static_cast<double>(n))).epsilon(1e-5));
  CHECK(a[k - 1] == doctest::Approx(1.0 / std::sqrt(static_cast<double>(n))).epsilon(1e-5));
}

TEST_CASE("interrupt: scoring validation with 20,000 classes needs no classes x classes memory") {
  // Scored before the first iteration and after every one; a confusion matrix of 20,000
  // classes is 3.2 GB, and filling it kept a stop waiting.
  constexpr std::size_t k = 20000, nv = 50;
  model::detail::PreparedData p;
  p.k = k;
  p.val_rows.resize(nv);
  p.y_val_raw.assign(nv * k, 0.0);
  std::vector<double> scratch(nv * k, 0.0);
  for (std::size_t i = 0; i < nv; ++i) {
    const std::size_t truth = (i * 397) % k;
    p.val_class.push_back(truth);
    p.y_val_raw[i * k + truth] = 1.0;
    scratch[i * k + (i % 5 == 0 ? (truth + 1) % k : truth)] = 1.0;  // every fifth row wrong
  }
  const model::detail::ValidationScore score = model::detail::score_predictions(p, true, scratch);
  CHECK(score.accuracy == doctest::Approx(0.8));
  rusage usage{};
  REQUIRE(getrusage(RUSAGE_SELF, &usage) == 0);
  CHECK(usage.ru_maxrss < 1024L * 1024L);  // KiB: under 1 GiB at the peak
}
