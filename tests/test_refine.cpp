// Tests of refinement's engine and optimizers: gradients, adam, lm, ridge, validation guard.
// Analytic gradients are checked against finite differences.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "cpu/eigen_refine_engine.hpp"
#include "model/refine.hpp"

using namespace rbf;
using model::NodeParams;

namespace {

// A small random problem in standardized units and parameters near a plausible network.
struct RefineProblem {
  std::size_t n = 90, d = 3, k = 2, nv = 30, nodes = 5;
  std::vector<double> x, y, xv;
  NodeParams p;
};

RefineProblem make_refine_problem(std::uint64_t seed, std::size_t nodes = 5) {
  RefineProblem pr;
  pr.nodes = nodes;
  data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < pr.n * pr.d; ++i) pr.x.push_back(rng.uniform() * 3.0 - 1.5);
  for (std::size_t i = 0; i < pr.nv * pr.d; ++i) pr.xv.push_back(rng.uniform() * 3.0 - 1.5);
  for (std::size_t i = 0; i < pr.n; ++i) {
    const double* r = &pr.x[i * pr.d];
    pr.y.push_back(std::sin(2 * r[0]) + r[1] * r[2]);
    pr.y.push_back(std::cos(r[1]) - 0.5 * r[0]);
  }
  pr.p = NodeParams(nodes, pr.d, pr.k);
  for (std::size_t j = 0; j < nodes; ++j) {
    for (std::size_t l = 0; l < pr.d; ++l) pr.p.centers()[j * pr.d + l] = rng.uniform() * 2.0 - 1.0;
    pr.p.log_widths()[j] = std::log(0.6 + 0.8 * rng.uniform());
    for (std::size_t o = 0; o < pr.k; ++o) pr.p.weights()[j * pr.k + o] = rng.normal();
  }
  pr.p.bias()[0] = 0.1;
  pr.p.bias()[1] = -0.2;
  return pr;
}

template <typename T>
std::unique_ptr<cpu::EigenRefineEngine<T>> make_engine(const RefineProblem& pr) {
  auto e = std::make_unique<cpu::EigenRefineEngine<T>>(2);
  const std::vector<T> x(pr.x.begin(), pr.x.end()), y(pr.y.begin(), pr.y.end()), xv(pr.xv.begin(), pr.xv.end());
  e->set_data(x.data(), pr.n, pr.d, y.data(), pr.k, xv.data(), pr.nv);
  return e;
}

double norm_inf(const std::vector<double>& v) {
  double m = 0;
  for (double a : v) m = std::max(m, std::abs(a));
  return m;
}

}  // namespace

TEST_CASE("refine: analytic gradient matches central finite differences in float64") {
  const RefineProblem pr = make_refine_problem(7);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  std::vector<double> grad;
  engine.loss_gradient(pr.p, &grad);
  REQUIRE(grad.size() == pr.p.size());
  const double scale = norm_inf(grad);
  REQUIRE(scale > 0);
  for (std::size_t i = 0; i < pr.p.size(); ++i) {
    const double h = 1e-6 * std::max(1.0, std::abs(pr.p.values[i]));
    NodeParams up = pr.p, down = pr.p;
    up.values[i] += h;
    down.values[i] -= h;
    const double fd = (engine.loss_gradient(up, nullptr) - engine.loss_gradient(down, nullptr)) / (2 * h);
    CAPTURE(i);
    CAPTURE(fd);
    CAPTURE(grad[i]);
    // Relative 1e-5 of the component, with a floor of 1e-7 of the largest component for
    // entries that are near zero (where a relative test measures only rounding).
    CHECK(std::abs(fd - grad[i]) <= 1e-5 * std::max(std::abs(grad[i]), 1e-2 * scale));
  }
}

