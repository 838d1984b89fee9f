// What the backend parity files share: test problem, growth, float64 reference, case macros.
// The problem comes with a candidate pool laid out as the trainer's; grow() is the trainer's
// loop through a backend; reference_growth() is the plain float64 OLS every backend meets;
// RBF_BACKEND_CASES makes one test case per backend built in.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "contracts/backend.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "model/forwarding_backend.hpp"
#include "model/local_row_shards.hpp"
#include "model/sharded_backend.hpp"
#include "tests/parity_support.hpp"

namespace rbf::test::parity {

using rbf::model::Backend;
using rbf::test::relative;
using rbf::test::relative_difference;

inline constexpr double kTol = 1e-4;  // dependency tolerance, as the trainer's default
inline constexpr double kStoreAll = 1e15;  // a candidate budget that stores every candidate

// A small, well-conditioned regression problem with a candidate pool laid out as the trainer
// does: candidate c = row_index * widths + width_index.
struct Problem {
  std::size_t n = 0, d = 0, k = 0, nv = 0;
  std::vector<double> x, y, xv;           // row-major
  std::vector<double> centers, widths;    // count x d, count
  std::vector<std::size_t> rows;          // count
  std::size_t count() const { return widths.size(); }
};

// `duplicate`: the second half of the pool repeats the first half exactly, so equal scores
// occur and the lowest index must win.
Problem make_problem(std::size_t n, std::size_t d, std::size_t k, std::size_t nv, std::size_t pool,
                     std::uint64_t seed, bool duplicate = false);

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// What a growth run produced: chosen candidates, ||E||^2 after each node, validation
// predictions of the final model, and the basis coefficients.
struct Growth {
  std::vector<std::size_t> chosen;
  std::vector<double> sse;
  std::vector<double> predictions;
};

// Solves R W = theta (R upper triangular, given by columns) for the output weights.
std::vector<double> solve_weights(const std::vector<std::vector<double>>& r_columns,
                                  const std::vector<double>& theta, std::size_t k);

template <typename T>
void load(Backend<T>& b, const Problem& p, double budget_bytes) {
  const auto x = as<T>(p.x), y = as<T>(p.y), xv = as<T>(p.xv);
  const auto centers = as<T>(p.centers), widths = as<T>(p.widths);
  b.set_training_data(x.data(), p.n, p.d, y.data(), p.k);
  b.set_validation_data(xv.data(), p.nv);
  b.set_candidates(centers.data(), widths.data(), p.rows.data(), p.count(), {budget_bytes});
}

// Continues OLS growth by `nodes` nodes; returns the chosen candidates and ||E||^2 after each.
template <typename T>
Growth extend(Backend<T>& b, std::size_t nodes) {
  Growth g;
  std::vector<double> a, h;
  while (g.chosen.size() < nodes) {
    const rbf::model::Selection sel = b.select_ols(0.0, kTol);
    REQUIRE(sel.found);
    if (b.add_node(sel.index, kTol, h) <= 0) continue;
    g.sse.push_back(b.update(true, a));
    g.chosen.push_back(sel.index);
    b.add_validation_column(sel.index);
  }
  return g;
}

// The trainer's loop on a loaded backend, reduced to what the parity checks need: reset, then
// `nodes` OLS nodes, and the validation predictions of their output weights. r0 is R's first
// entry, ||bias column|| (sqrt(n) unweighted).
template <typename T>
Growth grow_loaded(Backend<T>& b, std::size_t nodes, double r0, std::size_t k) {
  std::vector<double> a, h;
  b.reset_to_bias(a);
  std::vector<std::vector<double>> r{{r0}};
  std::vector<double> theta(a);
  Growth g;
  while (g.chosen.size() < nodes) {
    const rbf::model::Selection sel = b.select_ols(0.0, kTol);
    REQUIRE(sel.found);
    const double norm = b.add_node(sel.index, kTol, h);
    if (norm <= 0) continue;
    g.sse.push_back(b.update(true, a));
    h.push_back(norm);
    r.push_back(h);
    theta.insert(theta.end(), a.begin(), a.end());
    g.chosen.push_back(sel.index);
    b.add_validation_column(sel.index);
  }
  const std::vector<double> w = solve_weights(r, theta, k);
  b.predict_validation(w.data(), g.chosen.size(), g.predictions);
  return g;
}

// load, then grow_loaded.
template <typename T>
Growth grow(Backend<T>& b, const Problem& p, std::size_t nodes, double budget_bytes,
            bool* stored = nullptr) {
  load(b, p, budget_bytes);
  if (stored != nullptr) *stored = b.candidates_stored();
  return grow_loaded(b, nodes, std::sqrt(static_cast<double>(p.n)), p.k);
}

// Plain float64 OLS forward selection with explicit CGS2: the reference every backend meets.
Growth reference_growth(const Problem& p, std::size_t nodes);

// A group of one row shard: its sums are its own, but a backend given it takes every path of
// a row-sharded backend (sums through the group, decisions on the host).
class OneShard final : public rbf::model::RowShards {
 public:
  OneShard() : RowShards(0, 1) {}
  void sum(double*, std::size_t) override {}
  void abort() override {}
};

// The inner backend as the only shard of `group` (whose rows it sets at set_training_data).
template <typename T>
class OneShardBackend final : public rbf::model::ForwardingBackend<T> {
 public:
  OneShardBackend(std::unique_ptr<Backend<T>> inner, std::shared_ptr<rbf::model::RowShards> group)
      : rbf::model::ForwardingBackend<T>(std::move(inner)), group_(std::move(group)) {
    this->inner().set_row_shards(group_);
  }
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k) override {
    group_->set_rows(0, n);
    this->inner().set_training_data(x, n, d, y, k);
  }

