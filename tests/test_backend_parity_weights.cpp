// Weighted rows on every backend built in: a row of integer weight w is the row repeated w
// times. Growth with set_row_scale must pick the nodes that growth on the repeated rows picks,
// with the same output weights, so the same predictions, and sums of squares in proportion.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "tests/backend_parity_support.hpp"
#include "tests/parity_support.hpp"

using namespace rbf::test::parity;

namespace {

// Row i weighs 1, 2 or 3.
double row_weight(std::size_t i) { return static_cast<double>(1 + (i * 7) % 3); }

// The problem with row i repeated row_weight(i) times; candidates keep their centers and name
// the first copy of their row.
Problem repeated_rows(const Problem& p) {
  Problem r = p;
  r.x.clear();
  r.y.clear();
  std::vector<std::size_t> first_copy(p.n);
  for (std::size_t i = 0; i < p.n; ++i) {
    first_copy[i] = r.x.size() / p.d;
    for (std::size_t c = 0; c < static_cast<std::size_t>(row_weight(i)); ++c) {
      r.x.insert(r.x.end(), p.x.begin() + static_cast<std::ptrdiff_t>(i * p.d), p.x.begin() + static_cast<std::ptrdiff_t>((i + 1) * p.d));
      r.y.insert(r.y.end(), p.y.begin() + static_cast<std::ptrdiff_t>(i * p.k), p.y.begin() + static_cast<std::ptrdiff_t>((i + 1) * p.k));
    }
  }
  r.n = r.x.size() / p.d;
  for (std::size_t& row : r.rows) row = first_copy[row];
  return r;
}

template <typename T>
void check_weights_repeat_rows(const std::string& which, std::size_t d, double budget) {
  CAPTURE(which);
  CAPTURE(d);
  CAPTURE(budget);
  const Problem p = make_problem(500, d, 2, 40, 50, 31);
  const Problem rep = repeated_rows(p);
  // The trainer's scaling: weights of mean 1, so sum s_i^2 = n.
  const double scale = static_cast<double>(p.n) / static_cast<double>(rep.n);
  std::vector<T> s(p.n), y(p.n * p.k);
  for (std::size_t i = 0; i < p.n; ++i) {
    s[i] = static_cast<T>(std::sqrt(row_weight(i) * scale));
    for (std::size_t j = 0; j < p.k; ++j) y[i * p.k + j] = static_cast<T>(p.y[i * p.k + j]) * s[i];
  }
  auto weighted = make<T>(which);
  const auto x = as<T>(p.x), xv = as<T>(p.xv), centers = as<T>(p.centers), widths = as<T>(p.widths);
  weighted->set_training_data(x.data(), p.n, p.d, y.data(), p.k);
  weighted->set_row_scale(s.data());
  weighted->set_validation_data(xv.data(), p.nv);
  weighted->set_candidates(centers.data(), widths.data(), p.rows.data(), p.count(), {budget});
  auto repeated = make<T>(which);
  load(*repeated, rep, budget);
  CHECK(weighted->candidates_stored() == (budget > 0));

  constexpr std::size_t kNodes = 12;
  const Growth gw = grow_loaded(*weighted, kNodes, std::sqrt(static_cast<double>(p.n)), p.k);
  const Growth gr = grow_loaded(*repeated, kNodes, std::sqrt(static_cast<double>(rep.n)), p.k);
  const double tol = sizeof(T) == sizeof(double) ? 1e-9 : 2e-3;
  CHECK(gw.chosen == gr.chosen);
  for (std::size_t i = 0; i < kNodes; ++i) CHECK(relative(gw.sse[i], gr.sse[i] * scale) < tol);
  CHECK(relative_difference(gw.predictions, gr.predictions) < tol);
}

template <typename T>
void check_weights_stored(const std::string& which) { check_weights_repeat_rows<T>(which, 3, kStoreAll); }
template <typename T>
void check_weights_tiles(const std::string& which) { check_weights_repeat_rows<T>(which, 3, 0.0); }
template <typename T>
void check_weights_wide_tiles(const std::string& which) { check_weights_repeat_rows<T>(which, 40, 0.0); }

}  // namespace

RBF_BACKEND_CASES("weighted rows grow the model of repeated rows (stored Phi_C)", check_weights_stored)
RBF_BACKEND_CASES("weighted rows grow the model of repeated rows (matrix-free, d = 3)", check_weights_tiles)
RBF_BACKEND_CASES("weighted rows grow the model of repeated rows (matrix-free, d = 40)", check_weights_wide_tiles)
