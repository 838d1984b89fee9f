// The GPU's matrix-free scoring pass against a float64 reference computed on the host: every
// kernel variant, d across both tensor-core kernels and beyond them, sizes off every block.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "data/split.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "tests/gpu_test_buffers.hpp"
#include "tests/parity_support.hpp"

namespace {

using rbf::gpu::Buffer;
using rbf::gpu::Placement;
using rbf::test::download;
using rbf::test::upload;

struct Case {
  int n, count, d;
  double units = 1.0;    // features and centers in these units (widths scaled to match)
  double outlier = 1.0;  // the first row's features are this many times larger
};

// Standardized features; centers at training rows, nudged; widths around sqrt(d) / 2.
struct HostProblem {
  std::vector<double> xt, centers, gamma, v;
  int n, npad, count, d;
};

HostProblem make_host_problem(const Case& c, std::uint64_t seed) {
  HostProblem p;
  p.n = c.n;
  p.npad = static_cast<int>((c.n + rbf::gpu::kRowPadding - 1) / rbf::gpu::kRowPadding * rbf::gpu::kRowPadding);
  p.count = c.count;
  p.d = c.d;
  rbf::data::SplitMix64 rng(seed);
  p.xt.assign(static_cast<std::size_t>(p.npad) * c.d, 0.0);
  for (int f = 0; f < c.d; ++f)
    for (int i = 0; i < c.n; ++i)
      p.xt[static_cast<std::size_t>(f) * p.npad + i] = static_cast<float>(c.units * (3.4 * rng.uniform() - 1.7));
  for (int f = 0; f < c.d; ++f) p.xt[static_cast<std::size_t>(f) * p.npad] *= c.outlier;
  for (int k = 0; k < c.count; ++k) {
    // Not at the outlier: there ||x||^2 + ||c||^2 - 2 x.c cancels to float's rounding of
    // ||x||^2 in every kernel (and to double's in the reference's).
    const int row = 1 + static_cast<int>(rng.uniform() * (c.n - 1)) % (c.n - 1);
    for (int f = 0; f < c.d; ++f)
      p.centers.push_back(
          static_cast<float>(p.xt[static_cast<std::size_t>(f) * p.npad + row] + c.units * 0.1 * (rng.uniform() - 0.5)));
    const double sigma = c.units * std::sqrt(static_cast<double>(c.d)) / 2 * (0.5 + 1.5 * rng.uniform());
    p.gamma.push_back(static_cast<float>(1.0 / (2 * sigma * sigma)));
  }
  p.v.assign(p.npad, 0.0);
  for (int i = 0; i < c.n; ++i) p.v[i] = static_cast<float>(2 * rng.uniform() - 1);
  return p;
}

// z_c = sum_i phi_ic v_i, its scale sum_i |phi_ic v_i|, and sum_i phi_ic^2, in float64.
struct Reference {
  std::vector<double> z, scale, square;
};

Reference reference(const HostProblem& p) {
  Reference r;
  for (int c = 0; c < p.count; ++c) {
    double z = 0, scale = 0, square = 0;
    for (int i = 0; i < p.n; ++i) {
      double d2 = 0;
      for (int f = 0; f < p.d; ++f) {
        const double diff = p.xt[static_cast<std::size_t>(f) * p.npad + i] - p.centers[static_cast<std::size_t>(c) * p.d + f];
        d2 += diff * diff;
      }
      const double phi = std::exp(-p.gamma[c] * d2);
      z += phi * p.v[i];
      scale += std::fabs(phi * p.v[i]);
      square += phi * phi;
    }
    r.z.push_back(z);
    r.scale.push_back(scale);
    r.square.push_back(square);
  }
  return r;
}

rbf::gpu::MatrixFreeRange range(const HostProblem& p) {
  rbf::gpu::MatrixFreeRange r;
  for (int i = 0; i < p.n; ++i) {
    double norm2 = 0, max_abs = 0;
    for (int f = 0; f < p.d; ++f) {
      const double v = p.xt[static_cast<std::size_t>(f) * p.npad + i];
      norm2 += v * v;
      max_abs = std::max(max_abs, std::fabs(v));
    }
    r.add_row(max_abs, norm2);
  }
  for (int c = 0; c < p.count; ++c) {
    double max_abs = 0;
    for (int f = 0; f < p.d; ++f) max_abs = std::max(max_abs, std::fabs(p.centers[static_cast<std::size_t>(c) * p.d + f]));
    r.add_candidate(max_abs, p.gamma[c]);
  }
  return r;
}

// Runs one pass with `plan` (one scale for all operands where they allow it, unless
// unit_scale is false) and checks z and the squares against the reference.
template <typename T>
void check_pass(const rbf::gpu::Context& ctx, const HostProblem& p, const Reference& ref,
                rbf::gpu::MatrixFreePlan plan, double tolerance, bool unit_scale = true) {
  double norm2 = 0;
  for (int f = 0; f < p.d; ++f)
    for (int i = 0; i < p.n; ++i) norm2 += p.xt[static_cast<std::size_t>(f) * p.npad + i] * p.xt[static_cast<std::size_t>(f) * p.npad + i];
  plan.norm_shift = rbf::gpu::matrix_free_norm_shift(norm2 / p.n);
  if (unit_scale) rbf::gpu::matrix_free_choose_scale(plan, range(p), p.d);
  const int padded_count = rbf::gpu::matrix_free_padded_count(p.count);
  const Buffer<T> xt = upload<T>(ctx, p.xt, "x"), centers = upload<T>(ctx, p.centers, "centers");
  const Buffer<T> gamma = upload<T>(ctx, p.gamma, "gamma"), v = upload<T>(ctx, p.v, "v");
  Buffer<T> rows(ctx, static_cast<std::size_t>(p.npad) * plan.row_floats, Placement::device, "rows");
  Buffer<T> cands(ctx, static_cast<std::size_t>(padded_count) * plan.candidate_floats, Placement::device, "candidates");
  Buffer<T> partial(ctx, static_cast<std::size_t>(p.count) * plan.splits, Placement::device, "partial");
  Buffer<T> square(ctx, static_cast<std::size_t>(p.count) * plan.splits, Placement::device, "square");
  Buffer<T> z(ctx, p.count, Placement::device, "z"), s(ctx, p.count, Placement::device, "s");
  const cudaStream_t stream = ctx.stream();
  RBF_CUDA_CHECK(rbf::gpu::launch_matrix_free_rows<T>(xt.get(), p.npad, p.n, p.npad, p.d, plan, rows.get(), stream));
  RBF_CUDA_CHECK(
      rbf::gpu::launch_matrix_free_candidates<T>(centers.get(), gamma.get(), p.count, p.d, plan, cands.get(), stream));
  const rbf::gpu::MatrixFreePass<T> pass{rows.get(),    cands.get(),  p.n,         p.npad,
                                         p.count,       p.d,          v.get(),     partial.get(),
                                         square.get(),  plan.splits,  plan.rows_per_split};
  RBF_CUDA_CHECK(rbf::gpu::launch_matrix_free_pass<T>(pass, plan, stream));
  RBF_CUDA_CHECK(rbf::gpu::launch_sum_splits<T>(partial.get(), plan.splits, p.count, z.get(), stream));
  RBF_CUDA_CHECK(rbf::gpu::launch_sum_splits<T>(square.get(), plan.splits, p.count, s.get(), stream));
  ctx.synchronize();
  const std::vector<double> zg = download(z, p.count), sg = download(s, p.count);
  double worst_z = 0, worst_s = 0;
  for (int c = 0; c < p.count; ++c) {
    worst_z = std::max(worst_z, std::fabs(zg[c] - ref.z[c]) / ref.scale[c]);
    worst_s = std::max(worst_s, std::fabs(sg[c] - ref.square[c]) / ref.square[c]);
  }
  CHECK(worst_z < tolerance);
  CHECK(worst_s < tolerance);
}

template <typename T>
void check_all_variants(double tolerance) {
  RBF_SKIP_WITHOUT_GPU();
  rbf::gpu::Context ctx(0, rbf::model::GpuMemory::device);
  // d = 1..31 covers one to six k-steps of the register tensor-core kernel; 32 to 1024 take
  // the K-tiled one, its candidate operand resident in shared memory (to d ~ 100) or streamed
  // (128, 784), and 1025 only runs on CUDA cores. Units far from 1 check that the tensor cores'
  // FP16 operands are scaled into range (1e5 would overflow FP16, 1e-4 would fall into its
  // subnormals), and an outlier row, which moves the operands' norm shift, keeps the other
  // rows exact. Counts off 128 leave the K-tiled kernel's last block part empty.
  for (const Case& c : {Case{1000, 300, 20}, Case{130, 7, 1}, Case{700, 513, 5}, Case{640, 260, 14},
                        Case{900, 100, 30}, Case{500, 70, 31}, Case{600, 90, 20, 1e5}, Case{600, 90, 11, 1e-4},
                        Case{800, 120, 20, 1.0, 1e3},
                        Case{333, 45, 41}, Case{200, 33, 70}, Case{700, 300, 32}, Case{650, 129, 64},
                        Case{400, 260, 100}, Case{300, 140, 128}, Case{130, 40, 784}, Case{70, 9, 1025},
                        Case{500, 150, 64, 1e5}, Case{500, 150, 100, 1e-4}, Case{600, 200, 64, 1.0, 1e3}}) {
    CAPTURE(c.n);
    CAPTURE(c.count);
    CAPTURE(c.d);
    CAPTURE(c.units);
    CAPTURE(c.outlier);
    const HostProblem p = make_host_problem(c, 17 + static_cast<std::uint64_t>(c.d));
    const Reference ref = reference(p);
    const rbf::gpu::MatrixFreePlan plan = rbf::gpu::plan_matrix_free<T>(p.npad, p.count, p.d, ctx.device());
    // A float32 exponent sums d squared differences, and its rounding bound grows with d: past
    // d = 256 the CUDA cores' float32 phi errs beyond 1e-5 (1.8e-5 seen at d = 784). The tensor
    // cores' split FP16 with an IEEE add per chunk stays within the tolerance at every d.
    const double cuda_core_tolerance = tolerance * std::max(1.0, c.d / 256.0);
    const double planned_tolerance = plan.tensor_cores ? tolerance : cuda_core_tolerance;
    {
      INFO("the planned kernel, tensor cores: " << plan.tensor_cores);
      check_pass<T>(ctx, p, ref, plan, planned_tolerance);
    }
    if (plan.tensor_cores) {
      INFO("tensor cores, a scale per row and candidate group");
      check_pass<T>(ctx, p, ref, plan, tolerance, false);
    }
    {
      INFO("CUDA cores");
      check_pass<T>(ctx, p, ref, rbf::gpu::plan_matrix_free<T>(p.npad, p.count, p.d, ctx.device(), false),
                    cuda_core_tolerance);
    }
    // More row splits than the plan's: the sums must not depend on them beyond rounding.
    INFO("one row tile per split");
    rbf::gpu::MatrixFreePlan many = plan;
    many.rows_per_split = rbf::gpu::kMatrixFreeRows;
    many.splits = p.npad / rbf::gpu::kMatrixFreeRows;
    check_pass<T>(ctx, p, ref, many, planned_tolerance);
  }
}

}  // namespace

