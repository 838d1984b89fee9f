// The CUDA backend's entry points (declared in contracts/gpu_entry_points.hpp) for CUDA
// builds: device listing, opening a device, and the backend and refinement engine factories.
#include "contracts/gpu_entry_points.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <utility>

#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/cuda_refine_engine.hpp"

namespace rbf::gpu {

bool built_with_cuda() { return true; }

DeviceReport query_devices() {
  DeviceReport report;
  // A report, not a run: a query that fails leaves its figure at 0 and the next one goes on.
  if (cudaDriverGetVersion(&report.driver_version) != cudaSuccess) report.driver_version = 0;
  if (cudaRuntimeGetVersion(&report.runtime_version) != cudaSuccess) report.runtime_version = 0;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    report.why_none = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    return report;
  }
  if (count == 0) {
    report.why_none = "no CUDA device found";
    return report;
  }
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = 0;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    DeviceInfo info;
    info.index = i;
    info.name = prop.name;
    info.major = prop.major;
    info.minor = prop.minor;
    info.total_memory = prop.totalGlobalMem;
    info.integrated = prop.integrated != 0;
    info.multiprocessors = prop.multiProcessorCount;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      info.free_memory = free_bytes;
    cudaGetLastError();
    report.devices.push_back(info);
  }
  RBF_CUDA_CHECK_LOG(cudaSetDevice(previous));
  cudaGetLastError();
  if (report.devices.empty()) report.why_none = "no CUDA device could be queried";
  return report;
}

namespace {
std::atomic<bool> context_opened{false};
}  // namespace

bool context_opened_in_process() { return context_opened.load(); }

std::shared_ptr<Context> open_context(const model::GpuOptions& options) {
  auto context = std::make_shared<Context>(options.device, options.memory);
  context_opened = true;
  return context;
}

template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(std::shared_ptr<Context> context, const model::GpuOptions& options) {
  return std::make_unique<CudaBackend<T>>(std::move(context), options);
}

template std::unique_ptr<model::Backend<float>> make_backend<float>(std::shared_ptr<Context>, const model::GpuOptions&);
template std::unique_ptr<model::Backend<double>> make_backend<double>(std::shared_ptr<Context>, const model::GpuOptions&);

template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(std::shared_ptr<Context> context) {
  return std::make_unique<CudaRefineEngine<T>>(std::move(context));
}

template std::unique_ptr<model::RefineEngine<float>> make_refine_engine<float>(std::shared_ptr<Context>);
template std::unique_ptr<model::RefineEngine<double>> make_refine_engine<double>(std::shared_ptr<Context>);

}  // namespace rbf::gpu
