// Lazy CGS2's kernels on the GPU against a float64 reference: the first pass finishing a
// pending column (q = (u - Q g) / ||q||, E -= q a^T) before projecting phi, the close that
// takes ||q'|| = sqrt(||u'||^2 - ||h2||^2), a and h without reading Q again, and the settle
// kernel that finishes a pending column alone. Row and column counts cover the column-split
// pass, every register tile and the long tiles.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/split.hpp"
#include "gpu/cgs_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "tests/gpu_test_buffers.hpp"
#include "tests/parity_support.hpp"

namespace {

using rbf::gpu::Buffer;
using rbf::gpu::Placement;

struct LazyCase {
  int padded_rows, cols, k;
};

// An orthonormal basis of `cols` columns (modified Gram-Schmidt twice, in double).
std::vector<double> orthonormal_columns(std::size_t n, std::size_t cols, rbf::data::SplitMix64& rng) {
  std::vector<double> q(n * cols);
  for (double& v : q) v = 2 * rng.uniform() - 1;
  for (std::size_t j = 0; j < cols; ++j) {
    double* c = q.data() + j * n;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < j; ++i) {
        const double* b = q.data() + i * n;
        double d = 0;
        for (std::size_t r = 0; r < n; ++r) d += b[r] * c[r];
        for (std::size_t r = 0; r < n; ++r) c[r] -= d * b[r];
      }
    double s = 0;
    for (std::size_t r = 0; r < n; ++r) s += c[r] * c[r];
    for (std::size_t r = 0; r < n; ++r) c[r] /= std::sqrt(s);
  }
  return q;
}

template <typename T>
struct LazyDevice {
  LazyDevice(const rbf::gpu::Context& ctx, std::size_t n, std::size_t cols, int blocks)
      : values(ctx, 4 * static_cast<std::size_t>(std::max(blocks, rbf::gpu::kReduceBlocks)) * 8, Placement::device,
               "values"),
        results(ctx, 64 + cols, Placement::device, "results"),
        indices(ctx, 16, Placement::device, "indices"),
        tickets(ctx, rbf::gpu::kTicketCount, Placement::device, "tickets"),
        partial(ctx, cols * static_cast<std::size_t>(blocks), Placement::device, "partial"),
        u(ctx, n, Placement::device, "u"),
        h2(ctx, cols, Placement::device, "h2") {}
  rbf::gpu::ReduceScratch scratch() const { return {values.get(), indices.get(), tickets.get()}; }
  Buffer<double> values, results;
  Buffer<long long> indices;
  Buffer<unsigned int> tickets;
  Buffer<T> partial, u, h2;
};