TEST_CASE("gpu matrix-free pass: one scale for all operands only where FP16's range allows it") {
  rbf::gpu::MatrixFreePlan plan;
  plan.tensor_cores = true;
  rbf::gpu::MatrixFreeRange range;
  SUBCASE("zero operands") {
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK(plan.unit_scale);
    CHECK(plan.unit_exponent == 0);
  }
  SUBCASE("standardized rows, widths near sqrt(d)") {
    range.add_row(3.0, 40.0);
    range.add_candidate(2.5, 0.1);
    plan.norm_shift = rbf::gpu::matrix_free_norm_shift(20.0);
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK(plan.unit_scale);
    CHECK(std::abs(plan.unit_exponent) <= 4);
  }
  SUBCASE("features in units of 1e5: the rows are scaled down, the candidates up") {
    range.add_row(3e5, 40e10);
    range.add_candidate(2.5e5, 0.1e-10);
    plan.norm_shift = rbf::gpu::matrix_free_norm_shift(20e10);
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK(plan.unit_scale);
    CHECK(plan.unit_exponent < -12);
  }
  SUBCASE("an outlier row 1000 times the others: a scale per row and candidate group") {
    range.add_row(3.0, 40.0);
    range.add_row(3000.0, 4e7);
    range.add_candidate(2.5, 0.4);
    plan.norm_shift = 8;
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK_FALSE(plan.unit_scale);
  }
  SUBCASE("entries beyond FP16's range: a scale per row and candidate group") {
    range.add_row(1e6, 1e12);
    range.add_candidate(1e6, 10.0);
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK_FALSE(plan.unit_scale);
  }
  SUBCASE("a non-finite range") {
    range.add_row(3.0, std::numeric_limits<double>::infinity());
    range.add_candidate(2.5, 0.1);
    rbf::gpu::matrix_free_choose_scale(plan, range, 20);
    CHECK_FALSE(plan.unit_scale);
  }
}

// Float: each z within 1e-5 of sum |phi v| (the float64 value's scale), which the scoring
// pass needs for s_c = sum z^2 against the dependency tolerance 1e-4 n_c.
TEST_CASE("gpu matrix-free pass: float within 1e-5 of float64, every variant" * doctest::test_suite("gpu")) { check_all_variants<float>(1e-5); }
TEST_CASE("gpu matrix-free pass: double within 1e-12 of the reference" * doctest::test_suite("gpu")) { check_all_variants<double>(1e-12); }
