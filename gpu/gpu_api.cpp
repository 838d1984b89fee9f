// Entry points of the CUDA backend for CUDA builds: device listing and the backend and
// refinement engine factories.
#include "gpu/gpu_api.hpp"

#include <cuda_runtime_api.h>

#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_refine_engine.hpp"

namespace rbf::gpu {

bool built_with_cuda() { return true; }

DeviceReport query_devices() {
  DeviceReport report;
  cudaDriverGetVersion(&report.driver_version);
  cudaRuntimeGetVersion(&report.runtime_version);
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
  cudaGetDevice(&previous);
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
  cudaSetDevice(previous);
  cudaGetLastError();
  if (report.devices.empty()) report.why_none = "no CUDA device could be queried";
  return report;
}

template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(const model::BackendConfig& config) {
  return std::make_unique<CudaBackend<T>>(config);
}

template std::unique_ptr<model::Backend<float>> make_backend<float>(const model::BackendConfig&);
template std::unique_ptr<model::Backend<double>> make_backend<double>(const model::BackendConfig&);

template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::BackendConfig& config) {
  return std::make_unique<CudaRefineEngine<T>>(config);
}

template std::unique_ptr<model::RefineEngine<float>> make_refine_engine<float>(const model::BackendConfig&);
template std::unique_ptr<model::RefineEngine<double>> make_refine_engine<double>(const model::BackendConfig&);

}  // namespace rbf::gpu
