// GPU backend benchmarks: the gpu_bench program (figures in docs/BENCHMARKS.md, "GPU backend").
// Device-to-device copy bandwidth, the fused scoring pass against cuBLAS gemv, growing 300
// nodes on Friedman #1, Gaussian activations of (center, sample) pairs, ms/iteration against
// node count for the CPU and GPU backends, and (mode `refine` only) one refinement epoch on
// both engines against cuBLAS SGEMM (gpu_refine_bench.cpp). Device times come from CUDA
// events after warm-up (medians).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_timing.hpp"
#include "gpu_matrix_free_bench.hpp"
#include "gpu_refine_bench.hpp"
#include "data/split.hpp"
#include "data/synthetic.hpp"
#include "gpu/candidate_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/vector_kernels.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "model/trainer.hpp"

using namespace rbf;
using namespace rbf::bench;
using gpu::Buffer;
using gpu::Placement;

namespace {

double copy_bandwidth(const gpu::Context& ctx) {
  const std::size_t bytes = std::size_t{2} << 30;
  Buffer<char> a(ctx, bytes, Placement::device, "copy source");
  Buffer<char> b(ctx, bytes, Placement::device, "copy target");
  RBF_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, ctx.stream()));
  const double ms = time_events(ctx, 3, 20, [&] {
    RBF_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream()));
  });
  const double gbs = 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
  std::printf("device-to-device copy: %.2f GiB in %.3f ms = %.0f GB/s (read + write)\n",
              static_cast<double>(bytes) / (1 << 30), ms, gbs);
  return gbs;
}

