// Tests of row sharding: the in-process group's all-reduce, and ShardedBackend over Eigen
// shards against one Eigen backend holding every row.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "data/synthetic.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "contracts/device_error.hpp"
#include "model/forwarding_backend.hpp"
#include "model/local_row_shards.hpp"
#include "model/sharded_backend.hpp"
#include "model/trainer.hpp"
#include "tests/backend_parity_support.hpp"

using namespace rbf;
using rbf::test::parity::Growth;
using rbf::test::parity::kStoreAll;
using rbf::test::parity::kTol;
using rbf::test::parity::Problem;

namespace {

template <typename T>
std::unique_ptr<model::Backend<T>> eigen() {
  return cpu::make_backend<T>(model::CpuOptions{1});
}

template <typename T>
std::unique_ptr<model::ShardedBackend<T>> sharded(std::size_t shards) {
  std::vector<typename model::ShardedBackend<T>::Factory> factories(shards, [] { return eigen<T>(); });
  return std::make_unique<model::ShardedBackend<T>>(factories, model::make_local_row_shards(shards));
}

// Uneven splits for 2 and 3 shards: 401 training and 52 validation rows.
Problem problem() { return test::parity::make_problem(401, 4, 2, 52, 150, 7); }

// A tolerance on the float or double result of sums taken in another order.
template <typename T>
double tolerance() {
  return sizeof(T) == 4 ? 2e-3 : 1e-9;
}

// max_residual growth as the trainer runs it: no candidate statistics.
template <typename T>
Growth grow_max_residual(model::Backend<T>& b, const Problem& p, std::size_t nodes) {
  test::parity::load(b, p, kStoreAll);
  std::vector<double> a, h;
  b.reset_to_bias(a);
  Growth g;
  while (g.chosen.size() < nodes) {
    const model::Selection sel = b.select_max_residual();
    REQUIRE(sel.found);
    if (b.add_node(sel.index, kTol, h) <= 0) continue;
    g.sse.push_back(b.update(false, a));
    g.chosen.push_back(sel.index);
  }
  return g;
}

template <typename T>
void check_same_growth(const Growth& sharded_growth, const Growth& single) {
  CHECK(sharded_growth.chosen == single.chosen);
  REQUIRE(sharded_growth.sse.size() == single.sse.size());
  for (std::size_t i = 0; i < single.sse.size(); ++i)
    CHECK(test::relative(sharded_growth.sse[i], single.sse[i]) < tolerance<T>());
  REQUIRE(sharded_growth.predictions.size() == single.predictions.size());
  for (std::size_t i = 0; i < single.predictions.size(); ++i)
    CHECK(std::abs(sharded_growth.predictions[i] - single.predictions[i]) < 50 * tolerance<T>());
}

// A small training on the CPU, with validation rows.
model::Config training_config(std::size_t nodes) {
  model::Config c;
  c.data.validation = 0.2;
  c.data.folds = 0;  // one growth, sharded
  c.stopping.patience = 0;
  c.stopping.max_nodes = nodes;
  c.candidates.pool = 200;
  c.logging.progress = false;
  c.trainer.threads = 1;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

// The two trainings chose the same centers and widths, with training errors within `tol`.
void check_same_nodes(const model::TrainResult& got, const model::TrainResult& expected, double tol) {
  REQUIRE(got.iterations.size() == expected.iterations.size());
  for (std::size_t i = 0; i < expected.iterations.size(); ++i) {
    CHECK(got.iterations[i].row == expected.iterations[i].row);
    CHECK(got.iterations[i].width == expected.iterations[i].width);
    CHECK(test::relative(got.iterations[i].train_rmse, expected.iterations[i].train_rmse) < tol);
  }
}

// Throws DeviceError, as a failing device would, on its `fail_at`-th update (1-based; 0 =
// never); `kind` is what it calls itself (gpu: a stand-in for a CUDA shard).
template <typename T>
class FailingShard final : public model::ForwardingBackend<T> {
 public:
  explicit FailingShard(std::size_t fail_at, model::BackendKind kind = model::BackendKind::cpu)
      : model::ForwardingBackend<T>(eigen<T>()), fail_at_(fail_at), kind_(kind) {}
  model::BackendKind kind() const override { return kind_; }
  double update(bool statistics, std::vector<double>& a) override {
    if (++updates_ == fail_at_) throw model::DeviceError("device lost during update");
    return this->inner().update(statistics, a);
  }

 private:
  std::size_t fail_at_, updates_ = 0;
  model::BackendKind kind_;
};

// Sees a stop of set-up whatever flag it is given, as if a SIGINT came just before its passes.
template <typename T>
class StoppedShard final : public model::ForwardingBackend<T> {
 public:
  explicit StoppedShard(std::unique_ptr<model::Backend<T>> inner) : model::ForwardingBackend<T>(std::move(inner)) {}
  void set_setup_stop(const std::atomic<bool>*) override { this->inner().set_setup_stop(&stopped_); }

 private:
  std::atomic<bool> stopped_{true};
};

// Keeps the group from its inner backend: a shard whose sums over rows are not reduced.
template <typename T>
class UnreducedShard final : public model::ForwardingBackend<T> {
 public:
  UnreducedShard() : model::ForwardingBackend<T>(eigen<T>()) {}
  void set_row_shards(std::shared_ptr<model::RowShards>) override {}
};

}  // namespace

TEST_CASE("row_shards: the local group gives every shard the shard-order sum, bit for bit") {
  const std::size_t shards = 3, rounds = 50;
  auto group = model::make_local_row_shards(shards);
  // Values whose sum depends on the order of the additions. Computed once into a table: the
  // same expression inlined at two places may be contracted into an FMA at one of them only
  // (GCC does so on aarch64), which would change the values, not the sums.
  std::vector<double> table(shards * rounds * 2);
  for (std::size_t shard = 0; shard < shards; ++shard)
    for (std::size_t round = 0; round < rounds; ++round)
      for (std::size_t j = 0; j < 2; ++j) {
        const double big = shard == 1 ? 1e16 : (shard == 2 ? -1.0 : 1.0);
        const double small = 0.1 * static_cast<double>(round + j + shard);
        volatile double rounded = small;  // rounded to double before the addition
        table[(shard * rounds + round) * 2 + j] = big + rounded;
      }
  auto value = [&](std::size_t shard, std::size_t round, std::size_t j) { return table[(shard * rounds + round) * 2 + j]; };
  std::vector<std::vector<double>> results(shards);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < shards; ++i) {
    threads.emplace_back([&, i] {
      for (std::size_t round = 0; round < rounds; ++round) {
        std::vector<double> v{value(i, round, 0), value(i, round, 1)};
        group[i]->sum(v.data(), v.size());
        results[i].insert(results[i].end(), v.begin(), v.end());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (std::size_t round = 0; round < rounds; ++round) {
    for (std::size_t j = 0; j < 2; ++j) {
      const double expected = (value(0, round, j) + value(1, round, j)) + value(2, round, j);
      for (std::size_t i = 0; i < shards; ++i) CHECK(results[i][round * 2 + j] == expected);
    }
  }
}

TEST_CASE("row_shards: abort wakes a waiting shard, and later sums throw too") {
  auto group = model::make_local_row_shards(2);
  auto waiting = std::async(std::launch::async, [&] {
    double v = 1;
    group[0]->sum(&v, 1);  // shard 1 never comes
  });
  CHECK(waiting.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  group[1]->abort();
  REQUIRE(waiting.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK_THROWS_AS(waiting.get(), model::ShardGroupAborted);
  double v = 1;
  CHECK_THROWS_AS(group[1]->sum(&v, 1), model::ShardGroupAborted);
}

TEST_CASE("row_shards: rows are split into contiguous near-equal blocks") {
  CHECK(model::shard_rows(10, 3, 0) == 4);
  CHECK(model::shard_rows(10, 3, 1) == 3);
  CHECK(model::shard_rows(10, 3, 2) == 3);
  CHECK(model::shard_first_row(10, 3, 0) == 0);
  CHECK(model::shard_first_row(10, 3, 1) == 4);
  CHECK(model::shard_first_row(10, 3, 2) == 7);
  CHECK(model::shard_first_row(10, 3, 2) + model::shard_rows(10, 3, 2) == 10);
}

TEST_CASE_TEMPLATE("row_shards: OLS growth over 2 and 3 shards matches one backend, stored and matrix-free", T, float,
                   double) {
  const Problem p = problem();
  // 1 KB stores nothing: every pass is matrix-free.
  for (const double budget : {kStoreAll, 1024.0}) {
    auto single = eigen<T>();
    bool single_stored = false;
    const Growth expected = test::parity::grow(*single, p, 30, budget, &single_stored);
    for (const std::size_t shards : {std::size_t{2}, std::size_t{3}}) {
      CAPTURE(budget);
      CAPTURE(shards);
      auto b = sharded<T>(shards);
      bool stored = false;
      const Growth got = test::parity::grow(*b, p, 30, budget, &stored);
      CHECK(stored == single_stored);
      CHECK(stored == (budget == kStoreAll));
      check_same_growth<T>(got, expected);
      CHECK(b->nodes() == single->nodes());
      CHECK(b->reorthogonalizations() == single->reorthogonalizations());
    }
  }
}

TEST_CASE("row_shards: fewer validation rows than shards leave some shards without any") {
  const Problem p = test::parity::make_problem(200, 3, 1, 2, 60, 9);
  auto single = eigen<double>();
  auto b = sharded<double>(3);
  const Growth expected = test::parity::grow(*single, p, 10, kStoreAll);
  const Growth got = test::parity::grow(*b, p, 10, kStoreAll);
  REQUIRE(got.predictions.size() == 2);
  check_same_growth<double>(got, expected);
}

TEST_CASE_TEMPLATE("row_shards: the candidate memory cap is for the whole Phi_C, shared by the shards' rows", T,
                   float, double) {
  const Problem p = problem();
  const double whole = static_cast<double>(p.n * p.count() * sizeof(T));
  for (const double budget : {1.01 * whole, 0.99 * whole}) {
    CAPTURE(budget);
    auto single = eigen<T>();
    auto b = sharded<T>(3);
    test::parity::load(*single, p, budget);
    test::parity::load(*b, p, budget);
    CHECK(single->candidates_stored() == (budget > whole));
    CHECK(b->candidates_stored() == single->candidates_stored());
  }
}

TEST_CASE_TEMPLATE("row_shards: max_residual growth over 3 shards matches one backend", T, float, double) {
  const Problem p = problem();
  auto single = eigen<T>();
  auto b = sharded<T>(3);
  const Growth expected = grow_max_residual(*single, p, 30);
  const Growth got = grow_max_residual(*b, p, 30);
  check_same_growth<T>(got, expected);
}

TEST_CASE_TEMPLATE("row_shards: node_at columns and state transfer between sharded and unsharded backends", T, float,
                   double) {
  const Problem p = problem();
  auto single = eigen<T>();
  auto b = sharded<T>(3);
  test::parity::grow(*single, p, 10, kStoreAll);
  test::parity::grow(*b, p, 10, kStoreAll);

  // An off-pool node (refinement's add_node_at) on both.
  std::vector<T> center(p.d, T(0.25));
  std::vector<double> h_single, h_sharded;
  const double norm_single = single->add_node_at(center.data(), T(1.5), kTol, h_single);
  const double norm_sharded = b->add_node_at(center.data(), T(1.5), kTol, h_sharded);
  CHECK(test::relative(norm_sharded, norm_single) < tolerance<T>());
  REQUIRE(h_sharded.size() == h_single.size());
  for (std::size_t i = 0; i < h_single.size(); ++i) CHECK(std::abs(h_sharded[i] - h_single[i]) < tolerance<T>());
  std::vector<double> a;
  single->update(true, a);
  b->update(true, a);

  // The exported state is gathered in row order: it matches the unsharded one.
  model::BackendState<T> from_single, from_sharded;
  single->export_state(from_single);
  b->export_state(from_sharded);
  REQUIRE(from_sharded.q.size() == from_single.q.size());
  REQUIRE(from_sharded.e.size() == from_single.e.size());
  CHECK(from_sharded.used == from_single.used);
  for (std::size_t i = 0; i < from_single.q.size(); ++i)
    CHECK(std::abs(from_sharded.q[i] - from_single.q[i]) < tolerance<T>());
  for (std::size_t i = 0; i < from_single.e.size(); ++i)
    CHECK(std::abs(from_sharded.e[i] - from_single.e[i]) < 10 * tolerance<T>());

  // Each state continues on the other kind of backend as it would have on its own.
  auto into_single = eigen<T>();
  test::parity::load(*into_single, p, kStoreAll);
  into_single->import_state(from_sharded);
  auto into_sharded = sharded<T>(2);
  test::parity::load(*into_sharded, p, kStoreAll);
  into_sharded->import_state(from_single);
  const Growth continued = test::parity::extend(*single, 10);
  CHECK(test::parity::extend(*into_single, 10).chosen == continued.chosen);
  CHECK(test::parity::extend(*into_sharded, 10).chosen == continued.chosen);
  CHECK(test::parity::extend(*b, 10).chosen == continued.chosen);
}

TEST_CASE_TEMPLATE("row_shards: a shard's DeviceError reaches the caller as a DeviceError, without a hang", T, float,
                   double) {
  const Problem p = problem();
  for (const std::size_t failing : {std::size_t{0}, std::size_t{2}}) {
    CAPTURE(failing);
    std::vector<typename model::ShardedBackend<T>::Factory> factories;
    for (std::size_t i = 0; i < 3; ++i)
      factories.push_back([i, failing]() -> std::unique_ptr<model::Backend<T>> {
        if (i == failing) return std::make_unique<FailingShard<T>>(4);
        return eigen<T>();
      });
    model::ShardedBackend<T> b(factories, model::make_local_row_shards(3));
    // The other shards wait in the update's sums for the failed one until the group is aborted.
    CHECK_THROWS_AS(test::parity::grow(b, p, 10, kStoreAll), model::DeviceError);
    // After a failure the backend may only be destroyed.
    CHECK_THROWS_AS(b.select_ols(0.0, kTol), std::logic_error);
  }
}

// A stop (SIGINT) may be seen by one shard before a sum and by the others after it: the one
// that sees it must still take part in the sums the others wait in. `make` makes a shard.
template <typename T>
void check_stop_seen_by_one_shard(const std::function<std::unique_ptr<model::Backend<T>>()>& make) {
  const Problem p = problem();
  for (const double budget : {kStoreAll, 1024.0}) {
    CAPTURE(budget);
    const auto group = model::make_local_row_shards(3);
    std::vector<typename model::ShardedBackend<T>::Factory> factories;
    factories.push_back([make]() -> std::unique_ptr<model::Backend<T>> { return std::make_unique<StoppedShard<T>>(make()); });
    factories.push_back(make);
    factories.push_back(make);
    model::ShardedBackend<T> b(factories, group);
    b.set_setup_stop(nullptr);
    test::parity::load(b, p, budget);
    std::vector<double> a;
    auto reset = std::async(std::launch::async, [&] { b.reset_to_bias(a); });
    const bool finished = reset.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    if (!finished) group[0]->abort();  // releases the shards waiting for the stopped one
    CHECK(finished);
    CHECK_NOTHROW(reset.get());
    CHECK(a.size() == p.k);
  }
}

TEST_CASE_TEMPLATE("row_shards: a stop seen by one shard only still lets every shard finish set-up", T, float,
                   double) {
  check_stop_seen_by_one_shard<T>([] { return eigen<T>(); });
}

#ifdef RBF_TEST_GPU
TEST_CASE_TEMPLATE("gpu backend over 3 row shards: a stop seen by one shard only still lets every shard finish set-up" * doctest::test_suite("gpu"),
                   T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  check_stop_seen_by_one_shard<T>([] {
    model::GpuOptions options;
    return gpu::make_backend<T>(gpu::open_context(options), options);
  });
}
#endif

TEST_CASE("row_shards: a factory's exception reaches the caller") {
  std::vector<model::ShardedBackend<double>::Factory> factories{
      [] { return eigen<double>(); },
      []() -> std::unique_ptr<model::Backend<double>> { throw model::DeviceError("cannot open device 1"); }};
  CHECK_THROWS_AS(model::ShardedBackend<double>(factories, model::make_local_row_shards(2)), model::DeviceError);
}

TEST_CASE("row_shards: a sum over rows left unreduced is caught as shards that disagree") {
  const Problem p = problem();
  std::vector<model::ShardedBackend<double>::Factory> factories(
      2, []() -> std::unique_ptr<model::Backend<double>> { return std::make_unique<UnreducedShard<double>>(); });
  model::ShardedBackend<double> b(factories, model::make_local_row_shards(2));
  CHECK_THROWS_AS(test::parity::grow(b, p, 20, kStoreAll), std::logic_error);
}

TEST_CASE("row_shards: fewer training rows than shards is refused with a message") {
  auto b = sharded<double>(3);
  const std::vector<double> x{0.0, 1.0}, y{0.0, 1.0};
  try {
    b->set_training_data(x.data(), 2, 1, y.data(), 1);
    FAIL("two rows were split into three shards");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("fewer than the 3 row shards") != std::string::npos);
  }
}

TEST_CASE("row_shards: a training through the trainer on 3 CPU shards grows the unsharded model") {
  const data::Dataset ds = data::make_friedman1(900, 6, 0.5, 3);
  model::Config c = training_config(30);
  c.trainer.precision = model::Precision::float64;
  const model::TrainResult single = model::train(ds, c);
  model::TrainerHooks hooks;
  std::size_t made = 0;
  hooks.make_double = [&made](model::BackendKind) -> std::unique_ptr<model::Backend<double>> {
    ++made;
    return sharded<double>(3);
  };
  const model::TrainResult got = model::train(ds, c, {}, hooks);
  CHECK(made >= 1);
  check_same_nodes(got, single, 1e-9);
  for (std::size_t i = 0; i < single.iterations.size(); ++i)
    CHECK(test::relative(got.iterations[i].val_rmse, single.iterations[i].val_rmse) < 1e-9);
  CHECK(got.network.nodes() == single.network.nodes());
}

TEST_CASE("row_shards: auto moves to sharded GPU stand-ins, and a shard's fault falls back to the CPU") {
  // The CPU -> sharded move goes through export_state/import_state; the fault of shard 2 at
  // its 8th update (iteration 13) must reach the trainer as a DeviceError, which rebuilds the
  // nodes on the CPU. The nodes are those of a CPU-only run.
  const data::Dataset ds = data::make_friedman1(1200, 6, 0.5, 5);
  model::Config c = training_config(25);
  const model::TrainResult cpu = model::train(ds, c);
  c.backend.kind = model::BackendKind::auto_select;
  c.backend.switch_at_nodes = 5;
  model::TrainerHooks hooks;
  hooks.gpu_available = [](std::string&) { return true; };
  hooks.make_float = [](model::BackendKind kind) -> std::unique_ptr<model::Backend<float>> {
    if (kind != model::BackendKind::gpu) return eigen<float>();
    std::vector<model::ShardedBackend<float>::Factory> factories;
    for (std::size_t i = 0; i < 3; ++i)
      factories.push_back([i]() -> std::unique_ptr<model::Backend<float>> {
        return std::make_unique<FailingShard<float>>(i == 2 ? 8 : 0, model::BackendKind::gpu);
      });
    return std::make_unique<model::ShardedBackend<float>>(factories, model::make_local_row_shards(3));
  };
  const model::TrainResult res = model::train(ds, c, {}, hooks);
  std::string all;
  for (const auto& e : res.events) all += e + "\n";
  CAPTURE(all);
  CHECK(all.find("switch cpu->gpu at 5 nodes") != std::string::npos);
  CHECK(all.find("GPU failure (device lost during update)") != std::string::npos);
  check_same_nodes(res, cpu, 1e-4);
  CHECK(res.iterations[6].backend == "gpu");
  CHECK(res.iterations.back().backend == "cpu");
}
