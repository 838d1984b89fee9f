// What a backend is told when it is created: which kind it is, its CPU threads or its GPU
// device and memory, and nothing else of the run's configuration.
#pragma once

#include <atomic>
#include <string>

namespace rbf::model {

enum class BackendKind { cpu, gpu, auto_select };
enum class GpuMemory { auto_select, device, mapped };
// How the GPU holds the orthonormal basis Q: in the training precision, in half precision
// (half the bytes, float32 training on one GPU only), or half only where full would not fit.
enum class GpuBasis { auto_select, full, half };

// "cpu", "gpu" or "auto", as the configuration and the logs spell them.
inline std::string backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu:
      return "cpu";
    case BackendKind::gpu:
      return "gpu";
    case BackendKind::auto_select:
      break;
  }
  return "auto";
}

// Whether a stop was asked for (SIGINT, SIGTERM): the flag a run's set-up polls between
// blocks of work. It only goes from false to true during a run; nullptr never stops.
inline bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

struct CpuOptions {
  int threads = 0;  // OpenMP threads of this backend's parallel regions; 0 = all cores
};

struct GpuOptions {
  int device = 0;                   // CUDA device index
  double memory_budget_mb = 0.0;    // cap on the device memory the backend takes; 0 = 80% of free
  GpuMemory memory = GpuMemory::auto_select;  // where read-once inputs live (mapped on a Jetson)
  GpuBasis basis = GpuBasis::auto_select;     // Q's storage (gpu/compact_basis_kernels.hpp)
};

}  // namespace rbf::model
