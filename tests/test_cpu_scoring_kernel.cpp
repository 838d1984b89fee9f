// The CPU matrix-free scoring kernel (cpu/gaussian_scoring_kernel.hpp) in every SIMD variant this
// machine runs, against a float64 reference of z = phi^T q, n = ||phi||^2 and g = phi^T E, on
// sizes that are no multiple of any block, with candidates left out as the pass leaves out used ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/gaussian_scoring_kernel.hpp"
#include "cpu/matrix_free_layout.hpp"
#include "cpu/simd_variant.hpp"

using rbf::cpu::SimdVariant;

namespace {

struct KernelProblem {
  std::size_t n = 0, d = 0, count = 0, k = 0;
  std::vector<double> x;        // n x d, column-major (as the backend holds X)
  std::vector<double> centers;  // count x d, row-major
  std::vector<double> gamma;    // count
  std::vector<double> q, e;     // n; n x k column-major
  std::vector<std::size_t> scored;  // the candidates not "used"
};

// Features around 3 (so the centering shift matters), centers from rows and from elsewhere,
// widths from very narrow (most Gaussians underflow) to very wide: sigma = sqrt(d) / 16 ... 4 sqrt(d).
KernelProblem make_kernel_problem(std::size_t n, std::size_t d, std::size_t count, std::size_t k) {
  KernelProblem p;
  p.n = n;
  p.d = d;
  p.count = count;
  p.k = k;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal;
  p.x.resize(n * d);
  for (double& v : p.x) v = 3.0 + normal(rng);
  for (std::size_t c = 0; c < count; ++c) {
    for (std::size_t f = 0; f < d; ++f)
      p.centers.push_back(c % 2 == 0 ? p.x[f * n + (c * 37) % n] : 3.0 + 1.5 * normal(rng));
    const double sigma = std::sqrt(static_cast<double>(d)) * std::pow(2.0, static_cast<double>(c % 7) - 4.0);
    p.gamma.push_back(1.0 / (2.0 * sigma * sigma));
  }
  p.q.resize(n);
  for (double& v : p.q) v = normal(rng) / std::sqrt(static_cast<double>(n));
  p.e.resize(n * k);
  for (double& v : p.e) v = normal(rng);
  for (std::size_t c = 0; c < count; ++c)
    if (c % 5 != 3) p.scored.push_back(c);  // every fifth candidate is "used"
  return p;
}

struct Reference {
  std::vector<double> z, n, g;        // per scored candidate
  std::vector<double> z_scale, g_scale;  // sum |phi q|, sum |phi e_j|: what rounding is relative to
  std::vector<double> spread;  // gamma_c (max_i ||x_i - m||^2 + ||c - m||^2), m the mean row
};

Reference reference(const KernelProblem& p) {
  Reference r;
  std::vector<double> mean(p.d, 0.0);
  for (std::size_t f = 0; f < p.d; ++f) {
    for (std::size_t i = 0; i < p.n; ++i) mean[f] += p.x[f * p.n + i] / static_cast<double>(p.n);
  }
  double max_row = 0;
  for (std::size_t i = 0; i < p.n; ++i) {
    double s = 0;
    for (std::size_t f = 0; f < p.d; ++f) s += (p.x[f * p.n + i] - mean[f]) * (p.x[f * p.n + i] - mean[f]);
    max_row = std::max(max_row, s);
  }
  for (std::size_t c : p.scored) {
    double s = 0;
    for (std::size_t f = 0; f < p.d; ++f) s += (p.centers[c * p.d + f] - mean[f]) * (p.centers[c * p.d + f] - mean[f]);
    r.spread.push_back(p.gamma[c] * (max_row + s));
  }
  for (std::size_t c : p.scored) {
    double z = 0, nn = 0, zs = 0;
    std::vector<double> g(p.k, 0.0), gs(p.k, 0.0);
    for (std::size_t i = 0; i < p.n; ++i) {
      double dist = 0;
      for (std::size_t f = 0; f < p.d; ++f) {
        const double diff = p.x[f * p.n + i] - p.centers[c * p.d + f];
        dist += diff * diff;
      }
      const double phi = std::exp(-p.gamma[c] * dist);
      z += phi * p.q[i];
      zs += std::abs(phi * p.q[i]);
      nn += phi * phi;
      for (std::size_t j = 0; j < p.k; ++j) {
        g[j] += phi * p.e[j * p.n + i];
        gs[j] += std::abs(phi * p.e[j * p.n + i]);
      }
    }
    r.z.push_back(z);
    r.z_scale.push_back(zs);
    r.n.push_back(nn);
    r.g.insert(r.g.end(), g.begin(), g.end());
    r.g_scale.insert(r.g_scale.end(), gs.begin(), gs.end());
  }
  return r;
}

template <typename T>
struct KernelRun {
  std::vector<double> z, n, g;
};

// Scores p.scored with the kernel in tiles of `tile` candidates; statistics when `statistics`.
template <typename T>
KernelRun<T> run_kernel(SimdVariant v, const KernelProblem& p, std::size_t tile, bool statistics) {
  const std::vector<T> x(p.x.begin(), p.x.end()), centers(p.centers.begin(), p.centers.end());
  const std::vector<T> gamma(p.gamma.begin(), p.gamma.end());
  const rbf::cpu::MatrixFreeLayout<T> layout =
      rbf::cpu::make_matrix_free_layout(x.data(), p.n, p.d, centers.data(), p.count);
  const std::size_t np = layout.rows_padded;
  REQUIRE(np % rbf::cpu::kGaussianRowPadding == 0);
  REQUIRE(np >= p.n);
  std::vector<T> q(np, T(0)), e(np * p.k, T(0));
  for (std::size_t i = 0; i < p.n; ++i) q[i] = static_cast<T>(p.q[i]);
  for (std::size_t j = 0; j < p.k; ++j)
    for (std::size_t i = 0; i < p.n; ++i) e[j * np + i] = static_cast<T>(p.e[j * p.n + i]);

  KernelRun<T> out;
  const std::size_t m = p.scored.size();
  out.z.assign(m, -1.0);
  out.n.assign(m, -1.0);
  out.g.assign(m * p.k, -1.0);
  for (std::size_t first = 0; first < m; first += tile) {
    rbf::cpu::GaussianTile<T> t;
    t.x = layout.x.data();
    t.x_norm = layout.x_norm.data();
    t.rows_padded = np;
    t.d = p.d;
    t.centers = layout.centers.data();
    t.center_norm = layout.center_norm.data();
    t.gamma = gamma.data();
    t.candidates = p.scored.data() + first;
    t.tile = std::min(tile, m - first);
    t.q = q.data();
    t.e = statistics ? e.data() : nullptr;
    t.k = p.k;
    t.z = out.z.data() + first;
    t.n = out.n.data() + first;
    t.g = out.g.data() + first * p.k;
    rbf::cpu::score_gaussian_tile(v, t);
  }
  return out;
}

template <typename T>
void check_kernel(SimdVariant v, std::size_t n, std::size_t d, std::size_t count, std::size_t k) {
  const std::string variant = rbf::cpu::simd_variant_name(v);
  CAPTURE(variant);
  CAPTURE(n);
  CAPTURE(d);
  const KernelProblem p = make_kernel_problem(n, d, count, k);
  const Reference ref = reference(p);
  // Each Gaussian's error bound, relative to its value: the float distance
  // ||x||^2 + ||c||^2 - 2 x.c is off by a few eps (||x||^2 + ||c||^2), which the exp multiplies
  // by gamma (the spread; 4 eps per unit of it covers the worst case seen with margin), plus
  // the exp's own 2 ulp and the sums' rounding (1e-6 float, 1e-14 double). Errors in z and g are
  // relative to the sums of magnitudes, since q and E have both signs. For the trainer's usual
  // widths (sigma of the order of the distance between rows) the spread is below 10, and the
  // bound is within 1e-5 relative for float, which the last check states on its own.
  const double eps = std::numeric_limits<T>::epsilon();
  const double sum_tol = sizeof(T) == 4 ? 1e-6 : 1e-14;
  // Terms below the type's smallest normal number (1e-38 in float) are flushed or lost: sums
  // of them, over a few thousand rows, stay below this.
  const double floor = sizeof(T) == 4 ? 1e-30 : 1e-290;
  const KernelRun<T> got = run_kernel<T>(v, p, 13, true);
  std::size_t usual = 0;
  for (std::size_t s = 0; s < p.scored.size(); ++s) {
    CAPTURE(p.scored[s]);
    CAPTURE(ref.spread[s]);
    const double tol = sum_tol + 4 * eps * ref.spread[s];
    CHECK(std::abs(got.z[s] - ref.z[s]) <= tol * ref.z_scale[s] + floor);
    CHECK(std::abs(got.n[s] - ref.n[s]) <= 2 * tol * ref.n[s] + floor);  // phi^2: twice phi's error
    for (std::size_t j = 0; j < p.k; ++j)
      CHECK(std::abs(got.g[s * k + j] - ref.g[s * k + j]) <= tol * ref.g_scale[s * k + j] + floor);
    if (ref.spread[s] <= 10) {
      ++usual;
      CHECK(std::abs(got.z[s] - ref.z[s]) <= 1e-5 * ref.z_scale[s]);
      CHECK(std::abs(got.n[s] - ref.n[s]) <= 1e-5 * ref.n[s]);
    }
  }
  CHECK(usual > 0);
  // z alone (the pass after each new node) is the same computation, and the grouping of
  // candidates into calls changes nothing: results depend on row and candidate indices only.
  const KernelRun<T> z_only = run_kernel<T>(v, p, 5, false);
  const KernelRun<T> one_call = run_kernel<T>(v, p, p.scored.size(), true);
  CHECK(z_only.z == got.z);
  CHECK(one_call.z == got.z);
  CHECK(one_call.n == got.n);
  CHECK(one_call.g == got.g);
}

}  // namespace