 private:
  std::shared_ptr<rbf::model::RowShards> group_;
};

// "cpu", "gpu", or "cpu one shard" / "gpu one shard" (the backend as the one shard of a
// group), "cpu 3 shards" / "gpu 3 shards" (three shards in one ShardedBackend, the GPU's all
// on device 0), "gpu 2 devices" (one shard on each of devices 0 and 1, through NCCL), "gpu nccl" (the GPU
// backend as one shard through NCCL on device 0), "gpu half basis" (one GPU holding Q in half
// precision, backend.gpu_basis: half).
template <typename T>
std::unique_ptr<Backend<T>> make(const std::string& which,
                                 rbf::model::GpuMemory memory = rbf::model::GpuMemory::auto_select) {
  if (which == "cpu") return rbf::cpu::make_backend<T>(rbf::model::CpuOptions{2});
  if (which == "cpu one shard")
    return std::make_unique<OneShardBackend<T>>(rbf::cpu::make_backend<T>(rbf::model::CpuOptions{2}),
                                                std::make_shared<OneShard>());
  if (which == "cpu 3 shards") {
    const std::vector<typename rbf::model::ShardedBackend<T>::Factory> factories(
        3, [] { return rbf::cpu::make_backend<T>(rbf::model::CpuOptions{1}); });
    return std::make_unique<rbf::model::ShardedBackend<T>>(factories, rbf::model::make_local_row_shards(3));
  }
  rbf::model::GpuOptions options;
  options.memory = memory;
  if (which == "gpu half basis") options.basis = rbf::model::GpuBasis::half;
  if (which == "gpu 2 devices") {  // devices 0 and 1, summing through NCCL
    std::vector<typename rbf::model::ShardedBackend<T>::Factory> factories;
    for (const int device : {0, 1})
      factories.push_back([options, device] {
        rbf::model::GpuOptions on = options;
        on.device = device;
        return rbf::gpu::make_backend<T>(rbf::gpu::open_context(on), on);
      });
    return std::make_unique<rbf::model::ShardedBackend<T>>(factories, rbf::gpu::make_device_row_shards({0, 1}));
  }
  if (which == "gpu 3 shards") {  // three shards on device 0, each with its own context
    const std::vector<typename rbf::model::ShardedBackend<T>::Factory> factories(
        3, [options] { return rbf::gpu::make_backend<T>(rbf::gpu::open_context(options), options); });
    return std::make_unique<rbf::model::ShardedBackend<T>>(factories, rbf::model::make_local_row_shards(3));
  }
  auto gpu = rbf::gpu::make_backend<T>(rbf::gpu::open_context(options), options);
  if (which == "gpu one shard")
    return std::make_unique<OneShardBackend<T>>(std::move(gpu), std::make_shared<OneShard>());
  if (which == "gpu nccl")
    return std::make_unique<OneShardBackend<T>>(std::move(gpu), rbf::gpu::make_device_row_shards({0}).at(0));
  return gpu;
}

}  // namespace rbf::test::parity

// One test case per backend built in, for each precision: "cpu backend: <title>" always (also
// as one row shard and over three), and "gpu backend: <title>" in CUDA builds;
// `body<T>(which)` runs the checks. GPU cases are in the doctest suite "gpu" ("two_gpus" for
// two devices), whose ctest entries count as skipped without the device
// (cmake/RbfDoctestGroups.cmake).
#define RBF_CPU_CASE(title, body)                                                                              \
  TEST_CASE_TEMPLATE("cpu backend: " title, T, float, double) { body<T>("cpu"); }                              \
  TEST_CASE_TEMPLATE("cpu backend as one row shard: " title, T, float, double) { body<T>("cpu one shard"); }   \
  TEST_CASE_TEMPLATE("cpu backend over 3 row shards: " title, T, float, double) { body<T>("cpu 3 shards"); }

#ifdef RBF_TEST_GPU
#define RBF_BACKEND_CASES(title, body)                                                                                                 \
  RBF_CPU_CASE(title, body)                                                                                                            \
  TEST_CASE_TEMPLATE("gpu backend: " title * doctest::test_suite("gpu"), T, float, double) { RBF_SKIP_WITHOUT_GPU(); body<T>("gpu"); } \
  TEST_CASE_TEMPLATE("gpu backend as one row shard: " title * doctest::test_suite("gpu"), T, float, double) {                          \
    RBF_SKIP_WITHOUT_GPU();                                                                                                            \
    body<T>("gpu one shard");                                                                                                          \
  }                                                                                                                                    \
  TEST_CASE_TEMPLATE("gpu backend over 3 row shards on one device: " title * doctest::test_suite("gpu"), T, float, double) {           \
    RBF_SKIP_WITHOUT_GPU();                                                                                                            \
    body<T>("gpu 3 shards");                                                                                                           \
  }                                                                                                                                    \
  TEST_CASE_TEMPLATE("gpu backend over 2 devices through NCCL: " title * doctest::test_suite("two_gpus"), T, float, double) {          \
    RBF_SKIP_WITHOUT_TWO_GPUS();                                                                                                       \
    body<T>("gpu 2 devices");                                                                                                          \
  }
#else
#define RBF_BACKEND_CASES(title, body) RBF_CPU_CASE(title, body)
#endif
