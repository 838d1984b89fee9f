// The automatic CPU -> GPU switch: what an iteration moves, the cost models, the decision rule.
#include "model/switch_policy.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <vector>

#include "model/refine_engine.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace rbf::model {

namespace {

// Reads of Q in one CGS2 add: h = Q^T phi and u -= Q h, done twice.
constexpr double kCgs2PassesOverQ = 4.0;
// Evaluating one Gaussian entry from a center: d subtractions, d multiply-adds for the squared
// distance, the scaling, and exp (about 20 operations), then the multiply-add of Phi_C^T q.
constexpr double kExpFlops = 20.0;

double ms_for(double amount, double per_second) {
  if (amount <= 0) return 0.0;
  // A missing rate means this part cannot be predicted, so the prediction never wins.
  if (!(per_second > 0)) return std::numeric_limits<double>::infinity();
  return amount / per_second * 1e3;
}

std::string format(const char* pattern, double a, double b, double c, double d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, pattern, a, b, c, d);
  return buf;
}

volatile float sink_ = 0;

int omp_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

double iteration_bytes(const IterationShape& shape) {
  const double rows = static_cast<double>(shape.rows);
  const double s = static_cast<double>(shape.scalar_bytes);
  const double k = static_cast<double>(shape.outputs);
  const double d = static_cast<double>(shape.features);
  const double unused = static_cast<double>(shape.candidates_unused);
  const double basis = static_cast<double>(shape.nodes + 1);
  const double nv = static_cast<double>(shape.validation_rows);

  // The scoring pass z = Phi_C^T q reads every unused column once when Phi_C is stored;
  // matrix-free it re-reads the training rows instead (the arithmetic is in iteration_flops).
  double bytes = shape.candidates_stored ? unused * rows * s : rows * d * s;
  // Statistics read and written per candidate: n_c, s_c and the k values of g_c.
  bytes += 2.0 * unused * (k + 2.0) * s;
  bytes += kCgs2PassesOverQ * rows * basis * s;
  // Residual: a = q^T E reads E, E -= q a^T reads and writes it.
  bytes += 3.0 * k * rows * s;
  // Validation: the new column reads X_val, predictions read Phi_val.
  bytes += nv * d * s + nv * basis * s;
  return bytes;
}

double iteration_flops(const IterationShape& shape) {
  if (shape.candidates_stored) return 0.0;
  const double per_entry = 3.0 * static_cast<double>(shape.features) + kExpFlops;
  return static_cast<double>(shape.candidates_unused) * static_cast<double>(shape.rows) * per_entry;
}

// Passes over the N x nodes activations in one Adam epoch: write X C^T, turn it into Phi,
// read Phi for Phi W, Phi^T E and the adjoint, write A and H, read A and H for the GEMMs.
constexpr double kRefinePasses = 10.0;
// An LM epoch also evaluates the loss of (on average) two trial steps.
constexpr double kLmTrialLosses = 2.0;

double refine_epoch_bytes(const IterationShape& shape) {
  const double rows = static_cast<double>(shape.rows), s = static_cast<double>(shape.scalar_bytes);
  const double nodes = static_cast<double>(shape.nodes);
  const double adam = kRefinePasses * rows * nodes * s + rows * static_cast<double>(shape.features + shape.outputs) * s;
  if (!shape.refine_lm) return adam;
  // J is (N k) x P, written and read once.
  const double params = nodes * static_cast<double>(shape.features + 1 + shape.outputs) + static_cast<double>(shape.outputs);
  return (1.0 + kLmTrialLosses) * adam + 2.0 * rows * static_cast<double>(shape.outputs) * params * s;
}

double refine_epoch_flops(const IterationShape& shape) {
  const double adam = refine_epoch_flops(shape.rows, shape.nodes, shape.features, shape.outputs);
  if (!shape.refine_lm) return adam;
  const double params = static_cast<double>(shape.nodes * (shape.features + 1 + shape.outputs) + shape.outputs);
  return (1.0 + kLmTrialLosses) * adam + static_cast<double>(shape.rows) * static_cast<double>(shape.outputs) * params * params;
}

double CostModel::predict_growth_ms(const IterationShape& shape) const {
  return overhead_ms + ms_for(iteration_bytes(shape), bandwidth_gbs * 1e9) +
         ms_for(iteration_flops(shape), gflops * 1e9);
}

double CostModel::predict_refine_ms(const IterationShape& shape) const {
  const double epoch = overhead_ms + ms_for(refine_epoch_bytes(shape), bandwidth_gbs * 1e9) +
                       ms_for(refine_epoch_flops(shape), gflops * 1e9);
  return static_cast<double>(shape.refine_epochs) * epoch +
         static_cast<double>(shape.nodes) * predict_growth_ms(shape);
}

