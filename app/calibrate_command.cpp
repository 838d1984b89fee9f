// `rbfnet calibrate`: measures the CPU's figures, probes the GPU for the automatic switch's cost
// model, caches the GPU's figures for this host and device, and prints them with the cost
// model they give.
#include <cstdio>

#include "app/commands.hpp"
#include "model/backend_factory.hpp"
#include "model/switching/calibration_cache.hpp"
#include "model/switching/start_rule.hpp"

namespace rbf::app {

int run_calibrate(const CalibrateOptions& options) {
  // The CPU's figures first: they need no GPU.
  const model::CostModel cpu = model::probe_cpu_cost_model(0);
  std::printf("CPU (all cores), measured in a few ms before each auto run that could start on the GPU:\n");
  std::printf("  read bandwidth            %10.1f GB/s (the stored pass)\n", cpu.bandwidth_gbs);
  std::printf("  matrix-free pass          %10.1f GFLOP/s (measured at d = 20, 3d + 20 flops per Gaussian)\n",
              cpu.gflops);
  std::fflush(stdout);  // before a missing GPU's error on stderr
  // Throws InputError (exit 2) without a usable GPU, naming why.
  model::BackendConfig backend;
  backend.gpu_device = options.device;
  model::BackendFactory factory(backend, 0);
  const model::GpuCalibration cal = factory.calibrate_gpu();
  const std::string path = model::save_calibration(cal);
  const model::SwitchCosts costs = model::switch_costs(model::BackendConfig(), cal);

  std::printf("GPU %d: %s (%s), probed in %.0f ms on %s\n", cal.device, cal.device_name.c_str(),
              cal.integrated ? "integrated" : "discrete", cal.probe_ms, model::host_name().c_str());
  std::printf("  start-up (context)        %10.2f ms\n", cal.startup_ms);
  std::printf("  allocation (128 MiB)      %10.3f ms\n", cal.alloc_ms);
  std::printf("  wait for a small copy     %10.4f ms\n", cal.sync_ms);
  std::printf("  queue one operation       %10.4f ms\n", cal.launch_ms);
  std::printf("  device memory bandwidth   %10.1f GB/s\n", cal.bandwidth_gbs);
  std::printf("  host -> device, pinned    %10.2f GB/s\n", cal.transfer_gbs);
  std::printf("  host -> device, pageable  %10.2f GB/s\n", cal.pageable_transfer_gbs);
  std::printf("  matrix-free pass          %10.0f GFLOP/s (measured at d = 20, 3d + 20 flops per Gaussian)\n", cal.gflops);
  std::printf("cost model for backend: auto (config keys backend.gpu_overhead_ms ... override each figure)\n");
  std::printf("  GPU iteration: %.4f ms + bytes / %.1f GB/s (+ flops / %.0f GFLOP/s when Phi_C is not stored)\n",
              costs.gpu.overhead_ms, costs.gpu.bandwidth_gbs, costs.gpu.gflops);
  std::printf("  migration:     %.1f ms + bytes / %.2f GB/s\n", costs.migration.fixed_ms, costs.migration.transfer_gbs);
  std::printf("cached in %s\n", path.c_str());
  return 0;
}

}  // namespace rbf::app
