// Refinement optimizers: full-batch Adam and Levenberg-Marquardt, host-side in double.
#include "model/refine.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "data/errors.hpp"

namespace rbf::model {

namespace {

// Keeps the best-scoring parameters and counts epochs since the last improvement.
struct BestTracker {
  RefineOutcome& out;
  std::size_t since_best = 0;

  void offer(const NodeParams& p, double objective, double score, std::size_t epoch) {
    if (!(score < out.best_score)) {
      ++since_best;
      return;
    }
    out.best = p;
    out.best_objective = objective;
    out.best_score = score;
    out.best_epoch = epoch;
    since_best = 0;
  }
};

// Widths stay within [1e-3, 1e3] standardized units. A step that shrinks a width toward 0
// switches its node off (Phi = 0 everywhere), which the objective accepts, but then gamma
// overflows and every later gradient of that node is 0 * inf; far beyond the data's scale
// a node is a constant the bias already is.
constexpr double kMinLogWidth = -6.907755278982137;  // log(1e-3)
constexpr double kMaxLogWidth = 6.907755278982137;
void keep_widths_in_range(NodeParams& p) {
  for (std::size_t j = 0; j < p.nodes; ++j)
    p.log_widths()[j] = std::min(kMaxLogWidth, std::max(kMinLogWidth, p.log_widths()[j]));
}

bool all_finite(const std::vector<double>& v) {
  for (double a : v)
    if (!std::isfinite(a)) return false;
  return true;
}

double weights_norm2(const NodeParams& p) {
  double s = 0;
  for (std::size_t i = p.weights_at(); i < p.bias_at(); ++i) s += p.values[i] * p.values[i];
  return s;
}

}  // namespace

RefineMethod resolve_refine_method(RefineMethod method, std::size_t parameters) {
  if (method != RefineMethod::auto_select) return method;
  return parameters <= kAutoLmParameters ? RefineMethod::lm : RefineMethod::adam;
}

const char* refine_method_name(RefineMethod method) {
  switch (method) {
    case RefineMethod::adam: return "adam";
    case RefineMethod::lm: return "lm";
    case RefineMethod::auto_select: return "auto";
  }
  return "auto";
}

double refine_objective(double half_sse, const NodeParams& p, std::size_t rows, double ridge) {
  const double count = static_cast<double>(rows) * static_cast<double>(p.k);
  return half_sse / count + 0.5 * ridge * weights_norm2(p);
}

namespace {

// What both optimizers share: the problem's scale, the scorer, the stop flag, and the outcome
// with its best-so-far record.
struct RefineLoop {
  const RefineConfig& config;
  const RefineScorer& scorer;
  const std::atomic<bool>* stop;
  std::size_t rows;
  double count;  // rows x outputs: the objective is a mean over them
  RefineOutcome& out;
  BestTracker tracker;

