// Where the bench's timings were measured: CPU model, threads, GPU and rbfnet version.
#include "app/machine_facts.hpp"

#include <cstdio>
#include <thread>

#include "app/cpu_model.hpp"
#include "cpu/cpu_threads.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "rbf_source_commit.hpp"

namespace rbf::app {

namespace {

std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

MachineFacts machine_facts(int requested_threads, bool gpu_used, int gpu_device, const std::string& why_no_gpu) {
  MachineFacts facts;
  facts.cpu_model = cpu_model();
  facts.threads_used = cpu::resolve_threads(requested_threads);
  facts.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  facts.gpu = "none: " + why_no_gpu;
  if (gpu_used) {
    const gpu::DeviceReport report = gpu::query_devices();
    for (const gpu::DeviceInfo& device : report.devices) {
      if (device.index != gpu_device) continue;
      facts.gpu = device.name + ", " + gib(device.total_memory) + (device.integrated ? " shared with the CPU" : "") +
                  " (device " + std::to_string(device.index) + ")";
    }
  }
  facts.version = RBF_VERSION;
  const std::string commit = RBF_SOURCE_COMMIT;
  if (!commit.empty()) facts.version += " (source " + commit + ")";
  return facts;
}

}  // namespace rbf::app
