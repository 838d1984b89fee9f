// RAII memory for the CUDA backend: device memory, mapped (zero-copy) host memory, or pinned
// host staging memory, always zero-filled on allocation so padding rows read as zeros.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"

namespace rbf::gpu {

enum class Placement {
  device,       // cudaMalloc
  mapped_host,  // cudaHostAlloc(mapped): the device reads host memory directly (Jetson)
  pinned_host,  // cudaMallocHost: host-side staging for asynchronous copies
};

template <typename T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Context& context, std::size_t count, Placement placement, const std::string& what)
      : count_(count), placement_(placement) {
    if (count == 0) return;
    const std::size_t bytes = count * sizeof(T);
    if (placement == Placement::device) {
      context.require_free(bytes, what);
      void* p = nullptr;
      const cudaError_t status = cudaMalloc(&p, bytes);
      if (status == cudaErrorMemoryAllocation) context.throw_out_of_memory(bytes, what);
      RBF_CUDA_CHECK(status);
      device_ = static_cast<T*>(p);
      // Zero-filled before anyone can use it, also from other streams.
      cudaError_t fill = cudaMemsetAsync(p, 0, bytes, context.stream());
      if (fill == cudaSuccess) fill = cudaStreamSynchronize(context.stream());
      if (fill != cudaSuccess) {
        release();
        RBF_CUDA_CHECK(fill);
      }
    } else {
      void* p = nullptr;
      const unsigned flags =
          placement == Placement::mapped_host ? cudaHostAllocMapped : cudaHostAllocDefault;
      const cudaError_t status = cudaHostAlloc(&p, bytes, flags);
      if (status == cudaErrorMemoryAllocation)
        throw Error("out of pinned host memory: " + what + " needs " + std::to_string(bytes) +
                    " bytes");
      RBF_CUDA_CHECK(status);
      host_ = static_cast<T*>(p);
      std::memset(p, 0, bytes);
      if (placement == Placement::mapped_host) {
        void* d = nullptr;
        const cudaError_t map = cudaHostGetDevicePointer(&d, p, 0);
        if (map != cudaSuccess) {
          release();
          RBF_CUDA_CHECK(map);
        }
        device_ = static_cast<T*>(d);
      }
    }
  }
  ~Buffer() { release(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }

  // Pointer for kernels and cuBLAS (null for pinned staging memory).
  T* get() const { return device_; }
  // Host pointer (mapped and pinned memory only).
  T* host() const { return host_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  bool empty() const { return count_ == 0; }
  Placement placement() const { return placement_; }

  void release() noexcept {
    if (placement_ == Placement::device) {
      if (device_ != nullptr) RBF_CUDA_CHECK_LOG(cudaFree(device_));
    } else if (host_ != nullptr) {
      RBF_CUDA_CHECK_LOG(cudaFreeHost(host_));
    }
    device_ = nullptr;
    host_ = nullptr;
    count_ = 0;
  }

 private:
  void swap(Buffer& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(host_, other.host_);
    std::swap(count_, other.count_);
    std::swap(placement_, other.placement_);
  }

  T* device_ = nullptr;
  T* host_ = nullptr;
  std::size_t count_ = 0;
  Placement placement_ = Placement::device;
};

}  // namespace rbf::gpu
