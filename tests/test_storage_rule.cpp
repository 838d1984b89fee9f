// The CPU's choice between a stored Phi_C and the matrix-free pass, by predicted cost:
// model/switching/storage_rule.hpp's request, decided by contracts/candidate_storage.hpp.
#include <doctest/doctest.h>

#include "model/switching/storage_rule.hpp"

using rbf::model::CostModel;
using rbf::model::IterationShape;

namespace {

// 200,000 rows x 2000 candidates x d = 20 in float32 (1.6 GB of Phi_C), bias model.
IterationShape large_shape() {
  IterationShape s;
  s.rows = 200000;
  s.features = 20;
  s.outputs = 1;
  s.candidates_unused = 2000;
  s.scalar_bytes = 4;
  return s;
}

CostModel machine(double gbs, double gflops) {
  CostModel m;
  m.overhead_ms = 0.01;
  m.bandwidth_gbs = gbs;
  m.gflops = gflops;
  return m;
}

constexpr double kPhiBytes = 200000.0 * 2000.0 * 4.0;

// The storage rule's answer for the CPU's request on `cpu`, with memory to spare.
bool stores(double phi_bytes, const CostModel& cpu, std::size_t iterations) {
  const rbf::model::StorageRequest request =
      rbf::model::cpu_storage_request(1e18, phi_bytes, cpu, large_shape(), iterations);
  rbf::model::StorageFacts facts;
  facts.phi_bytes = phi_bytes;
  facts.budget_bytes = request.budget_bytes;
  facts.memory_bytes = 1e18;
  facts.stored_ms = request.stored_ms;
  facts.computed_ms = request.computed_ms;
  facts.margin = request.margin;
  return rbf::model::decide_candidate_storage(facts).store;
}

}  // namespace

TEST_CASE("storage rule: the 2-core machine's measured rates store Phi_C") {
  // docs/BENCHMARKS.md: the stored pass reads about 20 GB/s, the matrix-free pass runs at
  // about 143 GFLOP/s in the cost model's units (80 per Gaussian at d = 20).
  const auto costs = rbf::model::predict_storage_costs(machine(20, 143), large_shape(), 300);
  CHECK(costs.stored_ms < costs.matrix_free_ms);
  CHECK(stores(kPhiBytes, machine(20, 143), 300));
}

TEST_CASE("storage rule: arithmetic far faster than memory computes Phi_C on every pass") {
  // 5 GB/s of memory against 10 TFLOP/s: a pass reads 1.6 GB in 320 ms but computes it in 3 ms.
  CHECK_FALSE(stores(kPhiBytes, machine(5, 10000), 300));
}

TEST_CASE("storage rule: one iteration does not repay evaluating Phi_C") {
  // Evaluating costs a matrix-free pass's arithmetic and the write: with a single iteration,
  // storing can only lose, whatever the rates.
  const auto costs = rbf::model::predict_storage_costs(machine(20, 143), large_shape(), 1);
  CHECK(costs.matrix_free_ms < costs.stored_ms);
}

TEST_CASE("storage rule: small or unmeasured cases store as the memory rule says") {
  CHECK(stores(rbf::model::kStorageDecisionBytes / 2, machine(5, 10000), 300));
  CHECK(stores(kPhiBytes, machine(0, 10000), 300));
  CHECK(stores(kPhiBytes, machine(5, 0), 300));
}
