// Backend parity suite: growth and selection checked alike on every backend built in.
// One body of checks runs on every backend built in ("cpu" always, "gpu" in CUDA builds),
// each against a plain float64 reference, plus GPU-against-CPU runs. GPU cases print
// "SKIPPED: no CUDA device" and return when no device is present; ctest reports them as
// skipped. Nodes added by center and width: test_backend_parity_node_at.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/config.hpp"
#include "contracts/backend.hpp"
#include "contracts/device_error.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "tests/backend_parity_support.hpp"
#include "tests/parity_support.hpp"

using namespace rbf::test::parity;

namespace {

// ---- The body shared by every backend -----------------------------------------------------

template <typename T>
void check_against_reference(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(1000, 5, 1, 300, 120, 11);
  const Growth ref = reference_growth(p, 50);
  auto b = make<T>(which);
  const std::string kind = which.substr(0, 3);  // "gpu one shard" is a gpu backend
  CHECK(b->name() == kind);
  CHECK(b->kind() == (kind == "cpu" ? rbf::model::BackendKind::cpu : rbf::model::BackendKind::gpu));
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
  // Each decision says why, naming the setting that refused the store.
  CHECK(stored_backend->candidate_storage().reason.find("fits") != std::string::npos);
  CHECK(free_backend->candidate_storage().reason.find("candidates.memory_budget_mb") != std::string::npos);
  // The same nodes: the problem is well separated, so rounding never reorders the scores.
  CHECK(a.chosen == f.chosen);
  // Not bit for bit: a matrix-free pass forms each Gaussian from ||x||^2 + ||c||^2 - 2 x.c with a
  // polynomial exp, where Phi_C holds exact per-feature distances and the library exp. Each
  // Gaussian then differs by a few float ulps scaled by gamma (||x||^2 + ||c||^2), below 1e-6 here.
  // The chosen nodes' columns themselves are exact on both paths (add_node evaluates them as
  // Phi_C does), so Q and E differ only through the scores' first projection, which CGS2's second
  // pass corrects; 1e-5 (float) leaves a factor of ten over the differences seen (6e-7). In double the
  // same arithmetic is 1e9 times finer (1.5e-15 seen).
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (std::size_t t = 0; t < a.sse.size(); ++t) CHECK(relative(f.sse[t], a.sse[t]) < tol);
  CHECK(relative_difference(f.predictions, a.predictions) < tol);

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
  b->set_candidates(centers.data(), widths.data(), p.rows.data(), p.count(), {kStoreAll});
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

}  // namespace

// ---- One body per backend built in ------------------------------------------------------

RBF_BACKEND_CASES("50 nodes match the float64 reference", check_against_reference)
RBF_BACKEND_CASES("matrix-free candidates match stored ones", check_matrix_free)
RBF_BACKEND_CASES("ties go to the lowest index, and dependent candidates are skipped", check_ties_and_dependence)
RBF_BACKEND_CASES("max-residual selection, used marks and reset", check_max_residual_and_marks)
RBF_BACKEND_CASES("several outputs match the float64 reference", check_multi_output)

#ifdef RBF_TEST_GPU
TEST_CASE_TEMPLATE("gpu vs cpu: same 50 nodes, RMSE and predictions within 1e-4" * doctest::test_suite("gpu"), T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  check_gpu_against_cpu<T>(2000, 8, 200);
  check_gpu_against_cpu<T>(1200, 20, 150);
}

TEST_CASE_TEMPLATE("gpu backend as one row shard through NCCL: 50 nodes match the float64 reference" * doctest::test_suite("gpu"), T, float,
                   double) {
  RBF_SKIP_WITHOUT_GPU();
  check_against_reference<T>("gpu nccl");
}

TEST_CASE_TEMPLATE("gpu backend: mapped host memory gives the device path's results" * doctest::test_suite("gpu"), T, float, double) {
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

TEST_CASE_TEMPLATE("gpu backend: the trainer state moves between CPU and GPU mid-growth" * doctest::test_suite("gpu"), T, float, double) {
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

TEST_CASE("gpu backend: device errors are clear rbf::gpu errors" * doctest::test_suite("gpu")) {
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
