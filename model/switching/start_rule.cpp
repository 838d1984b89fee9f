// auto's start decision and the short CPU probe it may need.
#include "model/switching/start_rule.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "contracts/candidate_storage.hpp"
#include "contracts/cpu_entry_points.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace rbf::model {

namespace {

volatile float sink_ = 0;

int omp_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

IterationShape first_iteration_shape(std::size_t rows, std::size_t features, std::size_t outputs,
                                     std::size_t candidates_unused, std::size_t validation_rows,
                                     std::size_t scalar_bytes, std::size_t candidates,
                                     const StorageRequest& storage, double memory_bytes) {
  IterationShape first;
  first.rows = rows;
  first.features = features;
  first.outputs = outputs;
  first.candidates_unused = candidates_unused;
  first.validation_rows = validation_rows;
  first.scalar_bytes = scalar_bytes;
  first.candidates_stored =
      decide_candidate_storage(storage_facts(storage, rows, candidates, scalar_bytes, memory_bytes))
          .store;
  return first;
}

bool whole_run_too_small_for_a_gpu(const IterationShape& first, std::size_t max_nodes, std::size_t growths) {
  IterationShape last = first;
  last.nodes = max_nodes;  // the largest Q of the run bounds every iteration
  const double bytes =
      iteration_bytes(last) * static_cast<double>(max_nodes) * static_cast<double>(std::max<std::size_t>(1, growths));
  return iteration_flops(last) == 0 && bytes / (kFastestCpuGbs * 1e9) * 1e3 < kGpuStartupFloorMs;
}

CostModel fastest_cpu_cost_model() {
  CostModel fastest;
  fastest.overhead_ms = 0;
  fastest.bandwidth_gbs = kFastestCpuGbs;
  fastest.gflops = 1e30;
  return fastest;
}

CostModel probe_cpu_cost_model(int threads) {
  // 32 MiB of floats, summed twice in parallel: long enough to leave the caches, short enough
  // (a few ms) to run before every auto training with a GPU present. Each block is summed
  // into kLanes independent accumulators: one running sum would time the latency of a float
  // add (about 5 GB/s per core), not the memory, since without reassociation it cannot be
  // vectorized.
  constexpr std::size_t kLanes = 16, kBlock = 1024;
  const std::size_t n = std::size_t(1) << 23;
  std::vector<float> buffer(n, 1.0f);
  double best = 0;
  for (int rep = 0; rep < 2; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    float sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(threads > 0 ? threads : omp_threads())
    for (long b = 0; b < static_cast<long>(n / kBlock); ++b) {
      const float* p = buffer.data() + static_cast<std::size_t>(b) * kBlock;
      float lanes[kLanes] = {};
      for (std::size_t i = 0; i < kBlock; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j) lanes[j] += p[i + j];
      for (std::size_t j = 0; j < kLanes; ++j) sum += lanes[j];
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sink_ = sum;  // keeps the loop from being optimized away
    best = std::max(best, static_cast<double>(n * sizeof(float)) / s / 1e9);
  }
  CostModel cpu;
  cpu.overhead_ms = 0.01;
  cpu.bandwidth_gbs = best;
  // The matrix-free pass, measured (a few ms) with the backend's own kernel.
  cpu.gflops = cpu::measure_matrix_free_gflops(threads);
  return cpu;
}

const CostModel& cached_cpu_cost_model(int threads) {
  static std::mutex mutex;
  static std::map<int, CostModel> measured;
  const std::lock_guard<std::mutex> lock(mutex);
  auto at = measured.find(threads);
  if (at == measured.end()) at = measured.emplace(threads, probe_cpu_cost_model(threads)).first;
  return at->second;
}

bool start_on_gpu(const BackendConfig& config, const CostModel& cpu, const CostModel& gpu,
                  const MigrationModel& migration, const IterationShape& first, std::size_t iterations,
                  double setup_bytes) {
  if (config.switch_at_nodes > 0 || iterations == 0) return false;
  // Both backends store Phi_C by the same rule and cap: first.candidates_stored holds for both.
  const double gpu_ms = gpu.predict_ms(first) + migration.predict_ms(setup_bytes) / static_cast<double>(iterations);
  return 2.0 * gpu_ms < cpu.predict_ms(first);
}

}  // namespace rbf::model
