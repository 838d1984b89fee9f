// One open device per run: device choice, stream, cuBLAS handle and memory queries, shared by
// the growth backend, the refinement engine and calibration.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "contracts/backend_options.hpp"

namespace rbf::gpu {

// One device, one stream, one cuBLAS handle bound to that stream (device pointer mode, so
// scalars stay on the device and calls never wait for the host). Not copyable.
class Context {
 public:
  Context(int device, model::GpuMemory memory);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int device() const { return device_; }
  const cudaDeviceProp& properties() const { return properties_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t blas() const { return blas_; }
  // True when read-once inputs live in mapped host memory instead of device copies: on an
  // integrated GPU (Jetson) with gpu_memory auto, or whenever gpu_memory is mapped.
  bool mapped_inputs() const { return mapped_inputs_; }

  // Makes this context's device current for the calling thread.
  void activate() const;
  void synchronize() const;
  std::size_t free_memory() const;
  std::size_t total_memory() const;
  // Throws rbf::gpu::Error naming `what` when `bytes` more device memory would not fit.
  void require_free(std::size_t bytes, const std::string& what) const;
  // Throws the same clear out-of-memory error (after a failed allocation).
  [[noreturn]] void throw_out_of_memory(std::size_t bytes, const std::string& what) const;

 private:
  int device_ = 0;
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  bool mapped_inputs_ = false;
};

}  // namespace rbf::gpu
