// CUDA-event timing of work queued on a stream: the calibration probe and the backend's
// stored-or-matrix-free decision time their kernels the same way.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <limits>

#include "gpu/cuda_check.hpp"

namespace rbf::gpu {

// One CUDA event, destroyed however the timing ends.
class Event {
 public:
  Event() { RBF_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { RBF_CUDA_CHECK_LOG(cudaEventDestroy(event_)); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Device time in ms of `enqueue` (work queued on `stream`): the fastest of up to
// `repetitions` runs after one warm-up (which loads the kernels), stopping early once
// `budget_ms` of wall time has passed (by default, never).
template <typename Enqueue>
double best_device_ms(cudaStream_t stream, int repetitions, Enqueue enqueue,
                      double budget_ms = std::numeric_limits<double>::infinity()) {
  using Clock = std::chrono::steady_clock;
  Event start, stop;
  enqueue();
  RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
  double best = 0;
  const auto loop_start = Clock::now();
  for (int i = 0; i < repetitions; ++i) {
    RBF_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    enqueue();
    RBF_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    RBF_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    RBF_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (i == 0 || ms < best) best = ms;
    if (std::chrono::duration<double, std::milli>(Clock::now() - loop_start).count() > budget_ms) break;
  }
  return best;
}

}  // namespace rbf::gpu
