// gpu_bench's matrix-free mode: one scoring pass over a stored Phi_C (our kernel and cuBLAS)
// against the fused matrix-free pass, timed with CUDA events, with errors against float64.
#include "gpu_matrix_free_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "data/split.hpp"
#include "gpu/candidate_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "gpu_bench_timing.hpp"

namespace rbf::bench {
namespace {

using gpu::Buffer;
using gpu::Placement;

template <typename T>
Buffer<T> upload(const gpu::Context& ctx, const std::vector<T>& host, const char* what) {
  Buffer<T> b(ctx, host.size(), Placement::device, what);
  RBF_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return b;
}

// The fused pass's operands and partial sums at one precision.
template <typename T>
struct FreeOperands {
  Buffer<T> rows_aug, cand_aug, q, partial, z;
  gpu::MatrixFreePass<T> pass{};
  gpu::MatrixFreePlan plan{};
};

double mean_norm2(const std::vector<double>& xt, int n, int npad, int d) {
  double norm2 = 0;
  for (int f = 0; f < d; ++f)
    for (int i = 0; i < n; ++i) norm2 += xt[static_cast<std::size_t>(f) * npad + i] * xt[static_cast<std::size_t>(f) * npad + i];
  return norm2 / n;
}

gpu::MatrixFreeRange operand_range(const std::vector<double>& xt, const std::vector<double>& centers,
                                   const std::vector<double>& gamma, int n, int npad, int d) {
  gpu::MatrixFreeRange range;
  for (int i = 0; i < n; ++i) {
    double norm2 = 0, max_abs = 0;
    for (int f = 0; f < d; ++f) {
      const double v = xt[static_cast<std::size_t>(f) * npad + i];
      norm2 += v * v;
      max_abs = std::max(max_abs, std::fabs(v));
    }
    range.add_row(max_abs, norm2);
  }
  for (std::size_t c = 0; c < gamma.size(); ++c) {
    double max_abs = 0;
    for (int f = 0; f < d; ++f) max_abs = std::max(max_abs, std::fabs(centers[c * d + f]));
    range.add_candidate(max_abs, gamma[c]);
  }
  return range;
}

template <typename T>
FreeOperands<T> free_operands(const gpu::Context& ctx, const std::vector<double>& xt, const std::vector<double>& centers,
                              const std::vector<double>& gamma, const std::vector<double>& q, int n, int npad,
                              int count, int d, bool tensor_cores_allowed = true, bool unit_scale_allowed = true) {
  FreeOperands<T> f;
  f.plan = gpu::plan_matrix_free<T>(npad, count, d, ctx.device(), tensor_cores_allowed);
  f.plan.norm_shift = gpu::matrix_free_norm_shift(mean_norm2(xt, n, npad, d));
  gpu::matrix_free_choose_scale(f.plan, operand_range(xt, centers, gamma, n, npad, d), d);
  f.plan.unit_scale = f.plan.unit_scale && unit_scale_allowed;
  const int padded_count = gpu::matrix_free_padded_count(count);
  const Buffer<T> xt_d = upload(ctx, std::vector<T>(xt.begin(), xt.end()), "x");
  const Buffer<T> centers_d = upload(ctx, std::vector<T>(centers.begin(), centers.end()), "centers");
  const Buffer<T> gamma_d = upload(ctx, std::vector<T>(gamma.begin(), gamma.end()), "gamma");
  f.q = upload(ctx, std::vector<T>(q.begin(), q.end()), "q");
  f.rows_aug = Buffer<T>(ctx, static_cast<std::size_t>(npad) * f.plan.row_floats, Placement::device, "rows");
  f.cand_aug =
      Buffer<T>(ctx, static_cast<std::size_t>(padded_count) * f.plan.candidate_floats, Placement::device, "candidates");
  RBF_CUDA_CHECK(gpu::launch_matrix_free_rows<T>(xt_d.get(), npad, n, npad, d, f.plan, f.rows_aug.get(), ctx.stream()));
  RBF_CUDA_CHECK(gpu::launch_matrix_free_candidates<T>(centers_d.get(), gamma_d.get(), count, d, f.plan,
                                                       f.cand_aug.get(), ctx.stream()));
  f.partial = Buffer<T>(ctx, static_cast<std::size_t>(count) * f.plan.splits, Placement::device, "partials");
  f.z = Buffer<T>(ctx, count, Placement::device, "z");
  f.pass = gpu::MatrixFreePass<T>{f.rows_aug.get(), f.cand_aug.get(), n, npad, count, d, f.q.get(),
                                  f.partial.get(), nullptr, f.plan.splits, f.plan.rows_per_split};
  ctx.synchronize();
  return f;
}

template <typename T>
std::vector<double> run_and_read(const gpu::Context& ctx, FreeOperands<T>& f, const gpu::MatrixFreePlan& plan) {
  gpu::MatrixFreePass<T> pass = f.pass;
  pass.splits = plan.splits;
  pass.rows_per_split = plan.rows_per_split;
  RBF_CUDA_CHECK(gpu::launch_matrix_free_pass<T>(pass, plan, ctx.stream()));
  RBF_CUDA_CHECK(gpu::launch_sum_splits<T>(f.partial.get(), plan.splits, pass.count, f.z.get(), ctx.stream()));
  ctx.synchronize();  // the copy below runs on the default stream
  std::vector<T> z(static_cast<std::size_t>(pass.count));
  RBF_CUDA_CHECK(cudaMemcpy(z.data(), f.z.get(), z.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return std::vector<double>(z.begin(), z.end());
}

double relative_error(const std::vector<double>& z, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t c = 0; c < ref.size(); ++c) {
    diff += (z[c] - ref[c]) * (z[c] - ref[c]);
    norm += ref[c] * ref[c];
  }
  return std::sqrt(diff / norm);
}

// --precision float64's pass (CUDA cores) against its bound: about d + 12 FP64 multiply-adds
// per Gaussian (the cross term, exp's reduction and polynomial, the weight) at 64 per clock
// per SM (sm_80/sm_90 data-centre parts).
void report_float64(const gpu::Context& ctx, FreeOperands<double>& f64, double pairs, int d, int sms, int clock_khz) {
  const double f64_ms = time_events(ctx, 1, 5, [&] {
    RBF_CUDA_CHECK(gpu::launch_matrix_free_pass<double>(f64.pass, f64.plan, ctx.stream()));
  });
  const double fma_bound_ms = pairs * (d + 12) / (static_cast<double>(sms) * 64.0 * clock_khz * 1e3) * 1e3;
  std::printf("  float64 pass (CUDA cores): %.3f ms; FP64 bound (d + 12 FMA per Gaussian) %.3f ms = %.1f%%\n", f64_ms,
              fma_bound_ms, 100.0 * fma_bound_ms / f64_ms);
}

// Prints the pass's bounds and returns the binding one in Gaussians/s: one exp2 per Gaussian
// on the SFUs (16 per clock per SM on sm_80+), and on tensor cores K FP16 multiply-adds per
// Gaussian, K = 3 (d + 1) split-FP16 positions padded to whole k16 steps (the kernel past
// d = 31 pads further, to chunks of 64: that is its own cost), at the dense FP16 rate (2048
// per clock per SM on sm_90, 1024 on sm_80). The lower rate binds.
double print_rooflines(const gpu::Context& ctx, double pairs, int d, bool tensor_cores, int sms, int clock_khz) {
  const double sfu_pairs_per_s = static_cast<double>(sms) * 16.0 * clock_khz * 1e3;
  std::printf("  SFU roofline: %d SMs x 16 exp2/clock x %.0f MHz = %.2f T Gaussians/s -> %.3f ms per pass\n", sms,
              clock_khz / 1e3, sfu_pairs_per_s / 1e12, pairs / sfu_pairs_per_s * 1e3);
  double roofline_pairs_per_s = sfu_pairs_per_s;
  if (tensor_cores) {
    const int k = (3 * (d + 1) + 15) / 16 * 16;
    const double fma_per_clock = ctx.properties().major >= 9 ? 2048.0 : 1024.0;
    const double tensor_pairs_per_s = static_cast<double>(sms) * fma_per_clock * clock_khz * 1e3 / k;
    std::printf("  tensor roofline: K = %d FP16 FMA per Gaussian at %.0f per clock per SM = %.2f T Gaussians/s -> "
                "%.3f ms per pass\n",
                k, fma_per_clock, tensor_pairs_per_s / 1e12, pairs / tensor_pairs_per_s * 1e3);
    roofline_pairs_per_s = std::min(sfu_pairs_per_s, tensor_pairs_per_s);
    // mma.sync, which these kernels issue, reaches half the dense rate on sm_90 (wgmma the rest).
    if (ctx.properties().major >= 9)
      std::printf("  at mma.sync's rate (half of it on sm_90): binding roofline %.3f ms per pass\n",
                  pairs / std::min(sfu_pairs_per_s, tensor_pairs_per_s / 2) * 1e3);
  }
  std::printf("  binding roofline: %.2f T Gaussians/s -> %.3f ms per pass\n", roofline_pairs_per_s / 1e12,
              pairs / roofline_pairs_per_s * 1e3);
  return roofline_pairs_per_s;
}

}  // namespace

void matrix_free_pass(const gpu::Context& ctx, double copy_gbs, std::size_t n_rows, int count, int d) {
  using T = float;
  const int n = static_cast<int>(n_rows);
  const int npad = static_cast<int>((n_rows + gpu::kRowPadding - 1) / gpu::kRowPadding * gpu::kRowPadding);
  // Standardized features, centers at training rows, sigma = sqrt(d) / 2 (the peers' width),
  // q a unit vector orthogonal to nothing in particular; zero on padding rows.
  data::SplitMix64 rng(11);
  std::vector<double> xt(static_cast<std::size_t>(npad) * d, 0.0), centers(static_cast<std::size_t>(count) * d),
      gamma(count, 2.0 / d), q(npad, 0.0);
  const double a = std::sqrt(3.0);
  for (int f = 0; f < d; ++f)
    for (int i = 0; i < n; ++i) xt[static_cast<std::size_t>(f) * npad + i] = static_cast<float>(a * (2 * rng.uniform() - 1));
  for (int c = 0; c < count; ++c) {
    const int row = static_cast<int>(rng.uniform() * n) % n;
    for (int f = 0; f < d; ++f) centers[static_cast<std::size_t>(c) * d + f] = xt[static_cast<std::size_t>(f) * npad + row];
  }
  double qn = 0;
  for (int i = 0; i < n; ++i) {
    q[i] = static_cast<float>(2 * rng.uniform() - 1);
    qn += q[i] * q[i];
  }
  for (int i = 0; i < n; ++i) q[i] = static_cast<float>(q[i] / std::sqrt(qn));

  const double pairs = static_cast<double>(n) * count;
  std::printf("matrix-free scoring pass, N = %d, P = %d, d = %d, float32 (%.2f G Gaussians per pass):\n", n, count, d,
              pairs / 1e9);
  std::vector<double> ref;
  int clock_khz = 0, sms = ctx.properties().multiProcessorCount;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ctx.device()) != cudaSuccess) clock_khz = 0;
  {
    FreeOperands<double> f64 = free_operands<double>(ctx, xt, centers, gamma, q, n, npad, count, d);
    ref = run_and_read(ctx, f64, f64.plan);
    report_float64(ctx, f64, pairs, d, sms, clock_khz);
  }
  FreeOperands<T> f = free_operands<T>(ctx, xt, centers, gamma, q, n, npad, count, d);
  const double roofline_pairs_per_s = print_rooflines(ctx, pairs, d, f.plan.tensor_cores, sms, clock_khz);

