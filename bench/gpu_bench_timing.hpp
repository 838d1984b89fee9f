// Timing and data for the GPU benchmarks: medians of CUDA-event timings, random device arrays.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "data/split.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"

namespace rbf::bench {

using Clock = std::chrono::steady_clock;

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median milliseconds of `reps` runs of fn on the context's stream, after `warmup` runs.
inline double time_events(const gpu::Context& ctx, int warmup, int reps, const std::function<void()>& fn) {
  cudaEvent_t start, stop;
  RBF_CUDA_CHECK(cudaEventCreate(&start));
  RBF_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    RBF_CUDA_CHECK(cudaEventRecord(start, ctx.stream()));
    fn();
    RBF_CUDA_CHECK(cudaEventRecord(stop, ctx.stream()));
    RBF_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    RBF_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  RBF_CUDA_CHECK(cudaEventDestroy(start));
  RBF_CUDA_CHECK(cudaEventDestroy(stop));
  return median(ms);
}

template <typename T>
void fill_random(const gpu::Context& ctx, T* device, std::size_t count, std::uint64_t seed,
                 double lo, double hi) {
  std::vector<T> host(count);
  data::SplitMix64 rng(seed);
  for (T& v : host) v = static_cast<T>(lo + (hi - lo) * rng.uniform());
  RBF_CUDA_CHECK(cudaMemcpy(device, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  (void)ctx;
}

}  // namespace rbf::bench
