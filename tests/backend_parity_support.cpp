// The backend parity suite's test problem and its plain float64 reference growth.
#include "tests/backend_parity_support.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "data/split.hpp"

namespace rbf::test::parity {
namespace {

// Uses features 0 to 3 of the row's d, wrapping around when d < 4: reading x[3] of a 3-feature
// row would read the next row, or past the end of the matrix for the last one.
double target(const double* x, std::size_t d, std::size_t j) {
  return std::sin(2.0 * x[0] + 0.3 * static_cast<double>(j)) + x[1 % d] * x[2 % d] + 0.5 * std::cos(3.0 * x[3 % d]);
}

}  // namespace

Problem make_problem(std::size_t n, std::size_t d, std::size_t k, std::size_t nv, std::size_t pool,
                     std::uint64_t seed, bool duplicate) {
  Problem p;
  p.n = n;
  p.d = d;
  p.k = k;
  p.nv = nv;
  rbf::data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < (n + nv) * d; ++i) {
    const double v = (rng.uniform() * 2.0 - 1.0) * 1.7;
    (i < n * d ? p.x : p.xv).push_back(v);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j)
      p.y.push_back(target(&p.x[i * d], d, j) + 0.05 * rng.normal());
  for (std::size_t j = 0; j < k; ++j) {  // standardize each target
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mean += p.y[i * k + j];
    mean /= static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) var += (p.y[i * k + j] - mean) * (p.y[i * k + j] - mean);
    const double sd = std::sqrt(var / static_cast<double>(n));
    for (std::size_t i = 0; i < n; ++i) p.y[i * k + j] = (p.y[i * k + j] - mean) / sd;
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  const double sigma0 = std::sqrt(2.0 * static_cast<double>(d) * 1.7 * 1.7 / 3.0);
  const double factors[] = {0.35, 0.7};
  const std::size_t unique = duplicate ? pool / 2 : pool;
  for (std::size_t r = 0; r < pool; ++r) {
    const std::size_t row = order[r % unique];
    for (double f : factors) {
      p.rows.push_back(row);
      p.widths.push_back(f * sigma0);
      p.centers.insert(p.centers.end(), p.x.begin() + static_cast<long>(row * d),
                       p.x.begin() + static_cast<long>((row + 1) * d));
    }
  }
  return p;
}

std::vector<double> solve_weights(const std::vector<std::vector<double>>& r_columns,
                                  const std::vector<double>& theta, std::size_t k) {
  const std::size_t m = r_columns.size();
  std::vector<double> w(theta);
  for (std::size_t ii = m; ii-- > 0;) {
    for (std::size_t j = 0; j < k; ++j) {
      double v = w[ii * k + j];
      for (std::size_t c = ii + 1; c < m; ++c) v -= r_columns[c][ii] * w[c * k + j];
      w[ii * k + j] = v / r_columns[ii][ii];
    }
  }
  return w;
}

Growth reference_growth(const Problem& p, std::size_t nodes) {
  const std::size_t n = p.n, k = p.k, count = p.count();
  auto column = [&](const std::vector<double>& x, std::size_t rows, std::size_t c) {
    std::vector<double> phi(rows);
    const double gamma = 1.0 / (2.0 * p.widths[c] * p.widths[c]);
    for (std::size_t i = 0; i < rows; ++i) {
      double d2 = 0;
      for (std::size_t f = 0; f < p.d; ++f) {
        const double diff = x[i * p.d + f] - p.centers[c * p.d + f];
        d2 += diff * diff;
      }
      phi[i] = std::exp(-gamma * d2);
    }
    return phi;
  };
  auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  std::vector<std::vector<double>> phi(count), q;
  for (std::size_t c = 0; c < count; ++c) phi[c] = column(p.x, n, c);
  q.push_back(std::vector<double>(n, 1.0 / std::sqrt(static_cast<double>(n))));
  std::vector<std::vector<double>> e(k, std::vector<double>(n)), r{{std::sqrt(static_cast<double>(n))}};
  std::vector<double> theta;
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < n; ++i) e[j][i] = p.y[i * k + j];
    const double a = dot(q[0], e[j]);
    theta.push_back(a);
    for (std::size_t i = 0; i < n; ++i) e[j][i] -= a * q[0][i];
  }
  std::vector<double> nn(count), s(count), g(count * k);
  std::vector<unsigned char> used(count, 0);
  for (std::size_t c = 0; c < count; ++c) {
    nn[c] = dot(phi[c], phi[c]);
    const double z = dot(phi[c], q[0]);
    s[c] = z * z;
    for (std::size_t j = 0; j < k; ++j) g[c * k + j] = dot(phi[c], e[j]);
  }
  Growth out;
  while (out.chosen.size() < nodes) {
    long best = -1;
    double best_score = 0;
    for (std::size_t c = 0; c < count; ++c) {
      const double rest = nn[c] - s[c];
      if (used[c] || !(rest > kTol * nn[c])) continue;
      double g2 = 0;
      for (std::size_t j = 0; j < k; ++j) g2 += g[c * k + j] * g[c * k + j];
      const double score = g2 / rest;
      if (best < 0 || score > best_score) {
        best = static_cast<long>(c);
        best_score = score;
      }
    }
    REQUIRE(best >= 0);
    const auto c = static_cast<std::size_t>(best);
    used[c] = 1;
    std::vector<double> u = phi[c], h(q.size(), 0.0);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<double> hp(q.size());
      for (std::size_t j = 0; j < q.size(); ++j) hp[j] = dot(q[j], u);
      for (std::size_t j = 0; j < q.size(); ++j) {
        h[j] += hp[j];
        for (std::size_t i = 0; i < n; ++i) u[i] -= hp[j] * q[j][i];
      }
    }
    const double norm2 = dot(u, u);
    if (!(norm2 > kTol * nn[c])) continue;
    const double norm = std::sqrt(norm2);
    for (double& v : u) v /= norm;
    q.push_back(u);
    h.push_back(norm);
    r.push_back(h);
    double sse = 0;
    std::vector<double> a(k);
    for (std::size_t j = 0; j < k; ++j) {
      a[j] = dot(u, e[j]);
      theta.push_back(a[j]);
      for (std::size_t i = 0; i < n; ++i) e[j][i] -= a[j] * u[i];
      sse += dot(e[j], e[j]);
    }
    for (std::size_t cc = 0; cc < count; ++cc) {
      if (used[cc]) continue;
      const double z = dot(phi[cc], u);
      s[cc] += z * z;
      for (std::size_t j = 0; j < k; ++j) g[cc * k + j] -= z * a[j];
    }
    out.chosen.push_back(c);
    out.sse.push_back(sse);
  }
  const std::vector<double> w = solve_weights(r, theta, k);
  out.predictions.assign(p.nv * k, 0.0);
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < p.nv; ++i) out.predictions[i * k + j] = w[j];
  for (std::size_t t = 0; t < out.chosen.size(); ++t) {
    const std::vector<double> col = column(p.xv, p.nv, out.chosen[t]);
    for (std::size_t i = 0; i < p.nv; ++i)
      for (std::size_t j = 0; j < k; ++j) out.predictions[i * k + j] += col[i] * w[(t + 1) * k + j];
  }
  return out;
}

}  // namespace rbf::test::parity
