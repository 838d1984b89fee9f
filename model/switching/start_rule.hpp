// auto's start decision: whether to skip the CPU phase (a large problem), or never to look
// for a GPU (a run too small to repay its start-up), decided before any backend exists.
#pragma once

#include <cstddef>
#include <limits>

#include "contracts/candidate_storage.hpp"
#include "model/config.hpp"
#include "model/switching/cost_model.hpp"

namespace rbf::model {

// The first iteration of a run, before any backend exists: `candidates_unused` columns to
// score, Phi_C stored as contracts/candidate_storage.hpp decides for `storage` (the config's
// cap, which binds every backend, and the CPU's predicted costs) within `memory_bytes`.
IterationShape first_iteration_shape(std::size_t rows, std::size_t features, std::size_t outputs,
                                     std::size_t candidates_unused, std::size_t validation_rows,
                                     std::size_t scalar_bytes, std::size_t candidates,
                                     const StorageRequest& storage,
                                     double memory_bytes = std::numeric_limits<double>::infinity());

// An upper bound on any CPU's memory bandwidth, for skipping the CPU probe when it cannot matter.
constexpr double kFastestCpuGbs = 400.0;
// A lower bound on starting a GPU (driver, context, first allocations) on any machine seen:
// measured start-ups are 100 to 250 ms.
constexpr double kGpuStartupFloorMs = 50.0;

// True when all `max_nodes` iterations of each of `growths` growths (model selection's, in one
// process), each bounded by `first` grown to max_nodes nodes and read at kFastestCpuGbs, would
// take less than kGpuStartupFloorMs: no GPU could win that back, so auto need not even ask
// the driver for one.
bool whole_run_too_small_for_a_gpu(const IterationShape& first, std::size_t max_nodes, std::size_t growths = 1);

// A CPU that cannot lose: kFastestCpuGbs, no overhead, unbounded arithmetic. Only when even
// it would start on the GPU is the real CPU worth probing.
CostModel fastest_cpu_cost_model();

// probe_cpu_cost_model(threads), measured once per process and thread count.
const CostModel& cached_cpu_cost_model(int threads);

// A model of this machine's CPU for one decision only: whether `auto` should skip the CPU
// phase altogether because even the first iterations are predicted to be far cheaper on the
// GPU (a large data set). Measured in a few milliseconds with `threads`: read bandwidth (the
// stored pass) and the matrix-free pass's rate.
CostModel probe_cpu_cost_model(int threads);

// True when the GPU's predicted cost of the first iteration, with the set-up amortized over
// `iterations`, is less than half the CPU's predicted cost: then `auto` starts on the GPU.
// The factor 2 covers the roughness of the CPU model. Never with switch_at_nodes set.
bool start_on_gpu(const BackendConfig& config, const CostModel& cpu, const CostModel& gpu,
                  const MigrationModel& migration, const IterationShape& first, std::size_t iterations,
                  double setup_bytes);

}  // namespace rbf::model
