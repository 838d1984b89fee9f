// auto's start decision as pure functions: the first iteration's shape, the too-small rule
// and start_on_gpu, with made-up cost models and no backend.
#include <doctest/doctest.h>

#include <cmath>

#include "model/config.hpp"
#include "contracts/candidate_storage.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "contracts/host_memory.hpp"
#include "model/switching/start_rule.hpp"

using namespace rbf::model;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

CostModel model_of(double overhead_ms, double gbs, double gflops) {
  CostModel m;
  m.overhead_ms = overhead_ms;
  m.bandwidth_gbs = gbs;
  m.gflops = gflops;
  return m;
}

}  // namespace

namespace {

StorageDecision decide(double phi_bytes, double budget_bytes, double memory_bytes, double stored_ms = 0,
                       double computed_ms = 0, double margin = 1.0) {
  StorageFacts f;
  f.phi_bytes = phi_bytes;
  f.budget_bytes = budget_bytes;
  f.memory_bytes = memory_bytes;
  f.stored_ms = stored_ms;
  f.computed_ms = computed_ms;
  f.margin = margin;
  return decide_candidate_storage(f);
}

}  // namespace

TEST_CASE("candidate storage: one rule, by bytes against the budget and the memory") {
  CHECK(decide(1e6, 1e6, 1e9).store);  // exactly the budget fits
  const StorageDecision over_budget = decide(1e6 + 1, 1e6, 1e9);
  CHECK_FALSE(over_budget.store);
  CHECK(over_budget.reason.find("candidates.memory_budget_mb") != std::string::npos);
  CHECK_FALSE(decide(4, 0, 1e9).store);
  const StorageDecision over_memory = decide(2e9, 1e12, 1e9);
  CHECK_FALSE(over_memory.store);
  CHECK(over_memory.reason.find("of memory") != std::string::npos);
  CHECK(decide(1e6, 1e12, 1e9).reason.find("fits") != std::string::npos);
  // storage_facts: rows x count x scalar bytes.
  CHECK(storage_facts(StorageRequest{1e6}, 1000, 250, 4, 1e9).phi_bytes == 1e6);
  CHECK(decide_candidate_storage(storage_facts(StorageRequest{1e6}, 1000, 250, 4, 1e9)).store);
  CHECK_FALSE(decide_candidate_storage(storage_facts(StorageRequest{1e6}, 1000, 251, 4, 1e9)).store);
}

TEST_CASE("candidate storage: costs decide where Phi_C fits, with the margin") {
  CHECK(decide(1e6, 1e12, 1e9, 10, 20).store);
  const StorageDecision cheaper = decide(1e6, 1e12, 1e9, 20, 10);
  CHECK_FALSE(cheaper.store);
  CHECK(cheaper.reason.find("predicted cheaper") != std::string::npos);
  CHECK(cheaper.reason.find("20 ms stored against 10 ms computed") != std::string::npos);
  CHECK(decide(1e6, 1e12, 1e9, 20, 10, 2.5).store);  // not a clear enough win
  CHECK(decide(1e6, 1e12, 1e9, 0, 10).store);        // one side unknown: the memory rule alone
  // Costs never store what does not fit.
  CHECK_FALSE(decide(2e9, 1e12, 1e9, 1, 100).store);
}

TEST_CASE("start rule: the first shape stores Phi_C exactly when the storage rule says so") {
  const IterationShape small = first_iteration_shape(2000, 8, 1, 3000, 500, 4, 3000, {1024 * kMiB});
  CHECK(small.candidates_stored);
  CHECK(small.rows == 2000);
  CHECK(small.candidates_unused == 3000);
  CHECK(small.nodes == 0);
  // 200k rows x 3000 candidates x 4 B = 2.4 GB: over the default 1 GiB cap, on every backend.
  const IterationShape large = first_iteration_shape(200000, 20, 1, 3000, 0, 4, 3000, {1024 * kMiB});
  CHECK_FALSE(large.candidates_stored);
}

TEST_CASE("start rule: a run too small for any GPU never asks for one") {
  const IterationShape tiny = first_iteration_shape(150, 4, 3, 150, 30, 4, 150, {1024 * kMiB});
  CHECK(whole_run_too_small_for_a_gpu(tiny, 20));
  const IterationShape big = first_iteration_shape(1000000, 20, 1, 4096, 0, 4, 4096, {1e12});
  CHECK_FALSE(whole_run_too_small_for_a_gpu(big, 300));
  // Matrix-free passes do arithmetic that no bandwidth bound covers: never "too small" by bytes.
  const IterationShape unstored = first_iteration_shape(150, 4, 3, 150, 30, 4, 150, {0});
  CHECK_FALSE(whole_run_too_small_for_a_gpu(unstored, 20));
}

