// The GPU backend with Q in half precision (backend.gpu_basis: half) against the float64
// reference and the CPU: the same nodes chosen, the same residuals and predictions to the codes'
// rounding, dependent columns refused, off-pool nodes, several outputs, and migration both ways.
//
// Tolerances: a half code rounds each entry of Q to 2^-12 relative, so residuals and
// predictions agree with the reference to 1e-3 relative (float Q: 1e-4), and only where a
// choice is a near tie could the chosen node differ; these problems have none in their first
// 50 nodes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "tests/backend_parity_support.hpp"
#include "tests/parity_support.hpp"

using namespace rbf::test::parity;

namespace {

constexpr double kHalfTolerance = 1e-3;
const std::string kHalf = "gpu half basis";

void check_growth(const Growth& g, const Growth& ref) {
  CHECK(g.chosen == ref.chosen);
  REQUIRE(g.sse.size() == ref.sse.size());
  for (std::size_t t = 0; t < g.sse.size(); ++t) {
    CAPTURE(t);
    CHECK(relative(g.sse[t], ref.sse[t]) < kHalfTolerance);
  }
  CHECK(relative_difference(g.predictions, ref.predictions) < kHalfTolerance);
}

}  // namespace

TEST_CASE("gpu backend with Q in half precision: the reference's nodes, residuals and predictions" *
          doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(1000, 5, 1, 300, 120, 11);
  const Growth ref = reference_growth(p, 50);
  for (const double budget : {kStoreAll, 0.0}) {  // Phi_C stored, and computed on every pass
    CAPTURE(budget);
    auto b = make<float>(kHalf);
    const Growth g = grow(*b, p, 50, budget);
    CHECK(b->nodes() == 50);
    check_growth(g, ref);
    // Every node projects twice on the compact basis.
    CHECK(b->reorthogonalizations() == 50);
  }
}

TEST_CASE("gpu backend with Q in half precision: several outputs" * doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(700, 6, 3, 150, 90, 21);
  auto b = make<float>(kHalf);
  check_growth(grow(*b, p, 25, kStoreAll), reference_growth(p, 25));
}

TEST_CASE("gpu backend with Q in half precision: a dependent column leaves Q as it was" *
          doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
  // Every candidate has an exact twin at index + count / 2.
  const Problem p = make_problem(800, 4, 1, 0, 80, 3, true);
  const std::size_t half = p.count() / 2;
  auto b = make<float>(kHalf);
  const Growth g = grow(*b, p, 20, kStoreAll);
  for (std::size_t c : g.chosen) CHECK(c < half);
  std::vector<double> h;
  const double norm = b->add_node(g.chosen.front() + half, kTol, h);
  CHECK(norm == 0.0);
  CHECK(b->nodes() == 20);
  CHECK(std::all_of(h.begin(), h.end(), [](double v) { return v == 0.0; }));
  // The basis is unchanged: growth goes on as on the float basis.
  auto full = make<float>("gpu");
  const Growth f = grow(*full, p, 20, kStoreAll);
  CHECK(relative(g.sse.back(), f.sse.back()) < kHalfTolerance);
  const Growth more = extend(*b, 5), more_full = extend(*full, 5);
  CHECK(more.chosen == more_full.chosen);
}

TEST_CASE("gpu backend with Q in half precision: an off-pool node as its candidate" * doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(900, 4, 1, 0, 100, 7);
  auto by_index = make<float>(kHalf);
  auto by_center = make<float>(kHalf);
  const Growth g = grow(*by_index, p, 10, kStoreAll);
  grow(*by_center, p, 10, kStoreAll);
  const Growth next = extend(*by_index, 1);
  const std::size_t c = next.chosen.front();
  std::vector<float> center(p.centers.begin() + static_cast<long>(c * p.d),
                            p.centers.begin() + static_cast<long>((c + 1) * p.d));
  std::vector<double> h, a;
  CHECK(by_center->add_node_at(center.data(), static_cast<float>(p.widths[c]), kTol, h) > 0);
  CHECK(relative(by_center->update(true, a), next.sse.front()) < kHalfTolerance);
  CHECK(g.chosen.size() == 10);
}

TEST_CASE("gpu backend with Q in half precision: the state moves to the CPU and back" *
          doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
  const Problem p = make_problem(1000, 5, 1, 0, 120, 11);
  const Growth ref = reference_growth(p, 40);
  // Half basis -> CPU after 20 nodes.
  auto gpu = make<float>(kHalf);
  const Growth first = grow(*gpu, p, 20, kStoreAll);
  rbf::model::BackendState<float> state;
  gpu->export_state(state);
  CHECK(state.basis == 21);
  auto cpu = make<float>("cpu");
  load(*cpu, p, kStoreAll);
  cpu->import_state(state);
  const Growth on_cpu = extend(*cpu, 20);
  std::vector<std::size_t> chosen = first.chosen;
  chosen.insert(chosen.end(), on_cpu.chosen.begin(), on_cpu.chosen.end());
  CHECK(chosen == ref.chosen);
  CHECK(relative(on_cpu.sse.back(), ref.sse.back()) < kHalfTolerance);
  // CPU -> half basis after 40 nodes: encoded on arrival, growth goes on as on the CPU.
  cpu->export_state(state);
  auto back = make<float>(kHalf);
  load(*back, p, kStoreAll);
  back->import_state(state);
  const Growth on_gpu = extend(*back, 10), on_cpu_too = extend(*cpu, 10);
  CHECK(on_gpu.chosen == on_cpu_too.chosen);
  CHECK(relative(on_gpu.sse.back(), on_cpu_too.sse.back()) < kHalfTolerance);
}