TEST_CASE("refine: normal equations give the gradient as J^T r and Phi^T Phi in the weight block") {
  const RefineProblem pr = make_refine_problem(11);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  std::vector<double> grad, jtj, jte;
  const double loss = engine.loss_gradient(pr.p, &grad);
  CHECK(engine.normal_equations(pr.p, jtj, jte) == doctest::Approx(loss).epsilon(1e-12));
  const std::size_t size = pr.p.size();
  REQUIRE(jtj.size() == size * size);
  for (std::size_t i = 0; i < size; ++i) CHECK(jte[i] == doctest::Approx(grad[i]).epsilon(1e-10).scale(norm_inf(grad)));
  for (std::size_t i = 0; i < size; ++i)
    for (std::size_t j = 0; j < i; ++j) CHECK(jtj[i * size + j] == doctest::Approx(jtj[j * size + i]).epsilon(1e-12));
  // d r_no / d W_jo = Phi_nj: that block of J^T J is Phi^T Phi, repeated for each output.
  std::vector<double> phi(pr.n * pr.nodes);
  for (std::size_t i = 0; i < pr.n; ++i)
    for (std::size_t j = 0; j < pr.nodes; ++j) {
      double d2 = 0;
      for (std::size_t l = 0; l < pr.d; ++l) {
        const double diff = pr.x[i * pr.d + l] - pr.p.centers()[j * pr.d + l];
        d2 += diff * diff;
      }
      const double s = std::exp(pr.p.log_widths()[j]);
      phi[i * pr.nodes + j] = std::exp(-d2 / (2 * s * s));
    }
  const std::size_t w0 = pr.p.weights_at();
  for (std::size_t a = 0; a < pr.nodes; ++a)
    for (std::size_t b = 0; b < pr.nodes; ++b) {
      double expect = 0;
      for (std::size_t i = 0; i < pr.n; ++i) expect += phi[i * pr.nodes + a] * phi[i * pr.nodes + b];
      for (std::size_t o = 0; o < pr.k; ++o) {
        CHECK(jtj[(w0 + a * pr.k + o) * size + w0 + b * pr.k + o] == doctest::Approx(expect).epsilon(1e-10));
        if (pr.k > 1) CHECK(jtj[(w0 + a * pr.k + o) * size + w0 + b * pr.k + (o + 1) % pr.k] == 0.0);
      }
    }
}

TEST_CASE("refine: loss, gradient and predictions do not depend on the row chunk size") {
  const RefineProblem pr = make_refine_problem(3);
  auto a_ptr = make_engine<double>(pr);
  auto& a = *a_ptr;
  auto b_ptr = make_engine<double>(pr);
  auto& b = *b_ptr;
  b.set_chunk_rows(7);
  std::vector<double> ga, gb, pa, pb;
  CHECK(a.loss_gradient(pr.p, &ga) == doctest::Approx(b.loss_gradient(pr.p, &gb)).epsilon(1e-13));
  for (std::size_t i = 0; i < ga.size(); ++i) CHECK(ga[i] == doctest::Approx(gb[i]).epsilon(1e-12).scale(norm_inf(ga)));
  a.predict_validation(pr.p, pa);
  b.predict_validation(pr.p, pb);
  REQUIRE(pa.size() == pr.nv * pr.k);
  for (std::size_t i = 0; i < pa.size(); ++i) CHECK(pa[i] == doctest::Approx(pb[i]).epsilon(1e-13));
}

TEST_CASE("refine: float32 gradients agree with float64 to float precision") {
  const RefineProblem pr = make_refine_problem(5);
  auto e32_ptr = make_engine<float>(pr);
  auto& e32 = *e32_ptr;
  auto e64_ptr = make_engine<double>(pr);
  auto& e64 = *e64_ptr;
  std::vector<double> g32, g64;
  CHECK(e32.loss_gradient(pr.p, &g32) == doctest::Approx(e64.loss_gradient(pr.p, &g64)).epsilon(1e-4));
  for (std::size_t i = 0; i < g64.size(); ++i) CHECK(g32[i] == doctest::Approx(g64[i]).epsilon(1e-3).scale(norm_inf(g64)));
}

TEST_CASE("refine: adam and lm lower the objective from the same start, lm faster on a small model") {
  const RefineProblem pr = make_refine_problem(9, 6);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  model::RefineConfig adam;
  adam.method = model::RefineMethod::adam;
  adam.epochs = 40;
  adam.learning_rate = 0.02;
  adam.patience = 0;
  const model::RefineOutcome a = model::refine(engine, pr.p, pr.n, adam, nullptr);
  model::RefineConfig lm = adam;
  lm.method = model::RefineMethod::lm;
  lm.epochs = 10;
  const model::RefineOutcome l = model::refine(engine, pr.p, pr.n, lm, nullptr);
  CHECK(a.improved());
  CHECK(l.improved());
  CHECK(a.best_objective < 0.9 * a.start_objective);
  CHECK(l.best_objective < a.best_objective);
  // Without a scorer the score is the objective, and best is where the best objective is.
  CHECK(a.best_score == a.best_objective);
  CHECK(model::refine_objective(engine.loss_gradient(a.best, nullptr), a.best, pr.n, 0.0) ==
        doctest::Approx(a.best_objective).epsilon(1e-12));
}

