// Entry point of gpu_bench's refinement-epoch benchmark (mode `refine`, gpu_refine_bench.cpp).
#pragma once

#include <cstddef>

#include "gpu/cuda_context.hpp"

namespace rbf::bench {

struct RefineOptions {
  std::size_t n = 200000, nodes = 500, d = 20, k = 1;
  int cpu_threads = 0;  // 0: all cores
  int cpu_reps = 2;     // 0: skip the CPU engine
};

// One refinement epoch (loss + gradient) on the CUDA engine (CUDA events on its stream, median
// of 20 after 3 warm-ups, plus the host wall clock of the synchronous call) and the Eigen
// engine (wall clock), float32, with SGEMM rates measured in the same run.
void refine_epoch(const gpu::Context& ctx, const RefineOptions& o);

}  // namespace rbf::bench
