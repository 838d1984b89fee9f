// Host <-> device copies for the kernel-level GPU tests: values held as double on the host,
// stored as T on the device.
#pragma once

#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"

namespace rbf {
namespace test {

template <typename T>
gpu::Buffer<T> upload(const gpu::Context& ctx, const std::vector<double>& host, const char* what) {
  const std::vector<T> values(host.begin(), host.end());
  gpu::Buffer<T> b(ctx, values.size(), gpu::Placement::device, what);
  // On the context's stream, after the buffer's zero fill queued there: that stream is
  // non-blocking, so a plain cudaMemcpy (legacy stream) could land before the fill and be
  // zeroed, which happens when the GPU is busy with other processes. Done when this returns.
  RBF_CUDA_CHECK(cudaMemcpyAsync(b.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice,
                                 ctx.stream()));
  RBF_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  return b;
}

template <typename T>
std::vector<double> download(const gpu::Buffer<T>& b, std::size_t count) {
  std::vector<T> values(count);
  RBF_CUDA_CHECK(cudaMemcpy(values.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost));
  return std::vector<double>(values.begin(), values.end());
}

}  // namespace test
}  // namespace rbf
