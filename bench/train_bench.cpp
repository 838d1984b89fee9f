// Benchmark of incremental training on the CPU: Friedman #1, ms/iteration vs nodes, and the
// scoring pass's bandwidth against a STREAM-style measurement taken in the same run.
//
//   train_bench [N] [D] [POOL] [NODES] [WIDTHS] [THREADS] [BACKEND] [FACTOR] [PRECISION]
//   (defaults 20000 20 1000 200 1 0 cpu 1.0 float32)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "data/synthetic.hpp"
#include "model/trainer.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Best-of-5 read bandwidth (a dot product of two large float arrays) and triad bandwidth.
void stream_bandwidth(double& read_gbs, double& triad_gbs) {
  const std::size_t n = std::size_t(1) << 25;  // 128 MiB per array
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.5f);
  read_gbs = triad_gbs = 0;
  volatile float sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    float sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) sum += a[i] * b[i];
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    sink = sink + sum;
    read_gbs = std::max(read_gbs, 2.0 * n * sizeof(float) / s / 1e9);
    t0 = Clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) a[i] = b[i] + 0.5f * c[i];
    s = std::chrono::duration<double>(Clock::now() - t0).count();
    triad_gbs = std::max(triad_gbs, 3.0 * n * sizeof(float) / s / 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  const std::size_t n = static_cast<std::size_t>(arg(1, 20000));
  const std::size_t d = static_cast<std::size_t>(arg(2, 20));
  const std::size_t pool = static_cast<std::size_t>(arg(3, 1000));
  const std::size_t nodes = static_cast<std::size_t>(arg(4, 200));
  const std::size_t widths = static_cast<std::size_t>(arg(5, 1));
  const int threads = static_cast<int>(arg(6, 0));
  const std::string backend = argc > 7 ? argv[7] : "cpu";
  const double factor = argc > 8 ? std::atof(argv[8]) : 1.0;  // width factor when WIDTHS = 1
  const std::string precision = argc > 9 ? argv[9] : "float32";

  double read_gbs = 0, triad_gbs = 0;
  stream_bandwidth(read_gbs, triad_gbs);

  const rbf::data::Dataset ds = rbf::data::make_friedman1(n, d, 1.0, 1);
  rbf::model::Config cfg;
  cfg.data.validation = 0;
  cfg.stopping.patience = 0;
  cfg.stopping.max_nodes = nodes;
  cfg.candidates.pool = pool;
  cfg.candidates.width_factors.clear();
  for (std::size_t s = 0; s < widths; ++s) cfg.candidates.width_factors.push_back(widths == 1 ? factor : 0.5 * (1 << s));
  cfg.trainer.threads = threads;
  if (precision == "float64") cfg.trainer.precision = rbf::model::Precision::float64;
  cfg.backend.kind = backend == "gpu" ? rbf::model::BackendKind::gpu : rbf::model::BackendKind::cpu;

  const auto t0 = Clock::now();
  const rbf::model::TrainResult res = rbf::model::train(ds, cfg);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();

  int omp_threads = 1;
#ifdef _OPENMP
  omp_threads = threads > 0 ? threads : omp_get_max_threads();
#endif
  std::printf("Friedman #1: N=%zu d=%zu pool=%zu widths=%zu candidates=%zu (%s) nodes=%zu backend=%s threads=%d\n", n, d,
              pool, widths, res.candidates, res.candidates_stored ? "stored" : "matrix-free", res.network.nodes(),
              backend.c_str(), omp_threads);
  std::printf("STREAM-style bandwidth: read (dot) %.1f GB/s, triad %.1f GB/s\n", read_gbs, triad_gbs);
  std::printf("setup (data, candidate matrix, first pass): %.3f s; stopped: %s\n", res.setup_seconds,
              res.stop_reason.c_str());
  std::printf("growth loop (%zu iterations): %.3f s; whole train() call %.3f s\n", res.iterations.size(), res.seconds,
              wall);
  std::printf("\n| nodes | ms/iter total | select | add (CGS2) | update (scoring pass) | scoring GB/s | train RMSE |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> gbs;
  for (const auto& r : res.iterations) {
    const double bytes = static_cast<double>(res.candidates - r.nodes) * static_cast<double>(res.train_rows) *
                         (cfg.trainer.precision == rbf::model::Precision::float32 ? 4.0 : 8.0);
    const double g = r.update_ms > 0 ? bytes / (r.update_ms * 1e-3) / 1e9 : 0;
    gbs.push_back(g);
    if (r.nodes == 1 || r.nodes % 25 == 0)
      std::printf("| %zu | %.3f | %.3f | %.3f | %.3f | %.1f | %.4f |\n", r.nodes, r.total_ms, r.select_ms, r.add_ms,
                  r.update_ms, g, r.train_rmse);
  }
  std::sort(gbs.begin(), gbs.end());
  const double median = gbs.empty() ? 0 : gbs[gbs.size() / 2];
  std::printf("\nscoring pass median %.1f GB/s = %.0f%% of STREAM read bandwidth\n", median,
              read_gbs > 0 ? 100.0 * median / read_gbs : 0.0);
  return 0;
}