TEST_CASE("refine: auto is lm up to kAutoLmParameters parameters and adam beyond, and it is the default") {
  using model::RefineMethod;
  CHECK(model::RefineConfig{}.method == RefineMethod::auto_select);
  CHECK(model::resolve_refine_method(RefineMethod::auto_select, 1) == RefineMethod::lm);
  CHECK(model::resolve_refine_method(RefineMethod::auto_select, model::kAutoLmParameters) == RefineMethod::lm);
  CHECK(model::resolve_refine_method(RefineMethod::auto_select, model::kAutoLmParameters + 1) == RefineMethod::adam);
  CHECK(model::kAutoLmParameters <= model::kMaxLmParameters);
  // An explicit choice is kept, whatever the size.
  CHECK(model::resolve_refine_method(RefineMethod::adam, 10) == RefineMethod::adam);
  CHECK(model::resolve_refine_method(RefineMethod::lm, model::kAutoLmParameters + 1) == RefineMethod::lm);
  CHECK(std::string(model::refine_method_name(RefineMethod::auto_select)) == "auto");
}

TEST_CASE("refine: the default settings cut a small model's objective by more than half, more than adam's") {
  const RefineProblem pr = make_refine_problem(23, 6);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  const model::RefineConfig defaults;
  const model::RefineOutcome out = model::refine(engine, pr.p, pr.n, defaults, nullptr);
  CHECK(out.method == model::RefineMethod::lm);
  CHECK(out.best_objective < 0.5 * out.start_objective);
  model::RefineConfig adam = defaults;
  adam.method = model::RefineMethod::adam;
  const model::RefineOutcome a = model::refine(engine, pr.p, pr.n, adam, nullptr);
  CHECK(a.method == model::RefineMethod::adam);
  CHECK(out.best_objective < 0.5 * a.best_objective);
}

TEST_CASE("refine: the ridge term pulls the output weights toward zero") {
  const RefineProblem pr = make_refine_problem(13, 6);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  model::RefineConfig c;
  c.method = model::RefineMethod::lm;
  c.epochs = 15;
  c.patience = 0;
  const model::RefineOutcome plain = model::refine(engine, pr.p, pr.n, c, nullptr);
  c.ridge = 0.5;
  const model::RefineOutcome ridged = model::refine(engine, pr.p, pr.n, c, nullptr);
  auto wnorm = [](const NodeParams& p) {
    double s = 0;
    for (std::size_t i = p.weights_at(); i < p.bias_at(); ++i) s += p.values[i] * p.values[i];
    return s;
  };
  CHECK(wnorm(ridged.best) < 0.5 * wnorm(plain.best));
}

TEST_CASE("refine: the validation guard keeps the start when validation only gets worse") {
  const RefineProblem pr = make_refine_problem(17);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  model::RefineConfig c;
  c.epochs = 50;
  c.patience = 4;
  int calls = 0;
  const model::RefineOutcome out = model::refine(engine, pr.p, pr.n, c, [&](const NodeParams&) { return ++calls; });
  CHECK_FALSE(out.improved());
  CHECK(out.best_epoch == 0);
  CHECK(out.best.values == pr.p.values);
  CHECK(out.epochs == 4);  // 4 steps, none better than the start
  CHECK(out.stop_reason.find("no improvement for 4 epochs") != std::string::npos);
}

TEST_CASE("refine: lm refuses a model too large to solve directly") {
  const RefineProblem pr = make_refine_problem(19);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  NodeParams big(model::kMaxLmParameters / 4, 3, 2);
  model::RefineConfig c;
  c.method = model::RefineMethod::lm;
  CHECK_THROWS_AS(model::refine(engine, big, pr.n, c, nullptr), InputError);
}

TEST_CASE("refine: a stop request ends adam and lm after the current epoch") {
  const RefineProblem pr = make_refine_problem(9, 6);
  auto engine_ptr = make_engine<double>(pr);
  std::atomic<bool> stop{true};
  model::RefineConfig c;
  c.epochs = 1000000;  // without the check, hours
  c.patience = 0;
  for (const model::RefineMethod method : {model::RefineMethod::adam, model::RefineMethod::lm}) {
    c.method = method;
    const model::RefineOutcome out = model::refine(*engine_ptr, pr.p, pr.n, c, nullptr, &stop);
    CHECK(out.interrupted);
    CHECK(out.epochs <= 1);
    CHECK(out.stop_reason == "interrupted");
  }
}
