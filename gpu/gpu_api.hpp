// Host-side entry points of the CUDA backend. Plain C++ (no CUDA headers), so the rest of
// rbfnet includes it whether or not CUDA was built in; without CUDA every entry point
// reports "built without CUDA" (gpu/gpu_unavailable.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_error.hpp"
#include "model/backend.hpp"
#include "model/config.hpp"
#include "model/refine_engine.hpp"

namespace rbf::gpu {

// True when this build contains the CUDA backend.
bool built_with_cuda();

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;           // compute capability
  std::size_t total_memory = 0;       // bytes
  std::size_t free_memory = 0;        // bytes
  bool integrated = false;            // shares memory with the CPU (Jetson)
  int multiprocessors = 0;
};

struct DeviceReport {
  std::vector<DeviceInfo> devices;
  std::string why_none;       // set when devices is empty: built without CUDA, no driver, no device
  int driver_version = 0;     // e.g. 13000; 0 when unknown
  int runtime_version = 0;
};

// Lists CUDA devices, or says why there are none. Never throws.
DeviceReport query_devices();

// Creates the CUDA backend on config.gpu_device. Throws rbf::gpu::Error (an
// rbf::RuntimeError) when no usable device exists or CUDA is not built in.
template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(const model::BackendConfig& config);

// Creates the CUDA refinement engine (loss, gradient, normal equations as cuBLAS GEMMs) on
// config.gpu_device. Throws rbf::gpu::Error as make_backend does.
template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::BackendConfig& config);

}  // namespace rbf::gpu
