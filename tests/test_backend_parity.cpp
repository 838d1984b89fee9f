// Backend parity suite: one body of checks run on every backend built in ("cpu" always,
// "gpu" in CUDA builds), each against a plain float64 reference, plus GPU-against-CPU runs.
// GPU cases print "SKIPPED: no CUDA device" and return when no device is present; ctest
// reports them as skipped.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "model/contracts/gpu_entry_points.hpp"
#include "model/contracts/backend.hpp"
#include "model/config.hpp"
#include "model/contracts/cpu_entry_points.hpp"
#include "tests/parity_support.hpp"

using rbf::model::Backend;

namespace {

constexpr double kTol = 1e-4;  // dependency tolerance, as the trainer's default

// A small, well-conditioned regression problem with a candidate pool laid out as the trainer
// does: candidate c = row_index * widths + width_index.
struct Problem {
  std::size_t n = 0, d = 0, k = 0, nv = 0;
  std::vector<double> x, y, xv;           // row-major
  std::vector<double> centers, widths;    // count x d, count
  std::vector<std::size_t> rows;          // count
  std::size_t count() const { return widths.size(); }
};

// Uses features 0 to 3 of the row's d, wrapping around when d < 4: reading x[3] of a 3-feature
// row would read the next row, or past the end of the matrix for the last one.
double target(const double* x, std::size_t d, std::size_t j) {
  return std::sin(2.0 * x[0] + 0.3 * static_cast<double>(j)) + x[1 % d] * x[2 % d] + 0.5 * std::cos(3.0 * x[3 % d]);
}

// `duplicate`: the second half of the pool repeats the first half exactly, so equal scores
// occur and the lowest index must win.
Problem make_problem(std::size_t n, std::size_t d, std::size_t k, std::size_t nv, std::size_t pool,
                     std::uint64_t seed, bool duplicate = false) {
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

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// What a growth run produced: chosen candidates, ||E||^2 after each node, validation
// predictions of the final model, and the basis coefficients.
struct Growth {
  std::vector<std::size_t> chosen;
  std::vector<double> sse;
  std::vector<double> predictions;
};

// Solves R W = theta (R upper triangular, given by columns) for the output weights.
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

template <typename T>
void load(Backend<T>& b, const Problem& p, double budget_bytes) {
  const auto x = as<T>(p.x), y = as<T>(p.y), xv = as<T>(p.xv);
  const auto centers = as<T>(p.centers), widths = as<T>(p.widths);
  b.set_training_data(x.data(), p.n, p.d, y.data(), p.k);
  b.set_validation_data(xv.data(), p.nv);
  b.set_candidates(centers.data(), widths.data(), p.rows.data(), p.count(), budget_bytes);
}

// Continues OLS growth by `nodes` nodes; returns the chosen candidates and ||E||^2 after each.
template <typename T>
Growth extend(Backend<T>& b, std::size_t nodes) {
  Growth g;
  std::vector<double> a, h;
  while (g.chosen.size() < nodes) {
    const rbf::model::Selection sel = b.select_ols(0.0, kTol);
    REQUIRE(sel.found);
    if (b.add_node(sel.index, kTol, h) <= 0) continue;
    g.sse.push_back(b.update(true, a));
    g.chosen.push_back(sel.index);
    b.add_validation_column(sel.index);
  }
  return g;
}

// The trainer's loop, reduced to what the parity checks need.
template <typename T>
Growth grow(Backend<T>& b, const Problem& p, std::size_t nodes, double budget_bytes,
            bool* stored = nullptr) {
  load(b, p, budget_bytes);
  if (stored != nullptr) *stored = b.candidates_stored();
  std::vector<double> a, h;
  b.reset_to_bias(a);
  std::vector<std::vector<double>> r{{std::sqrt(static_cast<double>(p.n))}};
  std::vector<double> theta(a);
  Growth g;
  while (g.chosen.size() < nodes) {
    const rbf::model::Selection sel = b.select_ols(0.0, kTol);
    REQUIRE(sel.found);
    const double norm = b.add_node(sel.index, kTol, h);
    if (norm <= 0) continue;
    g.sse.push_back(b.update(true, a));
    h.push_back(norm);
    r.push_back(h);
    theta.insert(theta.end(), a.begin(), a.end());
    g.chosen.push_back(sel.index);
    b.add_validation_column(sel.index);
  }
  const std::vector<double> w = solve_weights(r, theta, p.k);
  b.predict_validation(w.data(), g.chosen.size(), g.predictions);
  return g;
}

// Plain float64 OLS forward selection with explicit CGS2: the reference every backend meets.
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

using rbf::test::relative;
using rbf::test::relative_difference;

template <typename T>
std::unique_ptr<Backend<T>> make(const std::string& which,
                                 rbf::model::GpuMemory memory = rbf::model::GpuMemory::auto_select) {
  if (which == "cpu") return rbf::cpu::make_backend<T>(rbf::model::CpuOptions{2});
  rbf::model::GpuOptions options;
  options.memory = memory;
  return rbf::gpu::make_backend<T>(rbf::gpu::open_context(options), options);
}

constexpr double kStoreAll = 1e15;

// ---- The body shared by every backend -----------------------------------------------------

template <typename T>
void check_against_reference(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(1000, 5, 1, 300, 120, 11);
  const Growth ref = reference_growth(p, 50);
  auto b = make<T>(which);
  CHECK(b->name() == which);
  CHECK(b->kind() == (which == "cpu" ? rbf::model::BackendKind::cpu : rbf::model::BackendKind::gpu));
  bool stored = false;
  const Growth g = grow(*b, p, 50, kStoreAll, &stored);
  CHECK(stored);
  CHECK(b->nodes() == 50);
  CHECK(b->memory_bytes() > 0);
  CHECK(g.chosen == ref.chosen);
  for (std::size_t t = 0; t < g.sse.size(); ++t) {
    CAPTURE(t);
    CHECK(relative(g.sse[t], ref.sse[t]) < 1e-4);
  }
  CHECK(relative_difference(g.predictions, ref.predictions) < 1e-4);
}

template <typename T>
void check_matrix_free(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(1500, 4, 2, 200, 100, 5);
  auto stored_backend = make<T>(which);
  auto free_backend = make<T>(which);
  bool stored = false, free_stored = true;
  const Growth a = grow(*stored_backend, p, 30, kStoreAll, &stored);
  const Growth f = grow(*free_backend, p, 30, 0.0, &free_stored);
  CHECK(stored);
  CHECK_FALSE(free_stored);
  CHECK(a.chosen == f.chosen);
  for (std::size_t t = 0; t < a.sse.size(); ++t) CHECK(relative(f.sse[t], a.sse[t]) < 1e-6);
  CHECK(relative_difference(f.predictions, a.predictions) < 1e-6);
  const Growth ref = reference_growth(p, 30);
  CHECK(f.chosen == ref.chosen);
}

template <typename T>
void check_ties_and_dependence(const std::string& which) {
  CAPTURE(which);
  // Every candidate has an exact twin at index + count/2: the lower index must win every tie,
  // and once chosen its twin is dependent and never selected.
  const Problem p = make_problem(800, 4, 1, 0, 80, 3, true);
  const std::size_t half = p.count() / 2;
  auto b = make<T>(which);
  const Growth g = grow(*b, p, 20, kStoreAll);
  for (std::size_t c : g.chosen) CHECK(c < half);

  // add_node on a twin of a chosen node: dependent, Q unchanged, h all zeros.
  std::vector<double> h;
  const std::size_t before = b->nodes();
  const double norm = b->add_node(g.chosen.front() + half, kTol, h);
  CHECK(norm == 0.0);
  CHECK(b->nodes() == before);
  CHECK(h.size() == before + 1);
  CHECK(std::all_of(h.begin(), h.end(), [](double v) { return v == 0.0; }));
  CHECK_THROWS_AS(b->add_node(g.chosen.front(), kTol, h), rbf::RuntimeError);
}

template <typename T>
void check_max_residual_and_marks(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(600, 3, 2, 0, 50, 9);
  auto b = make<T>(which);
  const auto x = as<T>(p.x), y = as<T>(p.y), centers = as<T>(p.centers), widths = as<T>(p.widths);
  b->set_training_data(x.data(), p.n, p.d, y.data(), p.k);
  b->set_validation_data(nullptr, 0);
  b->set_candidates(centers.data(), widths.data(), p.rows.data(), p.count(), kStoreAll);
  std::vector<double> a;
  b->reset_to_bias(a);
  REQUIRE(a.size() == 2);
  // Standardized targets: q0^T y = sqrt(n) * mean = 0.
  CHECK(std::abs(a[0]) < 1e-3);
  const rbf::model::Selection fresh_ols = b->select_ols(0.0, kTol);  // nothing marked yet

  // Max-residual on the bias-only model: E = Y - mean, so the largest ||y_row||^2.
  auto best_row_score = [&](const std::vector<unsigned char>& used) {
    long best = -1;
    double score = -1;
    for (std::size_t c = 0; c < p.count(); ++c) {
      if (used[c]) continue;
      double s = 0;
      for (std::size_t j = 0; j < p.k; ++j) {
        double mean = 0;
        for (std::size_t i = 0; i < p.n; ++i) mean += p.y[i * p.k + j];
        mean /= static_cast<double>(p.n);
        const double v = p.y[p.rows[c] * p.k + j] - mean;
        s += v * v;
      }
      if (best < 0 || s > score) {
        best = static_cast<long>(c);
        score = s;
      }
    }
    return std::make_pair(best, score);
  };
  std::vector<unsigned char> used(p.count(), 0);
  rbf::model::Selection sel = b->select_max_residual();
  auto expect = best_row_score(used);
  REQUIRE(sel.found);
  CHECK(static_cast<long>(sel.index) == expect.first);
  CHECK(relative(sel.score, expect.second) < 1e-5);

  // Marked candidates are never selected, by either rule; all marked: nothing found.
  b->mark_used(sel.index);
  used[sel.index] = 1;
  sel = b->select_max_residual();
  expect = best_row_score(used);
  CHECK(static_cast<long>(sel.index) == expect.first);
  const rbf::model::Selection ols = b->select_ols(0.0, kTol);
  REQUIRE(ols.found);
  b->mark_used(ols.index);
  CHECK(b->select_ols(0.0, kTol).index != ols.index);
  for (std::size_t c = 0; c < p.count(); ++c) b->mark_used(c);
  CHECK_FALSE(b->select_ols(0.0, kTol).found);
  CHECK_FALSE(b->select_max_residual().found);

  // reset_to_bias clears the marks and starts over identically.
  std::vector<double> a2;
  b->reset_to_bias(a2);
  CHECK(a2 == a);
  CHECK(b->nodes() == 0);
  CHECK(b->select_ols(0.0, kTol).index == fresh_ols.index);
}

template <typename T>
void check_multi_output(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(700, 6, 3, 150, 90, 21);
  const Growth ref = reference_growth(p, 25);
  auto b = make<T>(which);
  const Growth g = grow(*b, p, 25, kStoreAll);
  CHECK(g.chosen == ref.chosen);
  CHECK(relative(g.sse.back(), ref.sse.back()) < 1e-4);
  CHECK(relative_difference(g.predictions, ref.predictions) < 1e-4);
}

// GPU against CPU on the same data and seed.
template <typename T>
void check_gpu_against_cpu(std::size_t n, std::size_t d, std::size_t pool) {
  const Problem p = make_problem(n, d, 1, 400, pool, 17);
  auto cpu = make<T>("cpu");
  auto gpu = make<T>("gpu");
  const Growth c = grow(*cpu, p, 50, kStoreAll);
  const Growth g = grow(*gpu, p, 50, kStoreAll);
  CHECK(g.chosen == c.chosen);
  CHECK(relative(std::sqrt(g.sse.back()), std::sqrt(c.sse.back())) < 1e-4);
  CHECK(relative_difference(g.predictions, c.predictions) < 1e-4);
  // A smaller dependency tolerance brings back candidates the GPU had set aside as dependent.
  const rbf::model::Selection sc = cpu->select_ols(0.0, kTol / 4), sg = gpu->select_ols(0.0, kTol / 4);
  REQUIRE(sc.found == sg.found);
  if (sc.found) CHECK(relative(sg.score, sc.score) < 1e-2);
  CHECK(gpu->select_ols(0.0, kTol).index == cpu->select_ols(0.0, kTol).index);
}

// ---- Nodes given by center and width (add_node_at) --------------------------------------

// add_node(c) against add_node_at(c's center, c's width): the same column, so the same model.
// Only CGS2's first projection h1 = Q^T phi differs in rounding (add_node reads it from the
// projection history, add_node_at computes it), hence a relative tolerance rather than bit
// equality: 1e-12 for double (a few ulps, amplified by ||phi|| / ||u|| at most 1e2 under the
// dependency tolerance), 1e-4 for float as elsewhere in this file.
template <typename T>
double node_at_tolerance() {
  return sizeof(T) == sizeof(double) ? 1e-12 : 1e-4;
}

// A center halfway between two training rows and a width no candidate has.
template <typename T>
void off_pool_node(const Problem& p, std::vector<T>& center, T& width) {
  const std::size_t r1 = p.rows[0], r2 = p.rows[2];
  center.resize(p.d);
  for (std::size_t f = 0; f < p.d; ++f) center[f] = static_cast<T>(0.5 * (p.x[r1 * p.d + f] + p.x[r2 * p.d + f]));
  width = static_cast<T>(0.53 * (p.widths[0] + p.widths[1]));
}

// Fixed output weights ((columns + 1) x k, row-major) for comparing validation columns.
std::vector<double> test_weights(std::size_t columns, std::size_t k) {
  std::vector<double> w((columns + 1) * k);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.3 * std::sin(1.7 * static_cast<double>(i) + 0.2);
  return w;
}

template <typename T>
void check_node_at_matches_add_node(const std::string& which, double budget) {
  CAPTURE(which);
  CAPTURE(budget);
  const Problem p = make_problem(1200, 4, 2, 150, 60, 13);
  const auto centers = as<T>(p.centers), widths = as<T>(p.widths);
  const double tol = node_at_tolerance<T>();
  auto by_index = make<T>(which);
  auto by_center = make<T>(which);
  load(*by_index, p, budget);
  load(*by_center, p, budget);
  CHECK(by_index->candidates_stored() == (budget > 0));
  CHECK(by_center->candidates_stored() == (budget > 0));
  std::vector<double> a1, a2, h1, h2;
  by_index->reset_to_bias(a1);
  by_center->reset_to_bias(a2);
  CHECK(a1 == a2);
  rbf::model::Selection s1 = by_index->select_ols(0.0, kTol), s2 = by_center->select_ols(0.0, kTol);
  for (std::size_t node = 0; node < 12; ++node) {
    CAPTURE(node);
    REQUIRE(s1.found);
    REQUIRE(s2.found);
    REQUIRE(s2.index == s1.index);
    CHECK(relative(s2.score, s1.score) < tol);
    const std::size_t c = s1.index;
    const T* center = &centers[c * p.d];
    // Every third node by index on both: the history that add_node reads must have stayed
    // consistent through the add_node_at nodes before it.
    const bool at = node % 3 != 2;
    const double n1 = by_index->add_node(c, kTol, h1);
    const double n2 = at ? by_center->add_node_at(center, widths[c], kTol, h2) : by_center->add_node(c, kTol, h2);
    REQUIRE(n1 > 0);
    CHECK(relative(n2, n1) < tol);
    CHECK(relative_difference(h2, h1) < tol);
    CHECK(by_center->nodes() == node + 1);
    CHECK(by_index->nodes() == node + 1);
    const double e1 = by_index->update(true, a1), e2 = by_center->update(true, a2);
    CHECK(relative(e2, e1) < tol);
    CHECK(relative_difference(a2, a1) < tol);
    by_index->add_validation_column(c);
    if (at)
      by_center->add_validation_column_at(center, widths[c]);
    else
      by_center->add_validation_column(c);
    // A candidate whose column is a node's is dependent, used or not: the same next pick.
    s1 = by_index->select_ols(0.0, kTol);
    s2 = by_center->select_ols(0.0, kTol);
  }
  REQUIRE(s1.found);
  REQUIRE(s2.found);
  CHECK(s2.index == s1.index);
  CHECK(relative(s2.score, s1.score) < tol);
  // The validation columns are evaluated identically: the same weights give the same
  // predictions bit for bit.
  const std::vector<double> w = test_weights(12, p.k);
  std::vector<double> v1, v2;
  by_index->predict_validation(w.data(), 12, v1);
  by_center->predict_validation(w.data(), 12, v2);
  CHECK(v2 == v1);
}

template <typename T>
void check_node_at_stored(const std::string& which) { check_node_at_matches_add_node<T>(which, kStoreAll); }
template <typename T>
void check_node_at_tiles(const std::string& which) { check_node_at_matches_add_node<T>(which, 0.0); }

template <typename T>
void check_node_at_marks_nothing(const std::string& which, double budget) {
  CAPTURE(which);
  CAPTURE(budget);
  const Problem p = make_problem(700, 3, 1, 50, 40, 29);
  const auto centers = as<T>(p.centers), widths = as<T>(p.widths);
  auto b = make<T>(which);
  const Growth g = grow(*b, p, 5, budget);
  CHECK(b->candidates_stored() == (budget > 0));
  std::vector<double> h, a;

  // A chosen node's center and width: dependent, Q unchanged, h all zeros.
  const std::size_t c0 = g.chosen.front();
  CHECK(b->add_node_at(&centers[c0 * p.d], widths[c0], kTol, h) == 0.0);
  CHECK(b->nodes() == 5);
  CHECK(h.size() == 6);
  CHECK(std::all_of(h.begin(), h.end(), [](double v) { return v == 0.0; }));

  // An off-pool node joins Q and marks no candidate.
  std::vector<T> center;
  T width = 0;
  off_pool_node(p, center, width);
  CHECK(b->add_node_at(center.data(), width, kTol, h) > 0.0);
  CHECK(h.size() == 6);
  CHECK(b->nodes() == 6);
  b->update(true, a);
  b->add_validation_column_at(center.data(), width);
  rbf::model::BackendState<T> state;
  b->export_state(state);
  CHECK(state.basis == 7);
  CHECK(state.val_columns == 6);
  for (std::size_t c = 0; c < p.count(); ++c) {
    CAPTURE(c);
    const bool chosen = std::find(g.chosen.begin(), g.chosen.end(), c) != g.chosen.end();
    CHECK(state.used[c] == (chosen ? 1 : 0));
  }

  // A node at an unchosen candidate's center and width leaves that candidate available:
  // add_node on it does not throw, and finds it dependent.
  std::size_t c2 = p.count();
  for (std::size_t c = 0; c < p.count() && c2 == p.count(); ++c)
    if (state.used[c] == 0 && p.rows[c] != p.rows[0] && p.rows[c] != p.rows[2]) c2 = c;
  REQUIRE(c2 < p.count());
  CHECK(b->add_node_at(&centers[c2 * p.d], widths[c2], kTol, h) > 0.0);
  CHECK(b->nodes() == 7);
  b->update(true, a);
  CHECK(b->add_node(c2, kTol, h) == 0.0);
  CHECK(b->nodes() == 7);

  // Every other candidate is still selectable: with all but one marked, both rules find it
  // (a narrow one, far from independent of the model's nodes).
  std::size_t c1 = p.count();
  for (std::size_t c = p.count(); c-- > 0 && c1 == p.count();)
    if (state.used[c] == 0 && c != c2 && p.rows[c] != p.rows[c2] && p.rows[c] != p.rows[0] &&
        p.rows[c] != p.rows[2] && p.widths[c] == p.widths[0])
      c1 = c;
  REQUIRE(c1 < p.count());
  for (std::size_t c = 0; c < p.count(); ++c)
    if (c != c1) b->mark_used(c);
  const rbf::model::Selection ols = b->select_ols(0.0, kTol);
  REQUIRE(ols.found);
  CHECK(ols.index == c1);
  const rbf::model::Selection res = b->select_max_residual();
  REQUIRE(res.found);
  CHECK(res.index == c1);
}

template <typename T>
void check_node_at_marks_nothing_stored(const std::string& which) { check_node_at_marks_nothing<T>(which, kStoreAll); }
template <typename T>
void check_node_at_marks_nothing_tiles(const std::string& which) { check_node_at_marks_nothing<T>(which, 0.0); }

// GPU against CPU for a node no candidate has: the same h, ||u||, a and ||E||^2, the same
// selections afterwards (so the history after it is consistent) and validation columns.
template <typename T>
void check_off_pool_gpu_against_cpu(double budget) {
  CAPTURE(budget);
  const Problem p = make_problem(1500, 5, 2, 300, 80, 23);
  auto cpu = make<T>("cpu");
  auto gpu = make<T>("gpu");
  const Growth gc = grow(*cpu, p, 10, budget);
  const Growth gg = grow(*gpu, p, 10, budget);
  REQUIRE(gg.chosen == gc.chosen);
  std::vector<T> center;
  T width = 0;
  off_pool_node(p, center, width);
  std::vector<double> hc, hg, ac, ag;
  const double nc = cpu->add_node_at(center.data(), width, kTol, hc);
  const double ng = gpu->add_node_at(center.data(), width, kTol, hg);
  REQUIRE(nc > 0);
  CHECK(relative(ng, nc) < 1e-4);
  CHECK(relative_difference(hg, hc) < 1e-4);
  CHECK(gpu->nodes() == 11);
  CHECK(cpu->nodes() == 11);
  const double sse_before = gc.sse.back();
  const double ec = cpu->update(true, ac), eg = gpu->update(true, ag);
  CHECK(relative(eg, ec) < 1e-4);
  // a = q^T E: its error scales with ||E||, not with a (which may be small for this node).
  REQUIRE(ag.size() == ac.size());
  for (std::size_t j = 0; j < ac.size(); ++j) CHECK(std::abs(ag[j] - ac[j]) <= 1e-4 * std::sqrt(sse_before));
  cpu->add_validation_column_at(center.data(), width);
  gpu->add_validation_column_at(center.data(), width);
  const rbf::model::Selection sc = cpu->select_ols(0.0, kTol), sg = gpu->select_ols(0.0, kTol);
  REQUIRE(sc.found);
  REQUIRE(sg.found);
  CHECK(sg.index == sc.index);
  CHECK(relative(sg.score, sc.score) < 1e-2);
  // Growth continues with add_node, which reads the projection history.
  const Growth c2 = extend(*cpu, 5);
  const Growth g2 = extend(*gpu, 5);
  CHECK(g2.chosen == c2.chosen);
  CHECK(relative(g2.sse.back(), c2.sse.back()) < 1e-4);
  const std::vector<double> w = test_weights(16, p.k);
  std::vector<double> vc, vg;
  cpu->predict_validation(w.data(), 16, vc);
  gpu->predict_validation(w.data(), 16, vg);
  CHECK(relative_difference(vg, vc) < 1e-4);
}

}  // namespace

// ---- One body per backend built in ------------------------------------------------------

#define RBF_CPU_CASE(title, body) \
  TEST_CASE_TEMPLATE("cpu backend: " title, T, float, double) { body<T>("cpu"); }

#ifdef RBF_TEST_GPU
#define RBF_BACKEND_CASES(title, body) \
  RBF_CPU_CASE(title, body)            \
  TEST_CASE_TEMPLATE("gpu backend: " title, T, float, double) { RBF_SKIP_WITHOUT_GPU(); body<T>("gpu"); }
#else
#define RBF_BACKEND_CASES(title, body) RBF_CPU_CASE(title, body)
#endif

RBF_BACKEND_CASES("50 nodes match the float64 reference", check_against_reference)
RBF_BACKEND_CASES("matrix-free candidates match stored ones", check_matrix_free)
RBF_BACKEND_CASES("ties go to the lowest index; dependent candidates are skipped", check_ties_and_dependence)
RBF_BACKEND_CASES("max-residual selection, used marks and reset", check_max_residual_and_marks)
RBF_BACKEND_CASES("several outputs match the float64 reference", check_multi_output)
RBF_BACKEND_CASES("add_node_at a candidate center and width matches add_node, stored", check_node_at_stored)
RBF_BACKEND_CASES("add_node_at a candidate center and width matches add_node, tiles", check_node_at_tiles)
RBF_BACKEND_CASES("add_node_at marks no candidate, stored", check_node_at_marks_nothing_stored)
RBF_BACKEND_CASES("add_node_at marks no candidate, tiles", check_node_at_marks_nothing_tiles)

#ifdef RBF_TEST_GPU
TEST_CASE_TEMPLATE("gpu vs cpu: same 50 nodes, RMSE and predictions within 1e-4", T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  check_gpu_against_cpu<T>(2000, 8, 200);
  check_gpu_against_cpu<T>(1200, 20, 150);
}

TEST_CASE_TEMPLATE("gpu vs cpu: an off-pool node gives the same basis, statistics and validation column", T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  check_off_pool_gpu_against_cpu<T>(kStoreAll);
  check_off_pool_gpu_against_cpu<T>(0.0);
}

TEST_CASE_TEMPLATE("gpu backend: mapped host memory gives the device path's results", T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(900, 5, 1, 100, 80, 31);
  auto device = make<T>("gpu", rbf::model::GpuMemory::device);
  auto mapped = make<T>("gpu", rbf::model::GpuMemory::mapped);
  const Growth a = grow(*device, p, 20, kStoreAll);
  const Growth b = grow(*mapped, p, 20, kStoreAll);
  CHECK(a.chosen == b.chosen);
  CHECK(a.sse == b.sse);
  CHECK(a.predictions == b.predictions);
  // Matrix-free reads X through the mapping on every pass.
  auto mapped_free = make<T>("gpu", rbf::model::GpuMemory::mapped);
  const Growth c = grow(*mapped_free, p, 20, 0.0);
  CHECK(c.chosen == a.chosen);
}

TEST_CASE_TEMPLATE("gpu backend: the trainer state moves between CPU and GPU mid-growth", T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(1000, 5, 1, 200, 100, 41);
  auto cpu = make<T>("cpu");
  grow(*cpu, p, 15, kStoreAll);
  rbf::model::BackendState<T> state;
  cpu->export_state(state);
  // CPU -> GPU (the automatic switch), then both continue identically.
  auto gpu = make<T>("gpu");
  load(*gpu, p, kStoreAll);
  gpu->import_state(state);
  CHECK(gpu->nodes() == 15);
  const Growth c1 = extend(*cpu, 15);
  const Growth g1 = extend(*gpu, 15);
  CHECK(g1.chosen == c1.chosen);
  CHECK(relative(g1.sse.back(), c1.sse.back()) < 1e-4);
  // GPU -> CPU (the fault fallback).
  gpu->export_state(state);
  CHECK(state.basis == 31);
  CHECK(state.val_columns == 30);
  auto cpu2 = make<T>("cpu");
  load(*cpu2, p, kStoreAll);
  cpu2->import_state(state);
  const Growth c2 = extend(*cpu2, 10);
  const Growth g2 = extend(*gpu, 10);
  CHECK(c2.chosen == g2.chosen);
  CHECK(relative(c2.sse.back(), g2.sse.back()) < 1e-4);
}

TEST_CASE("gpu backend: device errors are clear rbf::gpu errors") {
  RBF_SKIP_WITHOUT_GPU();
  rbf::model::GpuOptions options;
  options.device = 1000;
  CHECK_THROWS_AS(rbf::gpu::open_context(options), rbf::InputError);

  // More rows than any device holds: refused before anything is read or allocated.
  auto b = make<float>("gpu");
  const float x[4] = {0, 0, 0, 0};
  try {
    b->set_training_data(x, std::size_t{1} << 30, 512, x, 1);
    FAIL("expected an out-of-memory error");
  } catch (const rbf::model::DeviceError& e) {
    const std::string what = e.what();
    CHECK(what.find("out of GPU memory") != std::string::npos);
    CHECK(what.find("training data") != std::string::npos);
  }
  // The backend stays usable after the refusal.
  const Problem p = make_problem(500, 3, 1, 0, 40, 2);
  CHECK(grow(*b, p, 5, kStoreAll).chosen.size() == 5);

  const rbf::gpu::DeviceReport report = rbf::gpu::query_devices();
  REQUIRE_FALSE(report.devices.empty());
  CHECK_FALSE(report.devices.front().name.empty());
  CHECK(report.devices.front().total_memory > 0);
  CHECK(report.runtime_version > 0);
}
#endif
