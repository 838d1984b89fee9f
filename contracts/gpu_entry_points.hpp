// The CUDA backend's entry points: plain C++ declarations (no CUDA headers), defined in gpu/
// (gpu/gpu_entry_points.cpp, or gpu/gpu_unavailable.cpp in builds without CUDA, where every
// entry point says so), so that the trainer and the app use a GPU without including gpu/.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "contracts/backend_options.hpp"
#include "contracts/device_error.hpp"
#include "contracts/gpu_calibration.hpp"
#include "contracts/refine_engine.hpp"
#include "contracts/row_shards.hpp"

namespace rbf::gpu {

// One open device: its stream and cuBLAS handle, shared by everything a run does on it (the
// growth backend, the refinement engine, calibration). Defined in gpu/cuda_context.hpp; held
// here only through std::shared_ptr.
class Context;

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

// True once open_context has opened a device in this process: later contexts no longer pay
// the device's start-up (its primary context lives until the process ends).
bool context_opened_in_process();

// Opens options.device. Throws rbf::InputError when the device does not exist or CUDA is not
// built in, rbf::model::DeviceError when the device cannot be opened.
std::shared_ptr<Context> open_context(const model::GpuOptions& options);

// The CUDA growth backend on `context`; options.memory_budget_mb caps what it takes.
template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(std::shared_ptr<Context> context, const model::GpuOptions& options);

// The row-shard group of a model sharded over distinct CUDA devices, one shard per entry of
// `devices` in that order, summing through NCCL (deterministic: every shard gets the same
// bits). Throws rbf::InputError when a device does not exist, repeats, or this build has no
// NCCL; rbf::model::DeviceError when NCCL fails to start.
std::vector<std::shared_ptr<model::RowShards>> make_device_row_shards(const std::vector<int>& devices);

// The CUDA refinement engine (loss, gradient, normal equations as cuBLAS GEMMs) on `context`.
template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(std::shared_ptr<Context> context);

// The name of `device` without opening it, for finding a cached calibration. Throws
// rbf::InputError when there is no such device or CUDA is not built in.
std::string device_name(int device);

// Measures the device of `context` in well under a second; `startup_ms` is what opening it
// took (the caller timed open_context). Throws rbf::model::DeviceError when a CUDA call fails.
model::GpuCalibration calibrate(const Context& context, double startup_ms);

}  // namespace rbf::gpu