  double objective(double half_sse, const NodeParams& p) const { return refine_objective(half_sse, p, rows, config.ridge); }
  double score_of(const NodeParams& p, double objective) const { return scorer ? scorer(p) : objective; }
  // Stops after config.patience epochs without a better score; says so.
  bool stalled() {
    if (config.patience == 0 || tracker.since_best < config.patience) return false;
    out.stop_reason = "no improvement for " + std::to_string(config.patience) + " epochs";
    return true;
  }
  // Checked every epoch: a long refinement must not outlive a Ctrl-C.
  bool interrupted() {
    if (stop == nullptr || !stop->load()) return false;
    out.interrupted = true;
    out.stop_reason = "interrupted";
    return true;
  }
};

template <typename T>
void refine_adam(RefineEngine<T>& engine, NodeParams p, RefineLoop& loop) {
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
  RefineOutcome& out = loop.out;
  const RefineConfig& config = loop.config;
  const std::size_t size = p.size();
  std::vector<double> grad, m(size, 0.0), v(size, 0.0);
  for (std::size_t epoch = 0;; ++epoch) {
    const double objective = loop.objective(engine.loss_gradient(p, &grad), p);
    if (!std::isfinite(objective) || !all_finite(grad)) {
      out.stop_reason = "the objective became non-finite; kept the best epoch";
      return;
    }
    const double score = loop.score_of(p, objective);
    if (epoch == 0) {
      out.start_objective = out.best_objective = objective;
      out.start_score = out.best_score = score;
    } else {
      loop.tracker.offer(p, objective, score, epoch);
    }
    out.epochs = epoch;
    if (epoch == config.epochs || loop.interrupted() || loop.stalled()) return;
    const double c1 = 1.0 - std::pow(kBeta1, static_cast<double>(epoch + 1));
    const double c2 = 1.0 - std::pow(kBeta2, static_cast<double>(epoch + 1));
    for (std::size_t i = 0; i < size; ++i) {
      double g = grad[i] / loop.count;
      if (i >= p.weights_at() && i < p.bias_at()) g += config.ridge * p.values[i];
      m[i] = kBeta1 * m[i] + (1 - kBeta1) * g;
      v[i] = kBeta2 * v[i] + (1 - kBeta2) * g * g;
      p.values[i] -= config.learning_rate * (m[i] / c1) / (std::sqrt(v[i] / c2) + kEps);
    }
    keep_widths_in_range(p);
  }
}

// One Levenberg-Marquardt epoch: up to 12 damped steps (J^T J / count + ridge I_W + mu diag)
// delta = -gradient, mu adapted, until one lowers the objective. Returns whether one did.
template <typename T>
bool damped_step(RefineEngine<T>& engine, NodeParams& p, double objective, const std::vector<double>& jtj,
                 const std::vector<double>& jte, double& mu, const RefineLoop& loop) {
  // J^T J is symmetric, so its row-major storage is read as column-major, the layout of
  // Eigen's blocked Cholesky.
  using Mat = Eigen::MatrixXd;
  const auto n = static_cast<Eigen::Index>(p.size());
  const double ridge = loop.config.ridge;
  Mat a = Eigen::Map<const Mat>(jtj.data(), n, n) / loop.count;
  Eigen::VectorXd g = Eigen::Map<const Eigen::VectorXd>(jte.data(), n) / loop.count;
  for (std::size_t i = p.weights_at(); i < p.bias_at(); ++i) {
    a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(i)) += ridge;
    g(static_cast<Eigen::Index>(i)) += ridge * p.values[i];
  }
  // A floor on the diagonal scaling keeps directions with no curvature (a node whose
  // weight is zero moves nothing) from making the damped system singular.
  const Eigen::VectorXd diag = a.diagonal();
  const double floor = 1e-12 * std::max(1e-300, diag.maxCoeff());
  Mat damped(n, n);
  Eigen::LLT<Mat> cholesky(n);
  for (int attempt = 0; attempt < 12; ++attempt) {
    damped = a;
    for (Eigen::Index i = 0; i < n; ++i) damped(i, i) += mu * std::max(diag(i), floor);
    // The damped matrix is positive definite up to rounding: a blocked Cholesky (P^3 / 3
    // flops at matrix-product speed); LDLT only where rounding made Cholesky fail.
    cholesky.compute(damped);
    const Eigen::VectorXd delta =
        cholesky.info() == Eigen::Success ? Eigen::VectorXd(cholesky.solve(-g)) : Eigen::VectorXd(damped.ldlt().solve(-g));
    NodeParams trial = p;
    for (Eigen::Index i = 0; i < n; ++i) trial.values[static_cast<std::size_t>(i)] += delta(i);
    keep_widths_in_range(trial);
    const double trial_objective = delta.allFinite() ? loop.objective(engine.loss_gradient(trial, nullptr), trial)
                                                     : std::numeric_limits<double>::infinity();
    if (std::isfinite(trial_objective) && trial_objective < objective) {
      p = std::move(trial);
      mu = std::max(mu / 3.0, 1e-12);
      return true;
    }
    mu *= 4.0;
  }
  return false;
}

// Levenberg-Marquardt on the scaled problem: minimize the objective; each epoch is one
// accepted damped step.
template <typename T>
void refine_lm(RefineEngine<T>& engine, NodeParams p, RefineLoop& loop) {
  RefineOutcome& out = loop.out;
  double mu = loop.config.damping;
  std::vector<double> jtj, jte;
  double objective = loop.objective(engine.normal_equations(p, jtj, jte), p);
  out.start_objective = out.best_objective = objective;
  out.start_score = out.best_score = loop.score_of(p, objective);
  if (!std::isfinite(objective) || !all_finite(jtj) || !all_finite(jte)) {
    out.stop_reason = "the objective is not finite at the start";
    return;
  }
  for (std::size_t epoch = 1; epoch <= loop.config.epochs && !loop.interrupted(); ++epoch) {
    const bool accepted = damped_step(engine, p, objective, jtj, jte, mu, loop);
    out.epochs = epoch;
    if (!accepted) {
      out.stop_reason = "converged: no damped step lowers the objective";
      return;
    }
    objective = loop.objective(engine.normal_equations(p, jtj, jte), p);
    loop.tracker.offer(p, objective, loop.score_of(p, objective), epoch);
    if (!all_finite(jtj) || !all_finite(jte)) {
      out.stop_reason = "the normal equations became non-finite; kept the best epoch";
      return;
    }
    if (loop.stalled()) return;
  }
}

}  // namespace

template <typename T>
RefineOutcome refine(RefineEngine<T>& engine, const NodeParams& start, std::size_t rows, const RefineConfig& config,
                     const RefineScorer& scorer, const std::atomic<bool>* stop) {
  const std::size_t size = start.size();
  const RefineMethod method = resolve_refine_method(config.method, size);
  if (method == RefineMethod::lm && size > kMaxLmParameters)
    throw InputError("refine.method lm: the model has " + std::to_string(size) + " parameters, more than the " +
                     std::to_string(kMaxLmParameters) + " Levenberg-Marquardt solves directly; use refine.method adam");
  RefineOutcome out;
  out.method = method;
  out.best = start;
  out.stop_reason = "ran " + std::to_string(config.epochs) + " epochs";
  RefineLoop loop{config, scorer, stop, rows, static_cast<double>(rows) * static_cast<double>(start.k), out,
                  BestTracker{out}};
  if (method == RefineMethod::adam)
    refine_adam(engine, start, loop);
  else
    refine_lm(engine, start, loop);
  return out;
}

template RefineOutcome refine<float>(RefineEngine<float>&, const NodeParams&, std::size_t, const RefineConfig&,
                                     const RefineScorer&, const std::atomic<bool>*);
template RefineOutcome refine<double>(RefineEngine<double>&, const NodeParams&, std::size_t, const RefineConfig&,
                                      const RefineScorer&, const std::atomic<bool>*);

}  // namespace rbf::model
