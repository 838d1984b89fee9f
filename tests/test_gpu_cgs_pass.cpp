// CGS's first pass on the GPU against a float64 reference: u = phi - Q h, the blocks' shares
// of h2 = Q^T u summed by the reduction, ||u||^2, ||phi||^2 and the DGKS decision, for column
// counts on both sides of every register-tile limit and row counts with and without 128-row
// tiles and with the long tiles.
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

struct FirstPassCase {
  int padded_rows, cols;
};

template <typename T>
void check_first_pass(const rbf::gpu::Context& ctx, const FirstPassCase& c, double tolerance) {
  CAPTURE(c.padded_rows);
  CAPTURE(c.cols);
  const std::size_t n = static_cast<std::size_t>(c.padded_rows), cols = static_cast<std::size_t>(c.cols);
  rbf::data::SplitMix64 rng(static_cast<std::uint64_t>(n * 1000 + cols));
  // Columns of about unit norm, as Q's are; h and phi of the size CGS sees.
  const double scale = 1.0 / std::sqrt(static_cast<double>(n));
  std::vector<double> q(n * cols), h(cols), phi(n);
  for (double& v : q) v = static_cast<T>(scale * (2 * rng.uniform() - 1) * std::sqrt(3.0));
  for (double& v : h) v = static_cast<T>(2 * rng.uniform() - 1);
  for (double& v : phi) v = static_cast<T>(2 * rng.uniform() - 1);

  // Reference, in double from the T-rounded inputs.
  std::vector<double> u(phi), qh_abs(n, 0.0);
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      u[i] -= q[j * n + i] * h[j];
      qh_abs[i] += std::abs(q[j * n + i] * h[j]);
    }
  std::vector<double> h2(cols, 0.0), h2_abs(cols, 0.0);
  double nu2 = 0, np2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    nu2 += u[i] * u[i];
    np2 += phi[i] * phi[i];
  }
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      h2[j] += q[j * n + i] * u[i];
      h2_abs[j] += std::abs(q[j * n + i]) * (std::abs(u[i]) + qh_abs[i] * tolerance);
    }

  const int blocks = rbf::gpu::cgs_blocks(c.padded_rows);
  const std::size_t slots = 4 * static_cast<std::size_t>(std::max(blocks, rbf::gpu::kReduceBlocks));
  const Buffer<T> qd = rbf::test::upload<T>(ctx, q, "Q"), hd = rbf::test::upload<T>(ctx, h, "h");
  const Buffer<T> phid = rbf::test::upload<T>(ctx, phi, "phi");
  Buffer<T> ud(ctx, n, Placement::device, "u"), h2d(ctx, cols, Placement::device, "h2");
  Buffer<T> partial(ctx, cols * static_cast<std::size_t>(blocks), Placement::device, "partial");
  Buffer<double> values(ctx, slots, Placement::device, "values"), results(ctx, 16, Placement::device, "results");
  Buffer<long long> indices(ctx, slots, Placement::device, "indices");
  Buffer<unsigned int> tickets(ctx, rbf::gpu::kTicketCount, Placement::device, "tickets");
  const rbf::gpu::ReduceScratch scratch{values.get(), indices.get(), tickets.get()};
  const cudaStream_t stream = ctx.stream();
  // On the kernels' stream: a plain cudaMemset goes to the legacy stream, which the context's
  // non-blocking stream does not wait for.
  RBF_CUDA_CHECK(cudaMemsetAsync(tickets.get(), 0, rbf::gpu::kTicketCount * sizeof(unsigned int), stream));
  // ratio2 = 4 > ||u||^2 / ||phi||^2 always: DGKS asks for the second projection.
  RBF_CUDA_CHECK(rbf::gpu::launch_cgs_subtract<T>(qd.get(), n, c.cols, hd.get(), phid.get(), ud.get(), c.padded_rows,
                                                  nullptr, 4.0, scratch, results.get(), partial.get(), stream));
  RBF_CUDA_CHECK(rbf::gpu::launch_cgs_reduce<T>(partial.get(), c.padded_rows, c.cols, results.get(), h2d.get(), stream));
  RBF_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> ug = rbf::test::download(ud, n), h2g = rbf::test::download(h2d, cols);
  const std::vector<double> rg = rbf::test::download(results, 16);

  double u_err = 0, h2_err = 0;
  for (std::size_t i = 0; i < n; ++i)
    u_err = std::max(u_err, std::abs(ug[i] - u[i]) / (std::abs(phi[i]) + qh_abs[i]));
  for (std::size_t j = 0; j < cols; ++j) h2_err = std::max(h2_err, std::abs(h2g[j] - h2[j]) / h2_abs[j]);
  CHECK(u_err <= tolerance);
  CHECK(h2_err <= 4 * tolerance);
  CHECK(std::abs(rg[rbf::gpu::kNormU2] - nu2) <= tolerance * nu2);
  CHECK(std::abs(rg[rbf::gpu::kNormPhi2] - np2) <= tolerance * np2);
  CHECK(rg[rbf::gpu::kReorthogonalize] == 1.0);
}

template <typename T>
void check_first_pass_cases(double tolerance) {
  RBF_SKIP_WITHOUT_GPU();
  rbf::gpu::Context ctx(0, rbf::model::GpuMemory::device);
  // 1216 rows: 64-row tiles only; 1280: 128-row tiles; 131072: the long tiles of the
  // column-split pass. Columns 63/64, 128/129, 256/257 and 512/513 straddle the register tiles'
  // limits (below 64 columns the column-split pass runs).
  const FirstPassCase cases[] = {{1216, 1},   {1216, 7},   {1216, 63},   {1280, 64},  {1280, 128},  {1280, 129}, {1216, 128},
                                 {1216, 256}, {1280, 257}, {1216, 300},  {1280, 512}, {1216, 513},
                                 {131072, 100}, {131072, 300}, {131072, 520}};
  for (const FirstPassCase& c : cases) check_first_pass<T>(ctx, c, tolerance);
}

}  // namespace

TEST_CASE("gpu CGS first pass: float within float rounding of float64, every tile variant" * doctest::test_suite("gpu")) {
  check_first_pass_cases<float>(1e-5);
}
TEST_CASE("gpu CGS first pass: double within 1e-12 of the reference" * doctest::test_suite("gpu")) { check_first_pass_cases<double>(1e-12); }
