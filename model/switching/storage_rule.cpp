// The CPU's predicted storage costs, for the storage rule (model/switching/storage_rule.hpp).
#include "model/switching/storage_rule.hpp"

namespace rbf::model {

StorageCosts predict_storage_costs(const CostModel& cpu, IterationShape first, std::size_t iterations) {
  const double runs = static_cast<double>(iterations);
  first.candidates_stored = false;
  const double free_iteration = cpu.predict_growth_ms(first);
  const double evaluation_flops = iteration_flops(first);
  first.candidates_stored = true;
  const double stored_iteration = cpu.predict_growth_ms(first);
  // Evaluating Phi_C: one pass's arithmetic, and writing what a stored pass then reads.
  const double phi_bytes = static_cast<double>(first.candidates_unused) * static_cast<double>(first.rows) *
                           static_cast<double>(first.scalar_bytes);
  const double setup_ms = evaluation_flops / (cpu.gflops * 1e9) * 1e3 + phi_bytes / (cpu.bandwidth_gbs * 1e9) * 1e3;
  StorageCosts costs;
  costs.stored_ms = setup_ms + runs * stored_iteration;
  costs.matrix_free_ms = runs * free_iteration;
  return costs;
}

StorageRequest cpu_storage_request(double budget_bytes, double phi_bytes, const CostModel& cpu,
                                   const IterationShape& first, std::size_t iterations) {
  StorageRequest request;
  request.budget_bytes = budget_bytes;
  if (phi_bytes < kStorageDecisionBytes) return request;
  if (!(cpu.gflops > 0) || !(cpu.bandwidth_gbs > 0)) return request;  // unmeasured: as before
  const StorageCosts costs = predict_storage_costs(cpu, first, iterations);
  request.stored_ms = costs.stored_ms;
  request.computed_ms = costs.matrix_free_ms;
  // The rates come from probes of a few milliseconds, which a busy machine makes noisy: leave
  // the stored default only for a clear win.
  request.margin = kMatrixFreeMargin;
  return request;
}

}  // namespace rbf::model
