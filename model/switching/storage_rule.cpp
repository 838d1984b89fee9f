// The CPU's storage decision by predicted cost (model/switching/storage_rule.hpp).
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

bool cpu_stores_candidates(double phi_bytes, const CostModel& cpu, const IterationShape& first,
                           std::size_t iterations) {
  if (phi_bytes < kStorageDecisionBytes) return true;
  if (!(cpu.gflops > 0) || !(cpu.bandwidth_gbs > 0)) return true;  // unmeasured: as before
  const StorageCosts costs = predict_storage_costs(cpu, first, iterations);
  // The rates come from probes of a few milliseconds, which a busy machine makes noisy: leave
  // the stored default only for a clear win.
  return costs.stored_ms <= kMatrixFreeMargin * costs.matrix_free_ms;
}

}  // namespace rbf::model