template <typename T>
void check_lazy(const rbf::gpu::Context& ctx, const LazyCase& c, double tolerance) {
  CAPTURE(c.padded_rows);
  CAPTURE(c.cols);
  CAPTURE(c.k);
  const std::size_t n = static_cast<std::size_t>(c.padded_rows), cols = static_cast<std::size_t>(c.cols);
  const std::size_t k = static_cast<std::size_t>(c.k), last = cols - 1;
  rbf::data::SplitMix64 rng(static_cast<std::uint64_t>(n * 977 + cols * 13 + k));
  // The finished basis, T-rounded; the pending column stored as u = ||q|| q + Q_{<last} g.
  std::vector<double> q = orthonormal_columns(n, cols, rng);
  for (double& v : q) v = static_cast<T>(v);
  const double norm = 0.3;
  std::vector<double> g(last), stored(q);
  for (double& v : g) v = static_cast<T>(1e-3 * (2 * rng.uniform() - 1));
  for (std::size_t i = 0; i < n; ++i) {
    double v = norm * q[last * n + i];
    for (std::size_t j = 0; j < last; ++j) v += q[j * n + i] * g[j];
    stored[last * n + i] = static_cast<T>(v);
  }
  std::vector<double> e(n * k), a(k), h1(cols), phi(n);
  for (double& v : e) v = static_cast<T>(2 * rng.uniform() - 1);
  for (double& v : a) v = 2 * rng.uniform() - 1;
  for (double& v : h1) v = static_cast<T>(2 * rng.uniform() - 1);
  for (double& v : phi) v = static_cast<T>(2 * rng.uniform() - 1);

  // Reference: E after the pending column, u' = phi - Q h1, h2 = Q^T u', ||q'||, a', h.
  std::vector<double> e_new(e), u(phi);
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < n; ++i) e_new[j * n + i] -= q[last * n + i] * a[j];
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < n; ++i) u[i] -= q[j * n + i] * h1[j];
  std::vector<double> h2(cols, 0.0), ue(k, 0.0);
  double nu2 = 0, n2 = 0;
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < n; ++i) h2[j] += q[j * n + i] * u[i];
  for (std::size_t i = 0; i < n; ++i) nu2 += u[i] * u[i];
  for (double v : h2) n2 += v * v;
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < n; ++i) ue[j] += u[i] * e_new[j * n + i];
  const double q_norm = std::sqrt(nu2 - n2);

  const int blocks = rbf::gpu::cgs_blocks(c.padded_rows);
  const cudaStream_t stream = ctx.stream();
  std::vector<double> results_host(64 + cols, 0.0);
  results_host[rbf::gpu::kNormU] = norm;
  for (std::size_t j = 0; j < k; ++j) results_host[rbf::gpu::kResultA + j] = a[j];
  const int h_offset = rbf::gpu::kResultA + c.k;

  {  // the first pass and the close
    LazyDevice<T> dev(ctx, n, cols, blocks);
    Buffer<T> qd = rbf::test::upload<T>(ctx, stored, "Q"), ed = rbf::test::upload<T>(ctx, e, "E");
    const Buffer<T> gd = rbf::test::upload<T>(ctx, g, "g"), h1d = rbf::test::upload<T>(ctx, h1, "h1");
    const Buffer<T> phid = rbf::test::upload<T>(ctx, phi, "phi");
    Buffer<double> rd = rbf::test::upload<double>(ctx, results_host, "results");
    RBF_CUDA_CHECK(cudaMemsetAsync(dev.tickets.get(), 0, rbf::gpu::kTicketCount * sizeof(unsigned int), stream));
    rbf::gpu::LazyCgs<T> lazy;
    lazy.e = ed.get();
    lazy.lde = n;
    lazy.k = c.k;
    lazy.pending = qd.get() + last * n;
    lazy.g = gd.get();
    RBF_CUDA_CHECK(rbf::gpu::launch_cgs_subtract<T>(qd.get(), n, c.cols, h1d.get(), phid.get(), dev.u.get(),
                                                    c.padded_rows, nullptr, 0.5, dev.scratch(), rd.get(),
                                                    dev.partial.get(), stream, lazy));
    RBF_CUDA_CHECK(rbf::gpu::launch_cgs_lazy_close<T>(dev.partial.get(), c.padded_rows, c.cols, h1d.get(),
                                                      dev.h2.get(), c.k, 1e-12, dev.scratch(), rd.get(), h_offset,
                                                      stream));
    RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> qg = rbf::test::download(qd, n * cols), eg = rbf::test::download(ed, n * k);
    const std::vector<double> ug = rbf::test::download(dev.u, n), rg = rbf::test::download(rd, 64 + cols);
    double q_err = 0, e_err = 0, u_err = 0, h_err = 0;
    for (std::size_t i = 0; i < n * cols; ++i) q_err = std::max(q_err, std::abs(qg[i] - q[i]) * std::sqrt(1.0 * n));
    for (std::size_t i = 0; i < n * k; ++i) e_err = std::max(e_err, std::abs(eg[i] - e_new[i]));
    for (std::size_t i = 0; i < n; ++i) u_err = std::max(u_err, std::abs(ug[i] - u[i]) / (1 + std::abs(u[i])));
    for (std::size_t j = 0; j < cols; ++j) h_err = std::max(h_err, std::abs(rg[h_offset + j] - (h1[j] + h2[j])));
    CHECK(q_err <= 10 * tolerance);  // the pending column finished, the others untouched
    CHECK(e_err <= 10 * tolerance);
    CHECK(u_err <= 10 * tolerance * std::sqrt(static_cast<double>(cols)));
    CHECK(h_err <= 10 * tolerance * std::sqrt(static_cast<double>(n)));
    CHECK(rg[rbf::gpu::kReorthogonalize] == 1.0);
    CHECK(rg[rbf::gpu::kDependent] == 0.0);
    CHECK(std::abs(rg[rbf::gpu::kNormU] - q_norm) <= 10 * tolerance * q_norm);
    for (std::size_t j = 0; j < k; ++j)
      CHECK(std::abs(rg[rbf::gpu::kResultA + j] - ue[j] / q_norm) <= 100 * tolerance * (1 + std::abs(ue[j] / q_norm)));
  }
  {  // the settle kernel
    LazyDevice<T> dev(ctx, n, cols, blocks);
    Buffer<T> qd = rbf::test::upload<T>(ctx, stored, "Q"), ed = rbf::test::upload<T>(ctx, e, "E");
    const Buffer<T> gd = rbf::test::upload<T>(ctx, g, "g");
    Buffer<double> rd = rbf::test::upload<double>(ctx, results_host, "results");
    RBF_CUDA_CHECK(cudaMemsetAsync(dev.tickets.get(), 0, rbf::gpu::kTicketCount * sizeof(unsigned int), stream));
    RBF_CUDA_CHECK(rbf::gpu::launch_cgs_settle<T>(qd.get(), n, c.cols - 1, gd.get(), qd.get() + last * n,
                                                  c.padded_rows, ed.get(), n, c.k, dev.scratch(), rd.get(), stream));
    RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> qg = rbf::test::download(qd, n * cols), eg = rbf::test::download(ed, n * k);
    const std::vector<double> rg = rbf::test::download(rd, 64 + cols);
    double q_err = 0, e_err = 0, e2 = 0;
    for (std::size_t i = 0; i < n * cols; ++i) q_err = std::max(q_err, std::abs(qg[i] - q[i]) * std::sqrt(1.0 * n));
    for (std::size_t i = 0; i < n * k; ++i) {
      e_err = std::max(e_err, std::abs(eg[i] - e_new[i]));
      e2 += e_new[i] * e_new[i];
    }
    CHECK(q_err <= 10 * tolerance);
    CHECK(e_err <= 10 * tolerance);
    CHECK(std::abs(rg[rbf::gpu::kResidualNorm2] - e2) <= 10 * tolerance * e2);
  }
}

template <typename T>
void check_lazy_cases(double tolerance) {
  RBF_SKIP_WITHOUT_GPU();
  rbf::gpu::Context ctx(0, rbf::model::GpuMemory::device);
  // Columns 2..63 take the column-split pass; 64..512 the register tiles (float); 131072 rows
  // the long tiles.
  const LazyCase cases[] = {{1216, 2, 1},    {1216, 7, 3},   {1280, 63, 1},    {1280, 64, 2},    {1216, 129, 1},
                            {1280, 300, 16}, {1216, 513, 1}, {131072, 40, 1}, {131072, 100, 2}};
  for (const LazyCase& c : cases) check_lazy<T>(ctx, c, tolerance);
}

}  // namespace

TEST_CASE("gpu lazy CGS2: float within float rounding of float64, every tile variant" * doctest::test_suite("gpu")) { check_lazy_cases<float>(2e-6); }
TEST_CASE("gpu lazy CGS2: double within 1e-13 of the reference" * doctest::test_suite("gpu")) { check_lazy_cases<double>(1e-13); }
