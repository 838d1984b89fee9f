// Refinement: analytic gradients against finite differences, the optimizers and their
// validation guard, and refinement inside training (rollback, saving, resuming).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <cmath>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/split.hpp"
#include "data/synthetic.hpp"
#include "model/contracts/cpu_entry_points.hpp"
#include "cpu/eigen_refine_engine.hpp"
#include "model/forwarding_backend.hpp"
#include "model/model_file.hpp"
#include "model/refine.hpp"
#include "model/trainer.hpp"
#include "model/training_state.hpp"

using namespace rbf;
using model::NodeParams;

namespace {

// A small random problem in standardized units and parameters near a plausible network.
struct Problem {
  std::size_t n = 90, d = 3, k = 2, nv = 30, nodes = 5;
  std::vector<double> x, y, xv;
  NodeParams p;
};

Problem make_problem(std::uint64_t seed, std::size_t nodes = 5) {
  Problem pr;
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
std::unique_ptr<cpu::EigenRefineEngine<T>> make_engine(const Problem& pr) {
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
  const Problem pr = make_problem(7);
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
  const Problem pr = make_problem(11);
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
  const Problem pr = make_problem(3);
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
  const Problem pr = make_problem(5);
  auto e32_ptr = make_engine<float>(pr);
  auto& e32 = *e32_ptr;
  auto e64_ptr = make_engine<double>(pr);
  auto& e64 = *e64_ptr;
  std::vector<double> g32, g64;
  CHECK(e32.loss_gradient(pr.p, &g32) == doctest::Approx(e64.loss_gradient(pr.p, &g64)).epsilon(1e-4));
  for (std::size_t i = 0; i < g64.size(); ++i) CHECK(g32[i] == doctest::Approx(g64[i]).epsilon(1e-3).scale(norm_inf(g64)));
}

TEST_CASE("refine: adam and lm lower the objective from the same start; lm faster on a small model") {
  const Problem pr = make_problem(9, 6);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  model::RefineConfig adam;
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

TEST_CASE("refine: the ridge term pulls the output weights toward zero") {
  const Problem pr = make_problem(13, 6);
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
  const Problem pr = make_problem(17);
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
  const Problem pr = make_problem(19);
  auto engine_ptr = make_engine<double>(pr);
  auto& engine = *engine_ptr;
  NodeParams big(model::kMaxLmParameters / 4, 3, 2);
  model::RefineConfig c;
  c.method = model::RefineMethod::lm;
  CHECK_THROWS_AS(model::refine(engine, big, pr.n, c, nullptr), InputError);
}

namespace {

const data::Dataset& friedman() {
  static const data::Dataset ds = data::make_friedman1(700, 6, 0.3, 23);
  return ds;
}

model::Config refine_config() {
  model::Config c;
  c.data.validation = 0.25;
  c.candidates.pool = 200;
  c.stopping.max_nodes = 24;
  c.stopping.patience = 0;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.trainer.precision = model::Precision::float64;
  c.backend.kind = model::BackendKind::cpu;
  c.refine.epochs = 30;
  c.refine.learning_rate = 0.02;
  return c;
}

std::vector<double> predict(const model::Network& net, const data::Dataset& ds) {
  std::vector<double> out;
  net.predict(ds.x.data(), ds.rows, out);
  return out;
}

bool has_event(const model::TrainResult& r, const std::string& text) {
  for (const auto& e : r.events)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("refine: refining during growth and at the end lowers validation error on Friedman #1") {
  const model::TrainResult plain = model::train(friedman(), refine_config());
  model::Config c = refine_config();
  c.refine.every = 8;
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 8;
  const model::TrainResult refined = model::train(friedman(), c);
  CHECK(has_event(refined, "refine 8 nodes"));
  CHECK(has_event(refined, "at the end: refine"));
  CHECK(refined.refine_seconds > 0);
  CHECK(refined.best_val_rmse < plain.best_val_rmse);
  // The refined model's centers are no longer training rows.
  bool moved = false;
  const model::Network& net = refined.network;
  for (std::size_t j = 0; j < net.nodes() && !moved; ++j)
    moved = net.centers[j * net.inputs] != plain.network.centers[j * net.inputs];
  CHECK(moved);
  // Refinement events appear in the iteration records too, with their time.
  bool logged = false;
  for (const auto& rec : refined.iterations) logged = logged || (rec.refine_ms > 0 && rec.event.find("refine") == 0);
  CHECK(logged);
}

TEST_CASE("refine: lm on a model that could outgrow it is refused before growth starts") {
  model::Config c = refine_config();
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.stopping.max_nodes = model::kMaxLmParameters / 8 + 1;  // d = 6, k = 1: 8 parameters per node
  bool grew = false;
  model::TrainOptions options;
  options.on_iteration = [&](const model::IterationRecord&) { grew = true; };
  CHECK_THROWS_WITH_AS(model::train(friedman(), c, options), doctest::Contains("use refine.method adam or at most 749 nodes"),
                       InputError);
  CHECK_FALSE(grew);
}

TEST_CASE("refine: a refined model saves, loads and predicts identically") {
  model::Config c = refine_config();
  c.refine.at_end = true;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 5;
  c.stopping.max_nodes = 10;
  const model::TrainResult r = model::train(friedman(), c);
  REQUIRE(has_event(r, "validation RMSE"));
  const std::string path = "refine_roundtrip.rbfn";
  model::save_network(r.network, path);
  const model::Network back = model::load_network(path);
  std::remove(path.c_str());
  CHECK(back.centers == r.network.centers);
  CHECK(back.widths == r.network.widths);
  CHECK(predict(back, friedman()) == predict(r.network, friedman()));
}

TEST_CASE("refine: a diverging refinement is rolled back and leaves the model as grown") {
  model::Config c = refine_config();
  c.stopping.max_nodes = 12;
  const model::TrainResult plain = model::train(friedman(), c);
  c.refine.every = 6;
  c.refine.at_end = true;
  c.refine.learning_rate = 10.0;  // every step overshoots: validation gets worse at once
  c.refine.epochs = 5;
  c.refine.patience = 2;
  const model::TrainResult r = model::train(friedman(), c);
  CHECK(has_event(r, "no improvement"));
  CHECK(r.network.centers == plain.network.centers);
  CHECK(predict(r.network, friedman()) == predict(plain.network, friedman()));
  CHECK(r.best_val_rmse == plain.best_val_rmse);
}

TEST_CASE("refine: a refinement whose rebuilt model validates worse is rolled back") {
  // On the noisy diabetes data the optimizer's own weights validate better after a step, but
  // least squares on the moved nodes (what growth continues with) validates worse: both
  // refinements during growth are rolled back, and the run ends with the grown model.
  const data::Dataset ds =
      data::read_csv(std::string(RBF_SOURCE_DIR) + "/data/diabetes.csv", {}, {{"progression"}, {}});
  model::Config c;  // the defaults, as `rbfnet train` would use them
  c.trainer.precision = model::Precision::float64;
  c.backend.kind = model::BackendKind::cpu;
  c.logging.progress = false;
  c.stopping.max_nodes = 30;
  const model::TrainResult plain = model::train(ds, c);
  c.refine.every = 10;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 10;
  const model::TrainResult r = model::train(ds, c);
  std::size_t rolled_back = 0;
  for (const auto& e : r.events) rolled_back += e.find("rolled back") != std::string::npos;
  CHECK(rolled_back == 2);
  CHECK(r.network.centers == plain.network.centers);
  CHECK(r.network.weights == plain.network.weights);
  CHECK(r.best_val_rmse == plain.best_val_rmse);
}

TEST_CASE("refine: without validation the training objective guards the refinement") {
  model::Config c = refine_config();
  c.data.validation = 0;
  c.stopping.max_nodes = 12;
  const model::TrainResult plain = model::train(friedman(), c);
  c.refine.every = 6;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 5;
  const model::TrainResult r = model::train(friedman(), c);
  CHECK(r.final_train_rmse < plain.final_train_rmse);
}

TEST_CASE("refine: a run with moved nodes resumes from its checkpoint") {
  model::Config c = refine_config();
  c.refine.every = 5;
  c.stopping.max_nodes = 16;
  const model::TrainResult whole = model::train(friedman(), c);
  REQUIRE(has_event(whole, "training RMSE"));

  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.on_iteration = [&](const model::IterationRecord& rec) {
    if (rec.iteration == 12) stop = true;
  };
  const model::TrainResult cut = model::train(friedman(), c, first);
  REQUIRE(cut.interrupted);
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK_FALSE(state.node_widths.empty());
  model::TrainOptions second;
  second.resume = &state;
  const model::TrainResult resumed = model::train(friedman(), c, second);
  // Replaying moved nodes recomputes CGS2 projections the growth took from its history, so
  // the resumed run agrees to rounding, not bit for bit.
  REQUIRE(resumed.network.nodes() == whole.network.nodes());
  const std::vector<double> a = predict(resumed.network, friedman()), b = predict(whole.network, friedman());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-6));
}

namespace {

// The CPU backend raising the stop flag inside the update that brings it to `at` nodes, as a
// signal arriving during that iteration would.
class StopDuringUpdate final : public model::ForwardingBackend<double> {
 public:
  StopDuringUpdate(std::atomic<bool>* stop, std::size_t at)
      : model::ForwardingBackend<double>(cpu::make_backend<double>(model::CpuOptions{2})), stop_(stop), at_(at) {}
  double update(bool statistics, std::vector<double>& a) override {
    const double sse = model::ForwardingBackend<double>::update(statistics, a);
    if (nodes() == at_) *stop_ = true;
    return sse;
  }

 private:
  std::atomic<bool>* stop_;
  std::size_t at_;
};

}  // namespace

TEST_CASE("refine: an interrupt does not start a refinement; the resumed run refines first") {
  model::Config c = refine_config();
  c.refine.every = 5;
  c.refine.method = model::RefineMethod::lm;
  c.refine.epochs = 3;
  c.stopping.max_nodes = 12;
  std::atomic<bool> stop{false};
  model::TrainOptions first;
  first.stop_requested = &stop;
  first.hooks.make_double = [&](model::BackendKind) -> std::unique_ptr<model::Backend<double>> {
    return std::make_unique<StopDuringUpdate>(&stop, 10);
  };
  const model::TrainResult cut = model::train(friedman(), c, first);
  REQUIRE(cut.interrupted);
  CHECK(cut.network.training_state.find("iteration 10") != std::string::npos);
  CHECK(has_event(cut, "refine 5 nodes"));
  CHECK_FALSE(has_event(cut, "refine 10 nodes"));
  const model::TrainingState state = model::decode_training_state(cut.network.training_state, "ckpt");
  CHECK(state.grown_since_refine == 5);  // due
  model::TrainOptions second;
  second.resume = &state;
  const model::TrainResult resumed = model::train(friedman(), c, second);
  REQUIRE_FALSE(resumed.events.empty());
  CHECK(resumed.events.front().find("refine 11 nodes") == 0);
}

TEST_CASE("refine: a training state with moved nodes and a best snapshot round-trips") {
  model::TrainingState s;
  s.iteration = 3;
  s.chosen = {1, 2};
  s.train_rmse_at = {1.0, 0.5, 0.4};
  s.candidates = 10;
  s.node_centers = {0.25, -1.5, 3.0, 0.125};
  s.node_widths = {0.75, 1.25};
  s.best_snapshot_nodes = 1;
  s.best_snapshot = {0.5, 0.5, 1.0, 2.0, -0.5};
  s.best_snapshot_train_rmse = 0.45;
  s.grown_since_refine = 3;
  const model::TrainingState back = model::decode_training_state(model::encode_training_state(s), "s");
  CHECK(back.node_centers == s.node_centers);
  CHECK(back.node_widths == s.node_widths);
  CHECK(back.best_snapshot_nodes == 1);
  CHECK(back.best_snapshot == s.best_snapshot);
  CHECK(back.best_snapshot_train_rmse == 0.45);
  CHECK(back.grown_since_refine == 3);
  // A version-1 state (before refinement existed) still reads.
  model::TrainingState empty;
  empty.train_rmse_at = {1.0};
  std::string v1 = model::encode_training_state(empty);
  v1.replace(v1.find("state 2"), 7, "state 1");
  v1 = v1.substr(0, v1.find("grown_since_refine"));
  CHECK(model::decode_training_state(v1, "v1").node_widths.empty());
  std::string bad = model::encode_training_state(s);
  bad.replace(bad.find("node_widths 2 0.75"), 18, "node_widths 2 -0.7");
  CHECK_THROWS_AS(model::decode_training_state(bad, "s"), InputError);
}
