// Refinement engine parity: the CUDA engine's loss, gradient, normal equations and validation
// predictions against the CPU (Eigen) engine on the same data, whole and in row chunks, and
// its gradient against finite differences. Every case needs a device: it prints
// "SKIPPED: no CUDA device" and returns without one (or in a build without CUDA), and ctest
// reports it as skipped.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "model/config.hpp"
#include "cpu/eigen_refine_engine.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "model/refine.hpp"
#include "contracts/refine_engine.hpp"
#include "tests/parity_support.hpp"
#ifdef RBF_TEST_GPU
#include "gpu/cuda_refine_engine.hpp"
#endif

#ifdef RBF_TEST_GPU
using rbf::model::NodeParams;
using rbf::model::RefineEngine;

namespace {

// Agreement expected between engines (and between chunkings) in each precision, relative to
// the norm of the reference.
template <typename T>
constexpr double tolerance() {
  return sizeof(T) == sizeof(float) ? 1e-4 : 1e-10;
}

// Standardized-looking data and a network whose nodes sit near training rows, with widths
// that give every node a mix of active and inactive rows.
struct RefineProblem {
  std::size_t n = 0, d = 0, k = 0, nv = 0;
  std::vector<double> x, y, xv;  // row-major
  NodeParams params;
};

RefineProblem make_refine_problem(std::size_t n, std::size_t d, std::size_t k, std::size_t nv, std::size_t nodes,
                                  std::uint64_t seed) {
  RefineProblem p;
  p.n = n;
  p.d = d;
  p.k = k;
  p.nv = nv;
  rbf::data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < (n + nv) * d; ++i) (i < n * d ? p.x : p.xv).push_back((rng.uniform() * 2 - 1) * 1.7);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t o = 0; o < k; ++o) {
      const double* xi = &p.x[i * d];
      p.y.push_back(std::sin(1.5 * xi[0] + 0.4 * static_cast<double>(o)) + 0.5 * xi[(1 + o) % d] * xi[(2 + o) % d] +
                    0.1 * rng.normal());
    }
  p.params = NodeParams(nodes, d, k);
  for (std::size_t j = 0; j < nodes; ++j) {
    const std::size_t row = static_cast<std::size_t>(rng.below(n));
    for (std::size_t l = 0; l < d; ++l) p.params.centers()[j * d + l] = p.x[row * d + l] + 0.1 * rng.normal();
    p.params.log_widths()[j] = std::log((0.6 + 0.9 * rng.uniform()) * std::sqrt(static_cast<double>(d)) / 2.0);
    for (std::size_t o = 0; o < k; ++o) p.params.weights()[j * k + o] = 0.7 * rng.normal();
  }
  for (std::size_t o = 0; o < k; ++o) p.params.bias()[o] = 0.1 * rng.normal();
  return p;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T>
void load(RefineEngine<T>& engine, const RefineProblem& p) {
  const std::vector<T> x = as<T>(p.x), y = as<T>(p.y), xv = as<T>(p.xv);
  engine.set_data(x.data(), p.n, p.d, y.data(), p.k, p.nv > 0 ? xv.data() : nullptr, p.nv);
}

using rbf::test::relative;
using rbf::test::relative_difference;

// Everything an engine returns for one set of parameters.
struct Results {
  double loss = 0, loss_only = 0, ne_loss = 0;
  std::vector<double> gradient, jtj, jte, predictions;
};

template <typename T>
Results evaluate(RefineEngine<T>& engine, const NodeParams& params) {
  Results r;
  r.loss = engine.loss_gradient(params, &r.gradient);
  r.loss_only = engine.loss_gradient(params, nullptr);
  r.ne_loss = engine.normal_equations(params, r.jtj, r.jte);
  engine.predict_validation(params, r.predictions);
  return r;
}

template <typename T>
void check_agree(const Results& got, const Results& want, const char* what) {
  INFO(what);
  const double tol = tolerance<T>();
  CHECK(relative(got.loss, want.loss) < tol);
  CHECK(relative(got.ne_loss, want.loss) < tol);
  CHECK(relative_difference(got.gradient, want.gradient) < tol);
  CHECK(relative_difference(got.jtj, want.jtj) < tol);
  CHECK(relative_difference(got.jte, want.jte) < tol);
  CHECK(relative_difference(got.predictions, want.predictions) < tol);
}

template <typename T>
std::unique_ptr<rbf::gpu::CudaRefineEngine<T>> make_gpu(std::size_t max_chunk_rows = 0) {
  auto engine = std::make_unique<rbf::gpu::CudaRefineEngine<T>>(rbf::gpu::open_context(rbf::model::GpuOptions{}));
  engine->set_max_chunk_rows(max_chunk_rows);
  return engine;
}

