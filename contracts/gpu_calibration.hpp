// What a probe of one GPU measured, for the automatic switch's cost model (model/switching/).
#pragma once

#include <string>

namespace rbf::model {

// Times in ms, rates in GB/s (1e9 bytes per second).
struct GpuCalibration {
  int device = 0;
  std::string device_name;
  bool integrated = false;           // shares memory with the CPU (Jetson)
  double startup_ms = 0;             // opening the device (context, stream, cuBLAS); driver init excluded
  double alloc_ms = 0;               // one cudaMalloc of a large (128 MiB) buffer
  double sync_ms = 0;                // a 4-byte asynchronous operation and waiting for it
  double launch_ms = 0;              // enqueueing one small asynchronous operation, no waiting
  double overhead_ms = 0;            // per training iteration: kIterationSyncs * sync + kIterationLaunches * launch
  double bandwidth_gbs = 0;          // device memory, device-to-device copy (bytes read + written)
  double transfer_gbs = 0;           // host -> device from pinned memory
  double pageable_transfer_gbs = 0;  // host -> device from ordinary (pageable) memory
  double gflops = 0;                 // the matrix-free scoring pass (float32, d = 20), measured, in
                                     // the cost model's unit of 3 d + 20 flops per Gaussian
  double probe_ms = 0;               // how long the whole probe took
};

// How many waits for the device and queued operations one training iteration makes on the
// GPU backend (select, add with CGS2, update, validation); overhead_ms is built from them.
constexpr int kIterationSyncs = 3;  // add, update, and validation when there is one
constexpr int kIterationLaunches = 12;

}  // namespace rbf::model