TEST_CASE_TEMPLATE("cpu simd: the matrix-free scoring kernel matches a float64 reference in every variant", T, float,
                   double) {
  for (SimdVariant v : rbf::cpu::supported_simd_variants()) {
    check_kernel<T>(v, 777, 7, 41, 3);   // rows, features, candidates: no multiple of a block
    check_kernel<T>(v, 1300, 1, 12, 1);  // one feature; rows across several row blocks
    check_kernel<T>(v, 130, 33, 9, 2);   // wide rows: row blocks of the minimum size
  }
}

TEST_CASE("cpu simd: padding rows and far candidates give Gaussians of exactly 0") {
  // One real row at the origin, the rest padding; a candidate 100 widths away: every term is 0.
  for (SimdVariant v : rbf::cpu::supported_simd_variants()) {
    const std::string variant = rbf::cpu::simd_variant_name(v);
  CAPTURE(variant);
    KernelProblem p;
    p.n = 1;
    p.d = 2;
    p.count = 2;
    p.k = 1;
    p.x = {0.0, 0.0};
    p.centers = {0.0, 0.0, 100.0, 0.0};
    p.gamma = {0.5, 0.5};
    p.q = {1.0};
    p.e = {2.0};
    p.scored = {0, 1};
    const KernelRun<float> got = run_kernel<float>(v, p, 2, true);
    CHECK(got.z[0] == 1.0);  // the one real row, at the center: exp(0) exactly
    CHECK(got.n[0] == 1.0);
    CHECK(got.g[0] == 2.0);
    CHECK(got.z[1] == 0.0);
    CHECK(got.n[1] == 0.0);
  }
}