template <typename T>
void check_against_cpu(std::size_t n, std::size_t d, std::size_t k, std::size_t nv, std::size_t nodes,
                       std::uint64_t seed) {
  INFO("n = " << n << ", d = " << d << ", k = " << k << ", nv = " << nv << ", nodes = " << nodes);
  const RefineProblem p = make_refine_problem(n, d, k, nv, nodes, seed);
  auto cpu = rbf::cpu::make_refine_engine<T>(rbf::model::CpuOptions{2});
  auto gpu = rbf::gpu::make_refine_engine<T>(rbf::gpu::open_context(rbf::model::GpuOptions{}));
  CHECK(gpu->kind() == rbf::model::BackendKind::gpu);
  load(*cpu, p);
  load(*gpu, p);
  const Results want = evaluate(*cpu, p.params);
  const Results got = evaluate(*gpu, p.params);
  REQUIRE(got.gradient.size() == p.params.size());
  REQUIRE(got.jtj.size() == p.params.size() * p.params.size());
  REQUIRE(got.predictions.size() == nv * k);
  check_agree<T>(got, want, "gpu against cpu");
  // The loss does not depend on whether the gradient was asked for.
  CHECK(got.loss_only == got.loss);
  // J^T J is symmetric and J^T r is the gradient of 0.5 ||r||^2.
  const std::size_t np = p.params.size();
  bool symmetric = true;
  for (std::size_t i = 0; i < np; ++i)
    for (std::size_t j = 0; j < i; ++j) symmetric = symmetric && got.jtj[i * np + j] == got.jtj[j * np + i];
  CHECK(symmetric);
  CHECK(relative_difference(got.jte, got.gradient) < tolerance<T>());
}

template <typename T>
void check_chunks() {
  const RefineProblem p = make_refine_problem(700, 5, 2, 100, 12, 23);
  auto whole = make_gpu<T>();
  load(*whole, p);
  const Results want = evaluate(*whole, p.params);
  CHECK(whole->last_chunks() == 1);
  for (std::size_t rows : {std::size_t{1}, std::size_t{37}, std::size_t{256}}) {
    INFO("max chunk rows " << rows);
    auto chunked = make_gpu<T>(rows);
    load(*chunked, p);
    const Results got = evaluate(*chunked, p.params);
    CHECK(chunked->last_chunks() == (p.nv + rows - 1) / rows);  // predict_validation went last
    chunked->loss_gradient(p.params, nullptr);
    CHECK(chunked->last_chunks() == (p.n + rows - 1) / rows);
    check_agree<T>(got, want, "chunked against whole");
  }
  // The CPU engine in its own chunks agrees too.
  auto cpu = std::make_unique<rbf::cpu::EigenRefineEngine<T>>(2);
  cpu->set_chunk_rows(50);
  load(*cpu, p);
  check_agree<T>(want, evaluate(*cpu, p.params), "whole gpu against chunked cpu");
}

template <typename T>
void check_repeatable() {
  const RefineProblem p = make_refine_problem(900, 4, 3, 50, 20, 5);
  auto gpu = make_gpu<T>(128);
  load(*gpu, p);
  const Results a = evaluate(*gpu, p.params);
  // Other shapes in between grow and reuse the scratch buffers.
  NodeParams other = make_refine_problem(900, 4, 3, 50, 35, 6).params;
  std::vector<double> g;
  gpu->loss_gradient(other, &g);
  const Results b = evaluate(*gpu, p.params);
  CHECK(a.loss == b.loss);
  CHECK(a.gradient == b.gradient);
  CHECK(a.jtj == b.jtj);
  CHECK(a.jte == b.jte);
  CHECK(a.predictions == b.predictions);
}

// Whole refinements, Adam and Levenberg-Marquardt, with a validation scorer, on both engines:
// the optimizer is shared, so the GPU run must follow the CPU run's path (in double to
// rounding; a float run may take other accept/reject decisions, so it is compared by outcome).
template <typename T>
void check_refinements() {
  const RefineProblem p = make_refine_problem(800, 4, 2, 120, 10, 31);
  auto cpu = rbf::cpu::make_refine_engine<T>(rbf::model::CpuOptions{2});
  auto gpu = rbf::gpu::make_refine_engine<T>(rbf::gpu::open_context(rbf::model::GpuOptions{}));
  load(*cpu, p);
  load(*gpu, p);
  for (const auto method : {rbf::model::RefineMethod::adam, rbf::model::RefineMethod::lm}) {
    const bool lm = method == rbf::model::RefineMethod::lm;
    const char* name = lm ? "lm" : "adam";
    INFO(name);
    rbf::model::RefineConfig config;
    config.method = method;
    config.epochs = lm ? 6 : 40;
    config.learning_rate = 0.02;
    config.patience = 0;
    auto scorer_for = [&](RefineEngine<T>& engine) {
      return [&engine](const NodeParams& q) {
        std::vector<double> pred;
        engine.predict_validation(q, pred);
        double s = 0;
        for (double v : pred) s += v * v;  // any deterministic function of the predictions
        return s;
      };
    };
    const auto want = rbf::model::refine(*cpu, p.params, p.n, config, scorer_for(*cpu));
    const auto got = rbf::model::refine(*gpu, p.params, p.n, config, scorer_for(*gpu));
    CHECK(want.best_objective < want.start_objective);
    CHECK(got.best_objective < got.start_objective);
    CHECK(relative(got.start_objective, want.start_objective) < tolerance<T>());
    if (sizeof(T) == sizeof(double)) {
      CHECK(got.epochs == want.epochs);
      CHECK(got.best_epoch == want.best_epoch);
      CHECK(relative(got.best_objective, want.best_objective) < 1e-8);
      CHECK(relative_difference(got.best.values, want.best.values) < 1e-7);
    } else {
      CHECK(relative(got.best_objective, want.best_objective) < 1e-2);
    }
  }
}

}  // namespace
#endif