  auto report = [&](const char* name, FreeOperands<T>& operands) {
    const gpu::MatrixFreePlan& plan = operands.plan;
    const double ms = time_events(ctx, 3, 20, [&] {
      RBF_CUDA_CHECK(gpu::launch_matrix_free_pass<T>(operands.pass, plan, ctx.stream()));
    });
    const double err = relative_error(run_and_read(ctx, operands, plan), ref);
    std::printf("  fused, %-28s %8.3f ms = %6.2f T Gaussians/s = %5.1f%% of roofline; %d splits; ||z - z64||/||z64|| = %.1e\n",
                name, ms, pairs / (ms * 1e-3) / 1e12, 100.0 * pairs / (ms * 1e-3) / roofline_pairs_per_s, plan.splits, err);
    return ms;
  };
  double best = 0;
  if (f.plan.tensor_cores) {
    best = report(f.plan.unit_scale ? "tensor cores, one scale" : "tensor cores, split FP16", f);
    if (f.plan.unit_scale) {  // the kernel for operands that need a scale per row and group
      FreeOperands<T> scaled = free_operands<T>(ctx, xt, centers, gamma, q, n, npad, count, d, true, false);
      report("tensor cores, scale per row", scaled);
    }
  }
  FreeOperands<T> simt = free_operands<T>(ctx, xt, centers, gamma, q, n, npad, count, d, false);
  const double simt_ms = report("CUDA cores (FMA)", simt);
  if (best == 0) best = simt_ms;