// The scoring pass at N rows x count candidates: fused partial sums + statistics update +
// selection (what every iteration runs), the partial-sum kernel alone, and cublasSgemv.
void scoring_pass(const gpu::Context& ctx, double copy_gbs, std::size_t n, int count) {
  using T = float;
  const std::size_t npad = (n + gpu::kRowPadding - 1) / gpu::kRowPadding * gpu::kRowPadding;
  const int d = 8, k = 1;
  Buffer<T> xt(ctx, npad * d, Placement::device, "x");
  Buffer<T> centers(ctx, static_cast<std::size_t>(count) * d, Placement::device, "centers");
  Buffer<T> gamma(ctx, count, Placement::device, "gamma");
  Buffer<T> phi(ctx, npad * count, Placement::device, "Phi_C");
  Buffer<T> q(ctx, npad, Placement::device, "q");
  fill_random(ctx, xt.get(), npad * d, 1, -1.7, 1.7);
  fill_random(ctx, centers.get(), static_cast<std::size_t>(count) * d, 2, -1.7, 1.7);
  fill_random(ctx, gamma.get(), count, 3, 0.02, 0.2);
  fill_random(ctx, q.get(), npad, 4, -1e-3, 1e-3);
  RBF_CUDA_CHECK(gpu::launch_eval_columns<T>(xt.get(), npad, static_cast<int>(n), static_cast<int>(npad), d,
                                             centers.get(), gamma.get(), 0, count, phi.get(), npad,
                                             ctx.stream()));
  const int sms = ctx.properties().multiProcessorCount;
  const gpu::ScorePartition part = gpu::make_score_partition(npad, count, sms, sizeof(T));
  Buffer<T> partial(ctx, static_cast<std::size_t>(count) * 64 * sms, Placement::device, "partials");
  Buffer<T> e(ctx, npad * k, Placement::device, "E");
  Buffer<T> history(ctx, static_cast<std::size_t>(count) * 4, Placement::device, "history");
  Buffer<double> norm2(ctx, count, Placement::device, "n"), proj2(ctx, count, Placement::device, "s"),
      g(ctx, static_cast<std::size_t>(count) * k, Placement::device, "g"),
      values(ctx, 4096, Placement::device, "scratch"), results(ctx, 64, Placement::device, "results");
  Buffer<long long> indices(ctx, 4096, Placement::device, "scratch"), rows(ctx, count, Placement::device, "rows");
  Buffer<unsigned char> used(ctx, count, Placement::device, "used");
  Buffer<unsigned int> tickets(ctx, gpu::kTicketCount, Placement::device, "tickets");
  fill_random(ctx, norm2.get(), count, 5, 100.0, 200.0);
  const gpu::CandidateStats stats{count, k, norm2.get(), proj2.get(), g.get(), used.get()};
  const gpu::ReduceScratch scratch{values.get(), indices.get(), tickets.get()};
  const gpu::History<T> hist{history.get(), 4, 1};
  const gpu::SelectRequest select{gpu::kSelectOls, 0.0, 1e-4, 0};

  Buffer<double> sse(ctx, 64 * sms, Placement::device, "sse");
  // As in training: the first column group also updates E (k = 1) on the fly.
  const gpu::FusedResidual<T> residual{e.get(), npad, k, results.get() + gpu::kResultA, sse.get()};
  auto partials_with = [&](const gpu::ScorePartition& pp) {
    RBF_CUDA_CHECK(gpu::launch_score_partials<T>(phi.get(), npad, 0, count, q.get(), pp, used.get(),
                                                 partial.get(), count, residual, ctx.stream()));
  };
  auto partials = [&] { partials_with(part); };
  auto fused = [&] {
    partials();
    RBF_CUDA_CHECK(gpu::launch_finish_update<T>(stats, partial.get(), part.splits,
                                                results.get() + gpu::kResultA, hist, select, e.get(), npad,
                                                rows.get(), sse.get(), scratch, results.get(), ctx.stream()));
  };
  Buffer<T> z(ctx, count, Placement::device, "z"), consts(ctx, 2, Placement::device, "consts");
  const T one_zero[2] = {1, 0};
  RBF_CUDA_CHECK(cudaMemcpy(consts.get(), one_zero, sizeof(one_zero), cudaMemcpyHostToDevice));
  auto cublas = [&] {
    RBF_CUBLAS_CHECK(gpu::blas::gemv(ctx.blas(), CUBLAS_OP_T, static_cast<int>(npad), count, consts.get(),
                                     phi.get(), static_cast<int>(npad), q.get(), consts.get() + 1, z.get()));
  };
  const double bytes = static_cast<double>(n) * count * sizeof(T) + static_cast<double>(n) * sizeof(T);
  // Variants of the partial-sum kernel: loads in flight per thread and blocks per SM.
  for (int unroll : {2, 4})
    for (int bps : {16, 32, 64}) {
      const gpu::ScorePartition pp = gpu::make_score_partition(npad, count, sms, sizeof(T), bps, unroll);
      const double t = time_events(ctx, 3, 20, [&] { partials_with(pp); });
      std::printf("  variant unroll %d, %2d blocks/SM (%d splits): %.3f ms = %.0f GB/s\n", unroll, bps,
                  pp.splits, t, bytes / (t * 1e-3) / 1e9);
    }
  const double t_fused = time_events(ctx, 5, 30, fused);
  const double t_partials = time_events(ctx, 5, 30, partials);
  const double t_cublas = time_events(ctx, 5, 30, cublas);
  partials();
  ctx.synchronize();

  // Check the fused sums against cuBLAS on these inputs (both float32).
  std::vector<T> zc(count), pz(static_cast<std::size_t>(count) * part.splits);
  RBF_CUDA_CHECK(cudaMemcpy(zc.data(), z.get(), count * sizeof(T), cudaMemcpyDeviceToHost));
  RBF_CUDA_CHECK(cudaMemcpy(pz.data(), partial.get(), pz.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (int c = 0; c < count; ++c) {
    double s = 0;
    for (int sp = 0; sp < part.splits; ++sp) s += pz[static_cast<std::size_t>(sp) * count + c];
    diff += (s - zc[c]) * (s - zc[c]);
    norm += static_cast<double>(zc[c]) * zc[c];
  }
  auto gbs = [&](double ms) { return bytes / (ms * 1e-3) / 1e9; };
  std::printf("scoring pass, N = %zu, P*S = %d, float32 (%.2f GB of Phi_C per pass, %d row splits):\n", n,
              count, bytes / 1e9, part.splits);
  std::printf("  fused z = Phi^T q + s,g update + selection: %.3f ms = %.0f GB/s = %.1f%% of copy bandwidth\n",
              t_fused, gbs(t_fused), 100.0 * gbs(t_fused) / copy_gbs);
  std::printf("  partial-sum kernel alone:                   %.3f ms = %.0f GB/s = %.1f%%\n", t_partials,
              gbs(t_partials), 100.0 * gbs(t_partials) / copy_gbs);
  std::printf("  cublasSgemv (z only):                       %.3f ms = %.0f GB/s = %.1f%%\n", t_cublas,
              gbs(t_cublas), 100.0 * gbs(t_cublas) / copy_gbs);
  std::printf("  ||z_fused - z_cublas|| / ||z_cublas|| = %.2e\n", std::sqrt(diff / norm));
}

// Gaussian activations of `count` (center, sample) pairs in d dimensions: kernel only, and
// with the transfers (inputs in, activations out, pinned host memory).
void gaussian_pairs(const gpu::Context& ctx, int count, int d) {
  using T = float;
  const std::size_t values = static_cast<std::size_t>(count) * d;
  Buffer<T> hx(ctx, values, Placement::pinned_host, "x"), hc(ctx, values, Placement::pinned_host, "c"),
      hg(ctx, count, Placement::pinned_host, "gamma"), ho(ctx, count, Placement::pinned_host, "out");
  Buffer<T> x(ctx, values, Placement::device, "x"), c(ctx, values, Placement::device, "c"),
      g(ctx, count, Placement::device, "gamma"), o(ctx, count, Placement::device, "out");
  data::SplitMix64 rng(9);
  for (std::size_t i = 0; i < values; ++i) {
    hx.host()[i] = static_cast<T>(rng.uniform() * 2 - 1);
    hc.host()[i] = static_cast<T>(rng.uniform() * 2 - 1);
  }
  for (int i = 0; i < count; ++i) hg.host()[i] = 0.1f;
  const cudaStream_t s = ctx.stream();
  auto kernel = [&] { RBF_CUDA_CHECK(gpu::launch_gaussian_pairs<T>(x.get(), c.get(), g.get(), count, d, o.get(), s)); };
  auto with_transfers = [&] {
    RBF_CUDA_CHECK(cudaMemcpyAsync(x.get(), hx.host(), values * sizeof(T), cudaMemcpyHostToDevice, s));
    RBF_CUDA_CHECK(cudaMemcpyAsync(c.get(), hc.host(), values * sizeof(T), cudaMemcpyHostToDevice, s));
    RBF_CUDA_CHECK(cudaMemcpyAsync(g.get(), hg.host(), count * sizeof(T), cudaMemcpyHostToDevice, s));
    kernel();
    RBF_CUDA_CHECK(cudaMemcpyAsync(ho.host(), o.get(), count * sizeof(T), cudaMemcpyDeviceToHost, s));
  };
  const double t_kernel = time_events(ctx, 20, 200, kernel);
  const double t_events = time_events(ctx, 20, 200, with_transfers);
  // Host wall clock of a whole synchronous call (what a caller waits for).
  std::vector<double> wall;
  for (int i = 0; i < 220; ++i) {
    const auto t0 = Clock::now();
    with_transfers();
    ctx.synchronize();
    if (i >= 20) wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  double max_err = 0;
  for (int i = 0; i < count; ++i) {
    double d2 = 0;
    for (int f = 0; f < d; ++f) {
      const double diff = static_cast<double>(hx.host()[i * d + f]) - hc.host()[i * d + f];
      d2 += diff * diff;
    }
    max_err = std::max(max_err, std::abs(std::exp(-0.1 * d2) - ho.host()[i]));
  }
  std::printf("Gaussian activations of %d (center, sample) pairs, d = %d, float32:\n", count, d);
  std::printf("  kernel only: %.4f ms; with transfers (events): %.4f ms; synchronous call (host clock): %.4f ms; max |err| %.1e\n",
              t_kernel, t_events, median(wall), max_err);

  // For scale: the backend's fused distance + exp kernel on a full 1000 x 1000 block.
  Buffer<T> xt(ctx, 1024 * static_cast<std::size_t>(d), Placement::device, "xt");
  Buffer<T> block(ctx, 1024 * static_cast<std::size_t>(count), Placement::device, "block");
  fill_random(ctx, xt.get(), 1024 * static_cast<std::size_t>(d), 10, -1, 1);
  const double t_block = time_events(ctx, 20, 200, [&] {
    RBF_CUDA_CHECK(gpu::launch_eval_columns<T>(xt.get(), 1024, count, 1024, d, c.get(), g.get(), 0, count,
                                               block.get(), 1024, s));
  });
  std::printf("  all %d x %d (sample, center) activations via the candidate kernel: %.4f ms (%.1f Gactivations/s)\n",
              count, count, t_block, static_cast<double>(count) * count / (t_block * 1e-3) / 1e9);
}

model::Config growth_config(model::BackendKind kind, std::size_t pool, std::vector<double> factors,
                            std::size_t nodes) {
  model::Config c;
  c.data.validation = 0;
  c.stopping.max_nodes = nodes;
  c.stopping.patience = 0;
  c.stopping.goal = 0;
  c.logging.progress = false;
  c.candidates.pool = pool;
  c.candidates.width_factors = std::move(factors);
  c.candidates.memory_budget_mb = 64 * 1024;
  c.trainer.precision = model::Precision::float32;
  c.trainer.threads = 0;
  c.backend.kind = kind;
  return c;
}

void growth(const data::Dataset& ds, std::size_t pool, const std::vector<double>& factors) {
  const model::Config c = growth_config(model::BackendKind::gpu, pool, factors, 300);
  model::train(ds, c);  // warm-up: context, cuBLAS handle, module load
  const model::TrainResult r = model::train(ds, c);
  double select = 0, add = 0, update = 0;
  for (const auto& it : r.iterations) {
    select += it.select_ms;
    add += it.add_ms;
    update += it.update_ms;
  }
  std::string buckets;
  for (std::size_t m : {1, 50, 100, 150, 200, 250, 300}) {
    double a = 0, u = 0;
    int cnt = 0;
    for (const auto& it : r.iterations)
      if (it.nodes + 4 >= m && it.nodes <= m + 5) {
        a += it.add_ms;
        u += it.update_ms;
        ++cnt;
      }
    if (cnt > 0) buckets += " " + std::to_string(m) + ":" + std::to_string(a / cnt).substr(0, 5) + "/" +
                            std::to_string(u / cnt).substr(0, 5);
  }
  std::printf("grow %zu nodes, Friedman #1 d = %zu, N = %zu, P = %zu, S = %zu (P*S = %zu), gpu float32:\n",
              r.iterations.size(), ds.features, r.train_rows, pool, factors.size(), r.candidates);
  std::printf("  growth loop %.4f s (select %.1f ms, add %.1f ms, update %.1f ms); setup %.4f s; stored %s; final RMSE %.4f; %s\n",
              r.seconds, select, add, update, r.setup_seconds, r.candidates_stored ? "yes" : "no",
              r.final_train_rmse, r.stop_reason.c_str());
  std::printf("  add/update ms at nodes:%s\n", buckets.c_str());
}

// ms/iteration around given node counts (mean over a window of iterations).
void iteration_table(const std::vector<std::size_t>& rows, std::size_t nodes, bool with_cpu) {
  const std::vector<std::size_t> marks{1, 10, 50, 100, 150, 200, 250, 300};
  std::printf("ms/iteration against node count (Friedman #1, d = 20, P = 1000, S = 3, float32; mean of iterations mark-4..mark+5):\n");
  std::printf("| N | backend |");
  for (std::size_t m : marks)
    if (m <= nodes) std::printf(" %zu |", m);
  std::printf(" total s |\n");
  for (std::size_t n : rows) {
    const data::Dataset ds = data::make_friedman1(n, 20, 1.0, 7);
    for (const char* name : {"cpu", "gpu"}) {
      const bool cpu = std::strcmp(name, "cpu") == 0;
      if (cpu && !with_cpu) continue;
      const std::size_t grow_nodes = cpu && n >= 200000 ? std::min<std::size_t>(nodes, 200) : nodes;
      const model::Config c = growth_config(cpu ? model::BackendKind::cpu : model::BackendKind::gpu, 1000,
                                            {0.5, 1.0, 2.0}, grow_nodes);
      if (!cpu) model::train(ds, c);  // warm-up
      const model::TrainResult r = model::train(ds, c);
      std::printf("| %zu | %s |", n, name);
      for (std::size_t m : marks) {
        if (m > nodes) continue;
        double sum = 0;
        int count = 0;
        for (const auto& it : r.iterations)
          if (it.iteration + 4 >= m && it.iteration <= m + 5) {
            sum += it.total_ms;
            ++count;
          }
        if (count > 0)
          std::printf(" %.3f |", sum / count);
        else
          std::printf(" - |");
      }
      std::printf(" %.3f |\n", r.seconds);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  std::string only = argc > 1 ? argv[1] : "all";
  if (only == "--refine") only = "refine";
  RefineOptions refine;
  std::size_t free_n = 1000000;
  int free_count = 4096, free_d = 20;
  for (int i = 2; i < argc; i += 2) {
    const long value = i + 1 < argc ? std::strtol(argv[i + 1], nullptr, 10) : -1;
    const std::string key = value >= 0 ? argv[i] : "";  // "" falls through to the usage line
    if (key == "--cpu-threads") refine.cpu_threads = static_cast<int>(value);
    else if (key == "--cpu-reps") refine.cpu_reps = static_cast<int>(value);
    else if (key == "--n" && value > 0) refine.n = static_cast<std::size_t>(value);
    else if (key == "--nodes" && value > 0) refine.nodes = static_cast<std::size_t>(value);
    else if (key == "--rows" && value > 0) free_n = static_cast<std::size_t>(value);
    else if (key == "--candidates" && value > 0) free_count = static_cast<int>(value);
    else if (key == "--d" && value > 0) free_d = static_cast<int>(value);
    else {
      std::printf("usage: gpu_bench [all|kernels|free|growth|table|refine] [--cpu-threads N] [--cpu-reps R] [--n N] "
                  "[--nodes M] [--rows N --candidates P --d D (free)]\n");
      return 2;
    }
  }
  const gpu::DeviceReport report = gpu::query_devices();
  if (report.devices.empty()) {
    std::printf("no CUDA device: %s\n", report.why_none.c_str());
    return 1;
  }
  const gpu::DeviceInfo& dev = report.devices.front();
  std::printf("device: %s (sm_%d%d, %d SMs, %.1f GiB), driver %d, runtime %d\n", dev.name.c_str(), dev.major,
              dev.minor, dev.multiprocessors, static_cast<double>(dev.total_memory) / (1 << 30),
              report.driver_version, report.runtime_version);
  try {
    gpu::Context ctx(0, model::GpuMemory::device);
    if (only == "refine") {
      refine_epoch(ctx, refine);
      return 0;
    }
    const double copy_gbs = copy_bandwidth(ctx);
    if (only == "all" || only == "kernels") {
      scoring_pass(ctx, copy_gbs, 1000000, 1024);
      gaussian_pairs(ctx, 1000, 20);
    }
    if (only == "all" || only == "free") matrix_free_pass(ctx, copy_gbs, free_n, free_count, free_d);
    if (only == "all" || only == "growth") {
      const data::Dataset ds = data::make_friedman1(200000, 20, 1.0, 7);
      growth(ds, 2000, {0.5});
      growth(ds, 2000, {1.0});
      growth(ds, 2000, {0.5, 1.0, 2.0});
    }
    if (only == "all" || only == "table") iteration_table({2000, 20000, 200000}, 300, true);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  return 0;
}
