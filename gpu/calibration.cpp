// The GPU probe for the switch's cost model, on the run's own device context and buffers (no
// kernels of its own): allocation, synchronization and launch costs, device and host->device
// bandwidth, and the rate of the matrix-free scoring pass. Start-up is what opening the
// context took, timed by the caller.
#include "contracts/gpu_entry_points.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "data/errors.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_timing.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"

namespace rbf::gpu {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kCopyBytes = 128 * kMiB;     // device-to-device bandwidth (~40 us on an H100)
constexpr std::size_t kTransferBytes = 16 * kMiB;  // host-to-device bandwidth
// Each timed loop stops after this long or its repetitions, whichever comes first, so the
// whole probe stays well under half a second after start-up even on a Jetson.
constexpr double kLoopBudgetMs = 60.0;
// The matrix-free pass is timed at this shape: d = 20 (the cost model scales by d), enough
// rows and candidates to fill the device, a few milliseconds at most.
constexpr int kPassFeatures = 20;
constexpr int kPassRows = 1 << 17;
constexpr int kPassCandidates = 2048;
// The cost model counts 3 d + 20 flops per Gaussian of a matrix-free pass
// (model/switching/cost_model.cpp); the measured rate is given in that unit.
constexpr double kFlopsPerGaussian = 3.0 * kPassFeatures + 20.0;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

double gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

// Throws rbf::InputError unless `device` exists, like the GPU backend does.
void require_device(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw InputError(std::string("no usable CUDA device (") + cudaGetErrorString(status) + ")");
  }
  if (count == 0) throw InputError("no CUDA device found");
  if (device < 0 || device >= count) {
    throw InputError("backend.gpu_device is " + std::to_string(device) + " but this machine has CUDA devices 0.." +
                     std::to_string(count - 1));
  }
}

// The matrix-free pass (float32) over zero operands: its time does not depend on the values.
double matrix_free_gflops(const Context& context) {
  const MatrixFreePlan plan = plan_matrix_free<float>(kPassRows, kPassCandidates, kPassFeatures, context.device());
  Buffer<float> rows(context, static_cast<std::size_t>(kPassRows) * plan.row_floats, Placement::device,
                     "the calibration rows");
  Buffer<float> candidates(context, static_cast<std::size_t>(matrix_free_padded_count(kPassCandidates)) * plan.candidate_floats,
                           Placement::device, "the calibration candidates");
  Buffer<float> v(context, kPassRows, Placement::device, "the calibration vector");
  Buffer<float> partial(context, static_cast<std::size_t>(kPassCandidates) * plan.splits, Placement::device,
                        "the calibration sums");
  const MatrixFreePass<float> pass{rows.get(),      candidates.get(), kPassRows,     kPassRows,
                                   kPassCandidates, kPassFeatures,    v.get(),       partial.get(),
                                   nullptr,         plan.splits,      plan.rows_per_split};
  const double ms = best_device_ms(context.stream(), 3, [&] {
    RBF_CUDA_CHECK(launch_matrix_free_pass(pass, plan, context.stream()));
  }, kLoopBudgetMs);
  const double gaussians = static_cast<double>(kPassRows) * kPassCandidates;
  return ms > 0 ? gaussians * kFlopsPerGaussian / (ms * 1e-3) / 1e9 : 0.0;
}

}  // namespace

std::string device_name(int device) {
  require_device(device);
  cudaDeviceProp prop{};
  RBF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

model::GpuCalibration calibrate(const Context& context, double startup_ms) {
  const auto probe_start = Clock::now();
  context.activate();
  const cudaDeviceProp& prop = context.properties();
  model::GpuCalibration cal;
  cal.device = context.device();
  cal.device_name = prop.name;
  cal.integrated = prop.integrated != 0;
  cal.startup_ms = startup_ms;

  // A Jetson shares its 8 GB with the CPU: take at most a quarter of what is free per buffer.
  const std::size_t free_bytes = context.free_memory();
  const std::size_t copy_bytes = std::max<std::size_t>(kMiB, std::min(kCopyBytes, free_bytes / 4 / kMiB * kMiB));
  const std::size_t transfer_bytes = std::min(kTransferBytes, copy_bytes);
  const cudaStream_t stream = context.stream();

  Buffer<unsigned char> source, target;
  std::vector<double> alloc_ms;
  for (Buffer<unsigned char>* buffer : {&source, &target}) {
    const auto alloc_start = Clock::now();
    *buffer = Buffer<unsigned char>(context, copy_bytes, Placement::device, "the calibration copy buffers");
    alloc_ms.push_back(ms_since(alloc_start));
  }
  cal.alloc_ms = median(alloc_ms);

  // Fixed costs: a 4-byte copy and the wait for it; then how long queueing alone takes.
  {
    std::vector<double> round_trips;
    const auto loop_start = Clock::now();
    for (int i = 0; i < 51 && ms_since(loop_start) < kLoopBudgetMs; ++i) {
      const auto t = Clock::now();
      RBF_CUDA_CHECK(cudaMemcpyAsync(target.get(), source.get(), 4, cudaMemcpyDeviceToDevice, stream));
      RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
      if (i > 0) round_trips.push_back(ms_since(t));  // the first one warms the path up
    }
    cal.sync_ms = median(round_trips);

    constexpr int kLaunches = 200;
    const auto t = Clock::now();
    for (int i = 0; i < kLaunches; ++i) {
      RBF_CUDA_CHECK(cudaMemsetAsync(target.get(), 0, 4, stream));
    }
    cal.launch_ms = ms_since(t) / kLaunches;
    RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
    cal.overhead_ms = model::kIterationSyncs * cal.sync_ms + model::kIterationLaunches * cal.launch_ms;
  }

  // Device memory bandwidth: a copy reads and writes every byte.
  const double copy_ms = best_device_ms(stream, 5, [&] {
    RBF_CUDA_CHECK(cudaMemcpyAsync(target.get(), source.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream));
  }, kLoopBudgetMs);
  cal.bandwidth_gbs = gbs(2.0 * static_cast<double>(copy_bytes), copy_ms);

  // Host to device, from pinned memory (asynchronous copies) and from ordinary memory (what
  // copying a std::vector costs).
  {
    Buffer<unsigned char> pinned(context, transfer_bytes, Placement::pinned_host, "the calibration staging buffer");
    std::memset(pinned.host(), 1, transfer_bytes);
    const double pinned_ms = best_device_ms(stream, 3, [&] {
      RBF_CUDA_CHECK(cudaMemcpyAsync(target.get(), pinned.host(), transfer_bytes, cudaMemcpyHostToDevice, stream));
    }, kLoopBudgetMs);
    cal.transfer_gbs = gbs(static_cast<double>(transfer_bytes), pinned_ms);
  }
  {
    std::vector<unsigned char> pageable(transfer_bytes, 1);
    RBF_CUDA_CHECK(cudaMemcpy(target.get(), pageable.data(), transfer_bytes, cudaMemcpyHostToDevice));  // warm-up
    double best = 0;
    for (int i = 0; i < 2; ++i) {
      const auto t = Clock::now();
      RBF_CUDA_CHECK(cudaMemcpy(target.get(), pageable.data(), transfer_bytes, cudaMemcpyHostToDevice));
      const double ms = ms_since(t);
      if (i == 0 || ms < best) best = ms;
    }
    cal.pageable_transfer_gbs = gbs(static_cast<double>(transfer_bytes), best);
  }
  cal.gflops = matrix_free_gflops(context);
  cal.probe_ms = startup_ms + ms_since(probe_start);
  return cal;
}

}  // namespace rbf::gpu
