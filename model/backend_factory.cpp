// The run's backend factory: maps BackendKind to the CPU or GPU entry points and shares one
// GPU context among everything the run does on the device.
#include "model/backend_factory.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "contracts/cpu_entry_points.hpp"
#include "model/switching/gpu_count_rule.hpp"
#include "model/local_row_shards.hpp"
#include "model/sharded_backend.hpp"

namespace rbf::model {

namespace {

GpuOptions gpu_options(const BackendConfig& backend) {
  GpuOptions options;
  options.device = first_gpu_device(backend);  // a sharded run refines on its first device
  options.memory_budget_mb = backend.gpu_memory_budget_mb;
  options.memory = backend.gpu_memory;
  options.basis = backend.gpu_basis;
  return options;
}

}  // namespace

BackendFactory::BackendFactory(const BackendConfig& backend, int threads)
    : gpu_(gpu_options(backend)),
      shard_devices_(backend.gpu_devices),
      auto_devices_(backend.kind == BackendKind::auto_select && backend.gpu_devices.empty() && backend.gpu_device == 0) {
  cpu_.threads = threads;
}

std::shared_ptr<gpu::Context> BackendFactory::context() {
  if (!context_) {
    const auto t0 = std::chrono::steady_clock::now();
    context_ = gpu::open_context(gpu_);
    startup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return context_;
}

template <typename T>
std::unique_ptr<Backend<T>> BackendFactory::make_backend(BackendKind kind) {
  if (kind == BackendKind::gpu && auto_devices_) {
    auto_devices_ = false;  // decided once per run
    const gpu::DeviceReport report = gpu::query_devices();
    // The smallest free memory of the visible devices, with the tenth the basis reservation
    // leaves (CudaBackend::reserve_nodes).
    double device_bytes = 0;
    for (const gpu::DeviceInfo& d : report.devices)
      device_bytes = device_bytes == 0 ? static_cast<double>(d.free_memory)
                                       : std::min(device_bytes, static_cast<double>(d.free_memory));
    const std::size_t memory_gpus =
        gpus_for_memory(growth_bytes_, shard_bytes_, 0.9 * device_bytes, report.devices.size());
    const std::size_t gpus = auto_gpu_count(rows_, candidates_, report.devices.size(), memory_gpus);
    if (gpus >= 2) {
      shard_devices_.clear();
      for (std::size_t d = 0; d < gpus; ++d) shard_devices_.push_back(static_cast<int>(d));
      spdlog::info("auto: the run is spread over {} GPUs (backend.gpu_devices sets them)", gpus);
    }
  }
  if (kind == BackendKind::gpu && shard_devices_.size() >= 2) return make_sharded_gpu_backend<T>();
  if (kind == BackendKind::gpu) return gpu::make_backend<T>(context(), gpu_);
  return cpu::make_backend<T>(cpu_);
}

template <typename T>
std::unique_ptr<Backend<T>> BackendFactory::make_sharded_gpu_backend() {
  // Distinct devices sum through NCCL; a repeated device (several shards on one GPU, for
  // testing) cannot, so such a group sums in host memory.
  std::vector<int> sorted = shard_devices_;
  std::sort(sorted.begin(), sorted.end());
  const bool repeated = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  std::vector<std::shared_ptr<RowShards>> group =
      repeated ? make_local_row_shards(shard_devices_.size()) : gpu::make_device_row_shards(shard_devices_);
  // Each shard opens its own context on its worker thread (ShardedBackend), where it stays.
  std::vector<typename ShardedBackend<T>::Factory> factories;
  for (const int device : shard_devices_) {
    GpuOptions options = gpu_;
    options.device = device;
    factories.push_back([options] { return gpu::make_backend<T>(gpu::open_context(options), options); });
  }
  return std::make_unique<ShardedBackend<T>>(std::move(factories), std::move(group));
}

template <typename T>
std::unique_ptr<RefineEngine<T>> BackendFactory::make_refine_engine(BackendKind kind) {
  if (kind == BackendKind::gpu) return gpu::make_refine_engine<T>(context());
  return cpu::make_refine_engine<T>(cpu_);
}

template std::unique_ptr<Backend<float>> BackendFactory::make_backend<float>(BackendKind);
template std::unique_ptr<Backend<double>> BackendFactory::make_backend<double>(BackendKind);
template std::unique_ptr<RefineEngine<float>> BackendFactory::make_refine_engine<float>(BackendKind);
template std::unique_ptr<RefineEngine<double>> BackendFactory::make_refine_engine<double>(BackendKind);

bool BackendFactory::gpu_available(std::string& why) const {
  if (!gpu::built_with_cuda()) {
    why = "this rbfnet was built without CUDA";
    return false;
  }
  const gpu::DeviceReport report = gpu::query_devices();
  if (report.devices.empty()) {
    why = report.why_none;
    return false;
  }
  for (const int device : shard_devices_) {
    if (static_cast<std::size_t>(device) >= report.devices.size()) {
      why = "backend.gpu_devices names device " + std::to_string(device) + ", which does not exist";
      return false;
    }
  }
  if (gpu_.device < 0 || static_cast<std::size_t>(gpu_.device) >= report.devices.size()) {
    why = "backend.gpu_device " + std::to_string(gpu_.device) + " does not exist";
    return false;
  }
  return true;
}

GpuCalibration BackendFactory::calibrate_gpu() {
  try {
    // Asking for the device's name starts the driver first, so that start-up is the
    // context's alone: auto pays the driver's start anyway when it looks for a GPU.
    if (!context_) gpu::device_name(gpu_.device);
    context();
  } catch (const InputError& e) {
    throw InputError(std::string("there is no GPU to calibrate: ") + e.what());
  }
  return gpu::calibrate(*context_, startup_ms_);
}

GpuProbe BackendFactory::gpu_probe() {
  GpuProbe probe;
  const int device = gpu_.device;
  probe.device_name = [device] { return gpu::device_name(device); };
  probe.calibrate = [this] { return calibrate_gpu(); };
  return probe;
}

}  // namespace rbf::model