double CostModel::predict_ms(const IterationShape& shape) const {
  const double growth = predict_growth_ms(shape);
  if (shape.refine_every == 0 || shape.refine_epochs == 0) return growth;
  return growth + predict_refine_ms(shape) / static_cast<double>(shape.refine_every);
}

double MigrationModel::predict_ms(double bytes) const { return fixed_ms + ms_for(bytes, transfer_gbs * 1e9); }

SwitchPolicy::SwitchPolicy(const BackendConfig& config, const CostModel& gpu, const MigrationModel& migration)
    : config_(config), gpu_(gpu), migration_(migration) {}

bool SwitchPolicy::should_switch(const IterationShape& shape, double measured_cpu_ms, std::size_t remaining_iterations,
                                 double migration_bytes) {
  if (switched_) {
    // The trainer migrates once; a second "yes" would ask it to move a state that has moved.
    reason_ = "already switched";
    return false;
  }
  if (config_.switch_at_nodes > 0) {
    if (shape.nodes >= config_.switch_at_nodes) {
      switched_ = true;
      reason_ = "forced by backend.switch_at_nodes = " + std::to_string(config_.switch_at_nodes) + " at " +
                std::to_string(shape.nodes) + " nodes";
      return true;
    }
    reason_ = "waiting for backend.switch_at_nodes = " + std::to_string(config_.switch_at_nodes) + " (now " +
              std::to_string(shape.nodes) + " nodes)";
    return false;
  }

  last_gpu_ms_ = gpu_.predict_ms(shape);
  last_migration_ms_ = migration_.predict_ms(migration_bytes);
  if (remaining_iterations == 0) {
    // Nothing is left to run on the GPU, so moving there can only cost time.
    wins_in_a_row_ = 0;
    reason_ = "no iterations left to amortize the migration";
    return false;
  }
  const double amortized = last_migration_ms_ / static_cast<double>(std::max<std::size_t>(1, remaining_iterations));
  const double gpu_total = last_gpu_ms_ + amortized;
  const std::size_t confirm = std::max<std::size_t>(1, config_.confirm);
  const std::string figures =
      format("GPU %.4g ms predicted + migration %.4g ms / %.0f iterations = %.4g ms", last_gpu_ms_, last_migration_ms_,
             static_cast<double>(remaining_iterations), gpu_total);
  if (gpu_total < measured_cpu_ms) {
    ++wins_in_a_row_;
    const std::string vs = format(" < CPU %.4g ms measured", measured_cpu_ms, 0, 0, 0);
    if (wins_in_a_row_ >= confirm) {
      switched_ = true;
      reason_ = figures + vs + " (" + std::to_string(wins_in_a_row_) + " in a row)";
      return true;
    }
    reason_ = figures + vs + " (" + std::to_string(wins_in_a_row_) + " of " + std::to_string(confirm) + " in a row)";
    return false;
  }
  wins_in_a_row_ = 0;
  reason_ = figures + format(" >= CPU %.4g ms measured", measured_cpu_ms, 0, 0, 0);
  return false;
}

CostModel probe_cpu_cost_model(int threads) {
  // 32 MiB of floats, summed twice in parallel: long enough to leave the caches, short enough
  // (a few ms) to run before every auto training with a GPU present.
  const std::size_t n = std::size_t(1) << 23;
  std::vector<float> buffer(n, 1.0f);
  double best = 0;
  for (int rep = 0; rep < 2; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    float sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(threads > 0 ? threads : omp_threads())
    for (long i = 0; i < static_cast<long>(n); ++i) sum += buffer[static_cast<std::size_t>(i)];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sink_ = sum;  // keeps the loop from being optimized away
    best = std::max(best, static_cast<double>(n * sizeof(float)) / s / 1e9);
  }
  CostModel cpu;
  cpu.overhead_ms = 0.01;
  cpu.bandwidth_gbs = best;
  // Matrix-free candidate evaluation: a few GFLOP/s per core with exp in the loop.
  cpu.gflops = 2.0 * static_cast<double>(threads > 0 ? threads : omp_threads());
  return cpu;
}

bool start_on_gpu(const BackendConfig& config, const CostModel& cpu, const CostModel& gpu,
                  const MigrationModel& migration, const IterationShape& first, std::size_t iterations,
                  double setup_bytes) {
  if (config.switch_at_nodes > 0 || iterations == 0) return false;
  IterationShape on_gpu = first;
  on_gpu.candidates_stored = true;  // the GPU backend stores Phi_C whenever device memory allows
  const double gpu_ms = gpu.predict_ms(on_gpu) + migration.predict_ms(setup_bytes) / static_cast<double>(iterations);
  return 2.0 * gpu_ms < cpu.predict_ms(first);
}

}  // namespace rbf::model
