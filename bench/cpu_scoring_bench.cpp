// Benchmark of one CPU scoring pass, Phi_C stored against matrix-free (each SIMD variant this
// CPU runs), on the same data and candidates; its figures go to docs/BENCHMARKS.md.
//
//   cpu_scoring_bench [N] [D] [POOL] [THREADS] [PRECISION] [PASSES]
//   (defaults 20000 20 1000 0 float32 7; THREADS 0: every core)
//
// What is timed: EigenBackend::update(true, ...) after each added node, which is the scoring
// pass (z = Phi_C^T q and the statistics) plus an O(N k) residual update; the median of PASSES
// passes. The reset pass (reset_to_bias, which also forms n_c and g_c) and set_candidates (for
// stored candidates: evaluating Phi_C) are timed once.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_threads.hpp"
#include "cpu/eigen_backend.hpp"
#include "cpu/simd_variant.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

// Standard normal features (as the trainer's standardized inputs), a smooth target, and a pool of
// POOL distinct rows as centers with one width, sigma0 / 2, sigma0 = sqrt(2 d) being the
// typical distance between two such rows.
template <typename T>
struct Problem {
  std::size_t n, d, pool;
  std::vector<T> x, y, centers, widths;
  std::vector<std::size_t> rows;
};

template <typename T>
Problem<T> make_problem(std::size_t n, std::size_t d, std::size_t pool) {
  Problem<T> p{n, d, pool, {}, {}, {}, {}, {}};
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  p.x.resize(n * d);
  p.y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t f = 0; f < d; ++f) {
      const double v = normal(rng);
      p.x[i * d + f] = static_cast<T>(v);
      s += std::sin(v + static_cast<double>(f));
    }
    p.y[i] = static_cast<T>(s / std::sqrt(static_cast<double>(d)));
  }
  for (std::size_t c = 0; c < pool; ++c) p.rows.push_back(c * (n / pool));
  for (std::size_t r : p.rows) p.centers.insert(p.centers.end(), p.x.begin() + r * d, p.x.begin() + (r + 1) * d);
  p.widths.assign(pool, static_cast<T>(0.5 * std::sqrt(2.0 * static_cast<double>(d))));
  return p;
}

struct Timing {
  double setup_s = 0, reset_ms = 0, pass_ms = 0;
  bool stored = false;
};

template <typename T>
Timing time_passes(const Problem<T>& p, int threads, bool stored, rbf::cpu::SimdVariant variant, int passes) {
  rbf::cpu::EigenBackend<T> b(threads);
  b.use_simd_variant(variant);
  Timing t;
  auto t0 = Clock::now();
  b.set_training_data(p.x.data(), p.n, p.d, p.y.data(), 1);
  b.set_validation_data(nullptr, 0);
  b.set_candidates(p.centers.data(), p.widths.data(), p.rows.data(), p.pool, {stored ? 1e18 : 0.0});
  t.setup_s = seconds_since(t0);
  t.stored = b.candidates_stored();
  std::vector<double> a, h;
  t0 = Clock::now();
  b.reset_to_bias(a);
  t.reset_ms = 1e3 * seconds_since(t0);
  std::vector<double> ms;
  while (static_cast<int>(ms.size()) < passes) {
    const rbf::model::Selection sel = b.select_ols(0.0, 1e-4);
    if (!sel.found) break;
    if (b.add_node(sel.index, 1e-4, h) <= 0) continue;
    t0 = Clock::now();
    b.update(true, a);
    ms.push_back(1e3 * seconds_since(t0));
  }
  std::sort(ms.begin(), ms.end());
  t.pass_ms = ms.empty() ? 0 : ms[ms.size() / 2];
  return t;
}

template <typename T>
void run(std::size_t n, std::size_t d, std::size_t pool, int threads, int passes) {
  const Problem<T> p = make_problem<T>(n, d, pool);
  std::printf("N=%zu d=%zu candidates=%zu %s, %d threads, %s\n", n, d, pool, sizeof(T) == 4 ? "float32" : "float64",
              threads, cpu_model().c_str());
  std::printf("Phi_C would take %.2f GB; median of %d passes\n\n", double(n) * double(pool) * sizeof(T) / 1e9, passes);
  std::printf("| mode | SIMD | setup s | reset pass ms | scoring pass ms | vs stored |\n|---|---|---:|---:|---:|---:|\n");
  const Timing stored = time_passes(p, threads, true, rbf::cpu::best_simd_variant(), passes);
  std::printf("| stored | - | %.3f | %.2f | %.2f | 1.00 |\n", stored.setup_s, stored.reset_ms, stored.pass_ms);
  for (rbf::cpu::SimdVariant v : rbf::cpu::supported_simd_variants()) {
    const Timing free = time_passes(p, threads, false, v, passes);
    std::printf("| matrix-free | %s | %.3f | %.2f | %.2f | %.2f |\n", rbf::cpu::simd_variant_name(v), free.setup_s,
                free.reset_ms, free.pass_ms, stored.pass_ms > 0 ? free.pass_ms / stored.pass_ms : 0.0);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  const std::size_t n = static_cast<std::size_t>(arg(1, 20000));
  const std::size_t d = static_cast<std::size_t>(arg(2, 20));
  const std::size_t pool = std::min(n, static_cast<std::size_t>(arg(3, 1000)));
  const int threads = rbf::cpu::resolve_threads(static_cast<int>(arg(4, 0)));
  const std::string precision = argc > 5 ? argv[5] : "float32";
  const int passes = static_cast<int>(arg(6, 7));
  if (precision == "float64") {
    run<double>(n, d, pool, threads, passes);
  } else {
    run<float>(n, d, pool, threads, passes);
  }
  return 0;
}
