// Loss of orthogonality of Q after a long float32 growth: ||Q^T Q - I|| and how often CGS projected twice.
//
//   orthogonality_bench [N] [D] [POOL] [NODES] [BACKEND] [THREADS] [WIDTHS]
//   (defaults 8000 10 1500 2000 cpu 0 3; BACKEND cpu, gpu or gpu-half, the GPU with Q in half
//   precision)
//
// Grows NODES nodes by OLS (dependency tolerance 1e-4, the trainer's default) on Friedman #1
// with POOL candidate rows times WIDTHS widths (0.5, 1, 2, 4 ... times 2, the standardized
// data's scale), then reads Q back and reports the largest |(Q^T Q - I)_ij| (what the parity
// suite bounds by 1e-4 at a few hundred nodes), the Frobenius norm, and the share of nodes
// whose CGS took the second projection. Too slow for the default test run; its figures go
// to docs/BENCHMARKS.md.
#include <Eigen/Dense>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "data/scaler.hpp"
#include "data/synthetic.hpp"
#include "contracts/backend.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "contracts/gpu_entry_points.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<rbf::model::Backend<float>> make(const std::string& which, int threads) {
  if (which == "cpu") return rbf::cpu::make_backend<float>(rbf::model::CpuOptions{threads});
  rbf::model::GpuOptions options;
  if (which == "gpu-half") options.basis = rbf::model::GpuBasis::half;
  return rbf::gpu::make_backend<float>(rbf::gpu::open_context(options), options);
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  const std::size_t n = static_cast<std::size_t>(arg(1, 8000));
  const std::size_t d = static_cast<std::size_t>(arg(2, 10));
  const std::size_t pool = static_cast<std::size_t>(arg(3, 1500));
  const std::size_t nodes = static_cast<std::size_t>(arg(4, 2000));
  const std::string which = argc > 5 ? argv[5] : "cpu";
  const int threads = static_cast<int>(arg(6, 0));
  const std::size_t widths = static_cast<std::size_t>(arg(7, 3));
  const double tol = 1e-4;
  if (pool > n || widths == 0) {
    std::fprintf(stderr, "orthogonality_bench: POOL must be <= N and WIDTHS >= 1\n");
    return 2;
  }

  rbf::data::Dataset ds = rbf::data::make_friedman1(n, d, 1.0, 3);
  const auto scaler = rbf::data::Standardizer::fit(ds.x.data(), ds.rows, ds.features);
  scaler.transform(ds.x.data(), ds.rows);
  const std::vector<float> x(ds.x.begin(), ds.x.end()), y(ds.y.begin(), ds.y.end());
  std::vector<float> centers, width;
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < pool; ++r)
    for (std::size_t w = 0; w < widths; ++w) {
      rows.push_back(r);
      width.push_back(static_cast<float>(std::ldexp(1.0, static_cast<int>(w))));  // 1, 2, 4 ...
      centers.insert(centers.end(), x.begin() + static_cast<long>(r * d), x.begin() + static_cast<long>((r + 1) * d));
    }

  auto b = make(which, threads);
  b->set_training_data(x.data(), n, d, y.data(), 1);
  b->set_validation_data(nullptr, 0);
  b->set_candidates(centers.data(), width.data(), rows.data(), rows.size(), {1e15});
  std::vector<double> a, h;
  b->reset_to_bias(a);
  const std::size_t reorth_before = b->reorthogonalizations();
  std::size_t calls = 0;
  const auto t0 = Clock::now();
  while (b->nodes() < nodes) {
    const rbf::model::Selection sel = b->select_ols(0.0, tol);
    if (!sel.found) break;
    ++calls;
    if (b->add_node(sel.index, tol, h) > 0) b->update(true, a);
  }
  const double grow_s = std::chrono::duration<double>(Clock::now() - t0).count();

  rbf::model::BackendState<float> state;
  b->export_state(state);
  const auto cols = static_cast<Eigen::Index>(state.basis);
  const Eigen::MatrixXd q =
      Eigen::Map<const Eigen::MatrixXf>(state.q.data(), static_cast<Eigen::Index>(n), cols).cast<double>();
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(cols, cols);
  g.selfadjointView<Eigen::Lower>().rankUpdate(q.transpose());
  g = g.selfadjointView<Eigen::Lower>();
  g -= Eigen::MatrixXd::Identity(cols, cols);
  const std::size_t reorth = b->reorthogonalizations() - reorth_before;
  std::printf("backend %s, float32, N = %zu, d = %zu, %zu candidates, %zu nodes in %.1f s (%zu CGS calls)\n",
              which.c_str(), n, d, rows.size(), b->nodes(), grow_s, calls);
  std::printf("second projection: %zu of %zu CGS calls (%.1f%%)\n", reorth, calls,
              calls > 0 ? 100.0 * static_cast<double>(reorth) / static_cast<double>(calls) : 0.0);
  std::printf("max |(Q^T Q - I)_ij| = %.3e, ||Q^T Q - I||_F = %.3e\n", g.cwiseAbs().maxCoeff(), g.norm());
  return 0;
}