  // The stored pass: Phi_C evaluated once, then read per pass (when it fits the device).
  const double phi_bytes = static_cast<double>(npad) * count * sizeof(T);
  if (phi_bytes > 0.8 * static_cast<double>(ctx.free_memory())) {
    std::printf("  stored: Phi_C (%.1f GB) does not fit this device\n", phi_bytes / 1e9);
    return;
  }
  Buffer<T> xt_d = upload(ctx, std::vector<T>(xt.begin(), xt.end()), "x");
  Buffer<T> centers_d = upload(ctx, std::vector<T>(centers.begin(), centers.end()), "centers");
  Buffer<T> gamma_d = upload(ctx, std::vector<T>(gamma.begin(), gamma.end()), "gamma");
  Buffer<T> phi(ctx, static_cast<std::size_t>(npad) * count, Placement::device, "Phi_C");
  RBF_CUDA_CHECK(gpu::launch_eval_columns<T>(xt_d.get(), npad, n, npad, d, centers_d.get(), gamma_d.get(), 0, count,
                                             phi.get(), npad, ctx.stream()));
  const gpu::ScorePartition part = gpu::make_score_partition(npad, count, sms, sizeof(T));
  Buffer<T> partial(ctx, static_cast<std::size_t>(count) * part.splits, Placement::device, "partials");
  const gpu::FusedResidual<T> none{nullptr, 0, 0, nullptr, nullptr};
  const double stored_ms = time_events(ctx, 3, 20, [&] {
    RBF_CUDA_CHECK(gpu::launch_score_partials<T>(phi.get(), npad, 0, count, f.q.get(), part, nullptr, partial.get(),
                                                 count, none, ctx.stream()));
  });
  Buffer<T> consts(ctx, 2, Placement::device, "constants"), z(ctx, count, Placement::device, "z");
  const T one_zero[2] = {1, 0};
  RBF_CUDA_CHECK(cudaMemcpy(consts.get(), one_zero, sizeof(one_zero), cudaMemcpyHostToDevice));
  const double gemv_ms = time_events(ctx, 3, 20, [&] {
    RBF_CUBLAS_CHECK(gpu::blas::gemv(ctx.blas(), CUBLAS_OP_T, npad, count, consts.get(), phi.get(), npad, f.q.get(),
                                     consts.get() + 1, z.get()));
  });
  ctx.synchronize();
  std::vector<T> zs(static_cast<std::size_t>(count));
  RBF_CUDA_CHECK(cudaMemcpy(zs.data(), z.get(), zs.size() * sizeof(T), cudaMemcpyDeviceToHost));
  const double gbs = phi_bytes / (stored_ms * 1e-3) / 1e9;
  std::printf("  stored pass (our kernel):  %8.3f ms = %5.0f GB/s = %5.1f%% of copy bandwidth\n", stored_ms, gbs,
              100.0 * gbs / copy_gbs);
  std::printf("  stored, cuBLAS SGEMV:      %8.3f ms; ||z - z64||/||z64|| = %.1e\n", gemv_ms,
              relative_error(std::vector<double>(zs.begin(), zs.end()), ref));
  std::printf("  fused (best) vs stored pass: %.2fx faster\n", stored_ms / best);
}

}  // namespace rbf::bench
