// Facts about the machine a benchmark ran on (CPU model, threads, GPU, rbfnet version), so that
// a summary read later says what its timings were measured on.
#pragma once

#include <string>

namespace rbf::app {

struct MachineFacts {
  std::string cpu_model;     // e.g. "AMD EPYC 7763 64-Core Processor", never empty
  int threads_used = 0;      // the CPU backend's threads for this run
  int hardware_threads = 0;  // what the system reports; 0 when unknown
  std::string gpu;           // "NVIDIA H100 80GB HBM3, 79.1 GiB" or "none: why"
  std::string version;       // rbfnet version, with the source commit when the build knew it
};

// `requested_threads` as the CPU backend resolves it (0 = all cores); `gpu_device` is described
// when `gpu_used`, else `gpu` is "none: " + why_no_gpu.
MachineFacts machine_facts(int requested_threads, bool gpu_used, int gpu_device, const std::string& why_no_gpu);

}  // namespace rbf::app
