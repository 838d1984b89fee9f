// gpu_bench's refinement-epoch benchmark: the CUDA and Eigen engines against cuBLAS SGEMM.
// The CUDA engine is timed by events and wall clock, the Eigen engine by wall clock; their
// losses and gradients are compared.
#include "gpu_refine_bench.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu_bench_timing.hpp"
#include "cpu/eigen_refine_engine.hpp"
#include "data/split.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/cuda_refine_engine.hpp"
#include "gpu/device_buffer.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "contracts/refine_engine.hpp"

namespace rbf::bench {
namespace {

using gpu::Buffer;
using gpu::Placement;

double tflops(double flops, double ms) { return flops / (ms * 1e-3) / 1e12; }

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// cuBLAS SGEMM C = A op(B) at m x n x k (plain FP32 math, as the engines use), for scale.
void sgemm_rate(const gpu::Context& ctx, const char* label, int m, int n, int k, bool transpose_b) {
  using T = float;
  Buffer<T> a(ctx, static_cast<std::size_t>(m) * k, Placement::device, "A");
  Buffer<T> b(ctx, static_cast<std::size_t>(n) * k, Placement::device, "B");
  Buffer<T> c(ctx, static_cast<std::size_t>(m) * n, Placement::device, "C");
  Buffer<T> consts(ctx, 2, Placement::device, "consts");
  fill_random(ctx, a.get(), a.size(), 31, -1, 1);
  fill_random(ctx, b.get(), b.size(), 32, -1, 1);
  const T one_zero[2] = {1, 0};
  RBF_CUDA_CHECK(cudaMemcpy(consts.get(), one_zero, sizeof(one_zero), cudaMemcpyHostToDevice));
  const double ms = time_events(ctx, 3, 10, [&] {
    RBF_CUBLAS_CHECK(gpu::blas::gemm(ctx.blas(), CUBLAS_OP_N, transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k,
                                     consts.get(), a.get(), m, b.get(), transpose_b ? n : k, consts.get() + 1,
                                     c.get(), m));
  });
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  std::printf("sgemm shape=%s m=%d n=%d k=%d ms=%.3f tflops=%.2f\n", label, m, n, k, ms, tflops(flops, ms));
}

}  // namespace

void refine_epoch(const gpu::Context& ctx, const RefineOptions& o) {
  using T = float;
  const std::size_t n = o.n, nodes = o.nodes, d = o.d, k = o.k;
  data::SplitMix64 rng(21);
  std::vector<T> x(n * d), y(n * k);
  for (T& v : x) v = static_cast<T>((rng.uniform() * 2 - 1) * 1.7);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j)
      y[i * k + j] = static_cast<T>(std::sin(1.5 * x[i * d] + 0.3 * static_cast<double>(j)) + 0.1 * rng.normal());
  model::NodeParams p(nodes, d, k);
  for (std::size_t j = 0; j < nodes; ++j) {
    const std::size_t row = static_cast<std::size_t>(rng.below(n));
    for (std::size_t l = 0; l < d; ++l) p.centers()[j * d + l] = x[row * d + l];
    p.log_widths()[j] = std::log((0.6 + 0.9 * rng.uniform()) * std::sqrt(static_cast<double>(d)) / 2.0);
    for (std::size_t c = 0; c < k; ++c) p.weights()[j * k + c] = 0.1 * rng.normal();
  }
  const double flops = model::refine_epoch_flops(n, nodes, d, k);
  std::printf("refine_problem n=%zu nodes=%zu d=%zu k=%zu params=%zu gflop_per_epoch=%.3f\n", n, nodes, d, k,
              p.size(), flops / 1e9);

  std::vector<double> gpu_gradient;
  double gpu_loss = 0, gpu_ms = 0;
  {
    gpu::CudaRefineEngine<T> engine(gpu::open_context(model::GpuOptions{}));
    engine.set_data(x.data(), n, d, y.data(), k, nullptr, 0);
    gpu_ms = time_events(engine.context(), 3, 20, [&] { gpu_loss = engine.loss_gradient(p, &gpu_gradient); });
    std::vector<double> wall;
    for (int i = 0; i < 10; ++i) {
      const auto t0 = Clock::now();
      engine.loss_gradient(p, &gpu_gradient);
      wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::printf("refine_epoch backend=gpu precision=float32 chunks=%zu ms=%.3f wall_ms=%.3f tflops=%.2f "
                "device_mib=%.1f loss=%.6e\n",
                engine.last_chunks(), gpu_ms, median(wall), tflops(flops, gpu_ms),
                static_cast<double>(engine.memory_bytes()) / (1 << 20), gpu_loss);
  }
  std::fflush(stdout);

  sgemm_rate(ctx, "square", 8192, 8192, 8192, false);
  sgemm_rate(ctx, "x_ct", static_cast<int>(n), static_cast<int>(nodes), static_cast<int>(d), true);
  std::fflush(stdout);

  if (o.cpu_reps <= 0) return;
  cpu::EigenRefineEngine<T> cpu(o.cpu_threads);
  cpu.set_data(x.data(), n, d, y.data(), k, nullptr, 0);
  std::vector<double> cpu_gradient, wall;
  double cpu_loss = 0;
  for (int i = 0; i < o.cpu_reps; ++i) {
    const auto t0 = Clock::now();
    cpu_loss = cpu.loss_gradient(p, &cpu_gradient);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  const double cpu_ms = median(wall);
  std::printf("refine_epoch backend=cpu precision=float32 threads=%d reps=%d ms=%.1f tflops=%.4f loss=%.6e\n",
              o.cpu_threads, o.cpu_reps, cpu_ms, tflops(flops, cpu_ms), cpu_loss);
  std::printf("refine_epoch_compare cpu_ms=%.1f gpu_ms=%.3f speedup=%.1f loss_rel=%.1e gradient_rel=%.1e\n", cpu_ms,
              gpu_ms, cpu_ms / gpu_ms, std::abs(gpu_loss - cpu_loss) / std::abs(cpu_loss),
              relative_difference(gpu_gradient, cpu_gradient));
}

}  // namespace rbf::bench