TEST_CASE("start rule: a training of several growths is judged whole") {
  // Model selection on 1,600 rows: 3000 stored float64 candidates, 300 nodes per growth.
  const IterationShape fold = first_iteration_shape(1600, 10, 1, 3000, 400, 8, 3000, {1024 * kMiB});
  CHECK(whole_run_too_small_for_a_gpu(fold, 300));
  CHECK_FALSE(whole_run_too_small_for_a_gpu(fold, 300, 11));
}

TEST_CASE("start rule: the GPU's start-up is shared among the growths ahead, and paid once") {
  MigrationModel m;
  m.fixed_ms = 300;
  m.startup_ms = 280;
  const MigrationModel alone = shared_migration(m, 1, false);
  CHECK(alone.fixed_ms == doctest::Approx(300));
  const MigrationModel of_ten = shared_migration(m, 10, false);
  CHECK(of_ten.fixed_ms == doctest::Approx(20 + 28));
  CHECK(of_ten.transfer_gbs == m.transfer_gbs);
  const MigrationModel started = shared_migration(m, 10, true);
  CHECK(started.fixed_ms == doctest::Approx(20));
  // A fixed cost with no start-up part (given in the config) is kept whole.
  MigrationModel configured;
  configured.fixed_ms = 120;
  CHECK(shared_migration(configured, 10, true).fixed_ms == doctest::Approx(120));
}

TEST_CASE("start rule: start on the GPU only when it is predicted at least twice as fast") {
  BackendConfig config;
  const IterationShape first = first_iteration_shape(1000000, 20, 1, 4096, 0, 4, 4096, {1e12});
  const MigrationModel migration;  // 300 ms + 10 GB/s
  const CostModel gpu = model_of(0.05, 3000, 20000);
  const double setup_bytes = 1000000.0 * 21 * 4;
  CHECK(start_on_gpu(config, model_of(0.01, 50, 20), gpu, migration, first, 300, setup_bytes));
  // A CPU as fast as the GPU: stay on the CPU.
  CHECK_FALSE(start_on_gpu(config, gpu, gpu, migration, first, 300, setup_bytes));
  // One iteration cannot repay the migration.
  CHECK_FALSE(start_on_gpu(config, model_of(0.01, 50, 20), gpu, migration, first, 0, setup_bytes));
  // A forced switch point means: start on the CPU.
  config.switch_at_nodes = 10;
  CHECK_FALSE(start_on_gpu(config, model_of(0.01, 50, 20), gpu, migration, first, 300, setup_bytes));
}

TEST_CASE("start rule: both backends are predicted with the same storage decision") {
  BackendConfig config;
  const MigrationModel migration;
  const double setup_bytes = 200000.0 * 21 * 4;
  // GPU bandwidth far above the CPU's but no arithmetic to speak of: it wins only while
  // Phi_C is stored; matrix-free, its (slow) arithmetic rate decides on both sides alike.
  const CostModel cpu = model_of(0.01, 50, 1000);
  const CostModel gpu = model_of(0.05, 3000, 1000);
  const IterationShape stored = first_iteration_shape(200000, 20, 1, 3000, 0, 4, 3000, {1e12});
  const IterationShape unstored = first_iteration_shape(200000, 20, 1, 3000, 0, 4, 3000, {1024 * kMiB});
  CHECK(start_on_gpu(config, cpu, gpu, migration, stored, 300, setup_bytes));
  CHECK_FALSE(start_on_gpu(config, cpu, gpu, migration, unstored, 300, setup_bytes));
}

TEST_CASE("start rule: the fastest CPU model bounds every real one") {
  const CostModel fastest = fastest_cpu_cost_model();
  CHECK(fastest.overhead_ms == 0);
  CHECK(fastest.bandwidth_gbs == kFastestCpuGbs);
  const IterationShape first = first_iteration_shape(20000, 20, 1, 1000, 0, 4, 1000, {1e12});
  CHECK(fastest.predict_ms(first) <= model_of(0.01, 50, 20).predict_ms(first));
}

TEST_CASE("host memory: the machine reports what it has free, and a stored Phi_C may take a share") {
  const std::size_t available = available_host_memory_bytes();
  CHECK(available > std::size_t{1} << 20);  // any machine that runs the tests has a MiB free
  CHECK(host_candidate_limit_bytes() == doctest::Approx(kHostMemoryShare * static_cast<double>(available)).epsilon(0.5));
  CHECK(kHostMemoryShare > 0);
  CHECK(kHostMemoryShare < 1);
}

TEST_CASE("start rule: the CPU probe measures the matrix-free pass with the backend's kernel") {
  const double one = rbf::cpu::measure_matrix_free_gflops(1);
  CHECK(std::isfinite(one));
  CHECK(one > 0.05);  // even an emulated CPU scores more than a few hundred thousand Gaussians/s
  CHECK(one < rbf::model::fastest_cpu_cost_model().gflops);
  const rbf::model::CostModel probed = rbf::model::probe_cpu_cost_model(1);
  CHECK(probed.gflops > 0.05);
  CHECK(probed.bandwidth_gbs > 0.0);
}