#ifdef RBF_TEST_GPU
#define RBF_REFINE_GPU_BODY(call) call
#else
#define RBF_REFINE_GPU_BODY(call)
#endif

TEST_CASE_TEMPLATE("gpu refine engine: loss, gradient, normal equations and predictions match the cpu engine" * doctest::test_suite("gpu"), T, float,
                   double) {
  RBF_SKIP_WITHOUT_GPU();
  RBF_REFINE_GPU_BODY(check_against_cpu<T>(700, 5, 2, 100, 12, 11));
  RBF_REFINE_GPU_BODY(check_against_cpu<T>(1000, 3, 1, 0, 1, 12));  // one node, no validation rows
  RBF_REFINE_GPU_BODY(check_against_cpu<T>(600, 1, 4, 30, 9, 13));  // one feature, four classes
  RBF_REFINE_GPU_BODY(check_against_cpu<T>(3000, 20, 1, 200, 60, 14));
  // Rows well past one thread block's grid stride and an odd count.
  RBF_REFINE_GPU_BODY(check_against_cpu<T>(9001, 3, 2, 50, 8, 15));
}

TEST_CASE_TEMPLATE("gpu refine engine: row chunks give the unchunked results" * doctest::test_suite("gpu"), T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  RBF_REFINE_GPU_BODY(check_chunks<T>());
}

TEST_CASE_TEMPLATE("gpu refine engine: repeated calls give identical results" * doctest::test_suite("gpu"), T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  RBF_REFINE_GPU_BODY(check_repeatable<T>());
}

TEST_CASE_TEMPLATE("gpu refine engine: adam and lm refinements follow the cpu engine path" * doctest::test_suite("gpu"), T, float, double) {
  RBF_SKIP_WITHOUT_GPU();
  RBF_REFINE_GPU_BODY(check_refinements<T>());
}

TEST_CASE("gpu refine engine: the float64 gradient matches central differences of the loss" * doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
#ifdef RBF_TEST_GPU
  const RefineProblem p = make_refine_problem(400, 3, 2, 0, 6, 17);
  auto gpu = make_gpu<double>();
  load(*gpu, p);
  std::vector<double> gradient;
  gpu->loss_gradient(p.params, &gradient);
  const double h = 1e-6;
  double scale = 0;
  for (double g : gradient) scale = std::max(scale, std::abs(g));
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    NodeParams plus = p.params, minus = p.params;
    plus.values[i] += h;
    minus.values[i] -= h;
    const double fd = (gpu->loss_gradient(plus, nullptr) - gpu->loss_gradient(minus, nullptr)) / (2 * h);
    INFO("parameter " << i);
    CHECK(std::abs(fd - gradient[i]) < 1e-6 * scale + 1e-7);
  }
#endif
}

TEST_CASE("gpu refine engine: wrong parameters and calls before set_data are clear errors" * doctest::test_suite("gpu")) {
  RBF_SKIP_WITHOUT_GPU();
#ifdef RBF_TEST_GPU
  const RefineProblem p = make_refine_problem(100, 3, 1, 10, 4, 3);
  auto gpu = make_gpu<float>();
  std::vector<double> g, jtj, jte;
  CHECK_THROWS_AS(gpu->loss_gradient(p.params, &g), rbf::RuntimeError);
  load(*gpu, p);
  NodeParams wrong_d(4, 2, 1), empty(0, 3, 1);
  CHECK_THROWS_AS(gpu->loss_gradient(wrong_d, &g), rbf::RuntimeError);
  CHECK_THROWS_AS(gpu->normal_equations(empty, jtj, jte), rbf::RuntimeError);
  NodeParams truncated = p.params;
  truncated.values.pop_back();
  CHECK_THROWS_AS(gpu->predict_validation(truncated, g), rbf::RuntimeError);
  const float x[1] = {0};
  CHECK_THROWS_AS(gpu->set_data(x, 0, 1, x, 1, nullptr, 0), rbf::InputError);
  // Still usable after the refusals.
  CHECK(std::isfinite(gpu->loss_gradient(p.params, &g)));
  CHECK(gpu->memory_bytes() > 0);
#endif
}
