// The run's backend factory: the one place that names both backends (through their entry
// points in contracts/), and the owner of the run's one GPU context.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "contracts/backend.hpp"
#include "contracts/backend_options.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "contracts/refine_engine.hpp"
#include "model/switching/calibration_cache.hpp"

namespace rbf::model {

// Creates backends and refinement engines for one run. The GPU context is opened on first
// use and shared by every GPU backend, refinement engine and calibration of the run (one
// stream, one cuBLAS handle), and dropped after a device fault.
class BackendFactory {
 public:
  BackendFactory(const BackendConfig& backend, int threads);

  // cpu: the Eigen backend. gpu: the CUDA backend, or an error saying why it is unavailable;
  // with two or more backend.gpu_devices, a row-sharded backend of one CUDA backend per entry
  // (model/sharded_backend.hpp). auto means cpu (auto starts on the CPU, where small models
  // are fastest).
  template <typename T>
  std::unique_ptr<Backend<T>> make_backend(BackendKind kind);
  // The refinement engine of the backend `kind` (auto means cpu).
  template <typename T>
  std::unique_ptr<RefineEngine<T>> make_refine_engine(BackendKind kind);

  // Whether a CUDA device exists for the configured gpu_device; `why` says why not.
  bool gpu_available(std::string& why) const;
  // The switch's access to the GPU: its name, and a probe on the run's context.
  GpuProbe gpu_probe();
  // Opens the context (timing it, as the calibration's start-up) and probes the device.
  GpuCalibration calibrate_gpu();
  // After a device fault nothing on the device is trusted: the next GPU use opens anew.
  void forget_gpu() { context_.reset(); }
  // The run's size, for auto's choice of how many GPUs to use (model/switching/gpu_count_rule.hpp)
  // when backend.gpu_devices does not say.
  // `growth_bytes` and `shard_bytes`: a growth's basis, cut by rows over the shards, and
  // what each shard holds whole (model/switching/gpu_count_rule.hpp's gpus_for_memory).
  void set_problem_size(std::size_t rows, std::size_t candidates, double growth_bytes = 0, double shard_bytes = 0) {
    rows_ = rows;
    candidates_ = candidates;
    growth_bytes_ = growth_bytes;
    shard_bytes_ = shard_bytes;
  }

 private:
  std::shared_ptr<gpu::Context> context();
  template <typename T>
  std::unique_ptr<Backend<T>> make_sharded_gpu_backend();

  CpuOptions cpu_;
  GpuOptions gpu_;                 // the one device of an unsharded run, and the refinement's
  std::vector<int> shard_devices_;  // backend.gpu_devices: one row shard each when 2 or more
  // auto with neither gpu_devices nor a gpu_device other than 0: the GPUs to use are chosen
  // by the run's size when it first goes to the GPU.
  bool auto_devices_ = false;
  std::size_t rows_ = 0, candidates_ = 0;
  double growth_bytes_ = 0, shard_bytes_ = 0;
  std::shared_ptr<gpu::Context> context_;
  double startup_ms_ = 0;  // how long opening context_ took
};

}  // namespace rbf::model
