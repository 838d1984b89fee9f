// Backend parity for nodes given by center and width (add_node_at), on every backend built in.
// add_node_at gives the model add_node gives, marks no candidate, and gives the same basis on
// GPU and CPU for a node no candidate has.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "tests/backend_parity_support.hpp"
#include "tests/parity_support.hpp"

using namespace rbf::test::parity;

namespace {

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

RBF_BACKEND_CASES("add_node_at a candidate center and width matches add_node, stored", check_node_at_stored)
RBF_BACKEND_CASES("add_node_at a candidate center and width matches add_node, tiles", check_node_at_tiles)
RBF_BACKEND_CASES("add_node_at marks no candidate, stored", check_node_at_marks_nothing_stored)
RBF_BACKEND_CASES("add_node_at marks no candidate, tiles", check_node_at_marks_nothing_tiles)

#ifdef RBF_TEST_GPU
TEST_CASE_TEMPLATE("gpu vs cpu: an off-pool node gives the same basis, statistics and validation column" * doctest::test_suite("gpu"), T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  check_off_pool_gpu_against_cpu<T>(kStoreAll);
  check_off_pool_gpu_against_cpu<T>(0.0);
}
#endif
