// The incremental OLS trainer (orthogonal forward selection), backend-independent.
#include "model/trainer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "gpu/gpu_api.hpp"
#include "model/backend_factory.hpp"
#include "model/calibration_cache.hpp"
#include "model/fault_injection.hpp"
#include "model/gaussian_columns.hpp"
#include "model/refine.hpp"
#include "model/triangular.hpp"

namespace rbf::model {

namespace {

using Clock = std::chrono::steady_clock;

// An upper bound on any CPU's memory bandwidth, for skipping the CPU probe when it cannot matter.
constexpr double kFastestCpuGbs = 400.0;
// A lower bound on starting a GPU (driver, context, first allocations) on any machine seen:
// measured start-ups are 100 to 250 ms.
constexpr double kGpuStartupFloorMs = 50.0;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Standardized training and validation matrices, ready for a backend.
struct PreparedData {
  std::size_t d = 0, k = 0;
  std::vector<std::size_t> train_rows, val_rows;  // indices into the dataset
  std::vector<double> x_train, y_train, x_val;    // standardized, row-major
  std::vector<double> y_val_raw;                  // raw targets (regression) or one-hot
  std::vector<std::size_t> val_class;             // classification: true class per row
  data::Standardizer x_scaler, y_scaler;
};

// Standardized training values must be finite. Only data near the ends of the double range
// breaks this (a column sum beyond 1.8e308, a spread too small to divide by), and a clear
// error beats a model full of NaN.
void check_standardized(const data::Dataset& ds, const data::Standardizer& scaler, const std::vector<double>& values,
                        const std::vector<std::string>& names, const char* what) {
  const std::size_t cols = scaler.columns();
  std::size_t bad = cols;  // the first column with a problem
  for (std::size_t j = 0; j < cols && bad == cols; ++j)
    if (!std::isfinite(scaler.mean[j]) || !std::isfinite(scaler.scale[j])) bad = j;
  for (std::size_t i = 0; i < values.size() && bad == cols; ++i)
    if (!std::isfinite(values[i])) bad = i % cols;
  if (bad == cols) return;
  throw InputError(ds.source + ": " + what + " column '" + (bad < names.size() ? names[bad] : std::to_string(bad)) +
                   "' cannot be standardized: its values are too close to the limits of a double");
}

PreparedData prepare(const data::Dataset& ds, const Config& config) {
  if (ds.rows < 2) throw InputError(ds.source + ": at least 2 data rows are needed to train, found " + std::to_string(ds.rows));
  PreparedData p;
  p.d = ds.features;
  const bool classify = ds.task == data::Task::classification;
  if (classify && ds.class_names.size() < 2)
    throw InputError(ds.source + ": classification needs at least 2 classes, found " + std::to_string(ds.class_names.size()));
  p.k = classify ? ds.class_names.size() : ds.targets;

  const data::Split split = data::train_validation_split(ds.rows, config.data.validation, config.data.seed);
  p.train_rows = split.train;
  p.val_rows = split.validation;

  p.x_scaler = data::Standardizer::fit(ds.x.data(), ds.rows, ds.features, p.train_rows);
  auto take_x = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.resize(rows.size() * p.d);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::copy_n(ds.row(rows[i]), p.d, out.begin() + static_cast<std::ptrdiff_t>(i * p.d));
    p.x_scaler.transform(out.data(), rows.size());
  };
  take_x(p.train_rows, p.x_train);
  take_x(p.val_rows, p.x_val);
  check_standardized(ds, p.x_scaler, p.x_train, ds.feature_names, "feature");

  auto take_y = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.assign(rows.size() * p.k, 0.0);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (classify) {
        out[i * p.k + static_cast<std::size_t>(ds.y[rows[i]])] = 1.0;
      } else {
        std::copy_n(ds.y.begin() + static_cast<std::ptrdiff_t>(rows[i] * ds.targets), p.k,
                    out.begin() + static_cast<std::ptrdiff_t>(i * p.k));
      }
    }
  };
  take_y(p.train_rows, p.y_train);
  take_y(p.val_rows, p.y_val_raw);
  if (classify) {
    p.y_scaler = data::Standardizer::identity(p.k);
    for (std::size_t r : p.val_rows) p.val_class.push_back(static_cast<std::size_t>(ds.y[r]));
  } else {
    p.y_scaler = data::Standardizer::fit(p.y_train.data(), p.train_rows.size(), p.k);
    p.y_scaler.transform(p.y_train.data(), p.train_rows.size());
    check_standardized(ds, p.y_scaler, p.y_train, ds.target_names, "target");
  }
  return p;
}

// The candidate pool: P sampled training rows times S widths, candidate c = p * S + s.
struct CandidatePool {
  std::vector<double> centers;      // count x d, standardized
  std::vector<double> widths;       // count
  std::vector<std::size_t> rows;    // training-set row of each center
  std::size_t per_row = 1;          // S
  std::size_t base_width = 0;       // index s of the factor closest to 1
  double sigma0 = 1;
};

CandidatePool make_pool(const PreparedData& p, const Config& config) {
  const std::size_t n = p.train_rows.size();
  CandidatePool pool;
  pool.sigma0 = config.candidates.sigma0 > 0
                    ? config.candidates.sigma0
                    : median_distance(p.x_train.data(), n, p.d, config.candidates.sigma0_sample,
                                      config.data.seed + 1);
  const auto& factors = config.candidates.width_factors;
  pool.per_row = factors.size();
  for (std::size_t s = 0; s < factors.size(); ++s)
    if (std::abs(std::log(factors[s])) < std::abs(std::log(factors[pool.base_width]))) pool.base_width = s;
  const std::vector<std::size_t> picked = data::sample_indices(n, config.candidates.pool, config.data.seed + 2);
  for (std::size_t r : picked) {
    for (double f : factors) {
      pool.centers.insert(pool.centers.end(), p.x_train.begin() + static_cast<std::ptrdiff_t>(r * p.d),
                          p.x_train.begin() + static_cast<std::ptrdiff_t>((r + 1) * p.d));
      pool.widths.push_back(f * pool.sigma0);
      pool.rows.push_back(r);
    }
  }
  return pool;
}

template <typename T>
std::vector<T> to_scalar(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Validation metrics of the model with the first `nodes` nodes.
struct ValidationScore {
  double rmse = -1, accuracy = -1;
};

// Scores standardized validation predictions (nv x k); `pred` is turned into target units.
ValidationScore score_predictions(const PreparedData& p, bool classify, std::vector<double>& scratch) {
  ValidationScore score;
  const std::size_t nv = p.val_rows.size();
  if (nv == 0) return score;
  if (!classify) p.y_scaler.inverse_transform(scratch.data(), nv);
  double sse = 0;
  for (std::size_t i = 0; i < scratch.size(); ++i) {
    const double e = scratch[i] - p.y_val_raw[i];
    sse += e * e;
  }
  score.rmse = std::sqrt(sse / static_cast<double>(scratch.size()));
  if (classify) {
    std::size_t right = 0;
    for (std::size_t i = 0; i < nv; ++i) {
      const double* row = scratch.data() + i * p.k;
      const auto best = static_cast<std::size_t>(std::max_element(row, row + p.k) - row);
      right += best == p.val_class[i];
    }
    score.accuracy = static_cast<double>(right) / static_cast<double>(nv);
  }
  return score;
}

template <typename T>
ValidationScore score_validation(Backend<T>& backend, const PreparedData& p, const std::vector<double>& w,
                                 std::size_t nodes, bool classify, std::vector<double>& scratch) {
  if (p.val_rows.empty()) return ValidationScore();
  backend.predict_validation(w.data(), nodes, scratch);
  return score_predictions(p, classify, scratch);
}

template <typename T>
std::unique_ptr<Backend<T>> hook_make(const TrainerHooks& hooks, BackendKind kind, const Config& config);
template <>
std::unique_ptr<Backend<float>> hook_make<float>(const TrainerHooks& hooks, BackendKind kind, const Config& config) {
  return hooks.make_float ? hooks.make_float(kind) : make_backend<float>(kind, config.backend, config.trainer.threads);
}
template <>
std::unique_ptr<Backend<double>> hook_make<double>(const TrainerHooks& hooks, BackendKind kind, const Config& config) {
  return hooks.make_double ? hooks.make_double(kind) : make_backend<double>(kind, config.backend, config.trainer.threads);
}

bool default_gpu_available(const Config& config, std::string& why) {
  if (!gpu::built_with_cuda()) {
    why = "this rbfnet was built without CUDA";
    return false;
  }
  const gpu::DeviceReport report = gpu::query_devices();
  if (report.devices.empty()) {
    why = report.why_none;
    return false;
  }
  if (config.backend.gpu_device < 0 || static_cast<std::size_t>(config.backend.gpu_device) >= report.devices.size()) {
    why = "backend.gpu_device " + std::to_string(config.backend.gpu_device) + " does not exist";
    return false;
  }
  return true;
}

// One training run: the host state (R, Q^T Y, chosen nodes) and the backend that holds the
// large state, which can be replaced mid-run by migration (auto) or fallback (GPU fault).
template <typename T>
class GrowthRun {
 public:
  GrowthRun(const data::Dataset& ds, const Config& config, const TrainOptions& options)
      : ds_(ds),
        config_(config),
        options_(options),
        hooks_(options.hooks),
        p_(prepare(ds, config)),
        pool_(make_pool(p_, config)) {
    n_ = p_.train_rows.size();
    nv_ = p_.val_rows.size();
    k_ = p_.k;
    count_ = pool_.widths.size();
    x_ = to_scalar<T>(p_.x_train);
    y_ = to_scalar<T>(p_.y_train);
    xv_ = to_scalar<T>(p_.x_val);
    centers_ = to_scalar<T>(pool_.centers);
    widths_ = to_scalar<T>(pool_.widths);
    // A configured sigma0 so extreme that gamma = 1/(2 sigma^2) overflows or underflows in T
    // would make every candidate column NaN or constant: say so instead of training on nothing.
    for (std::size_t c = 0; c < count_ && config.candidates.sigma0 > 0; ++c) {
      const T gamma = gaussian_gamma(widths_[c]);
      if (widths_[c] > 0 && std::isfinite(gamma) && gamma > 0) continue;
      throw InputError(fmt::format("'candidates.sigma0' {:g} gives the candidate width {:g}, outside what {} training "
                                   "can use; the data are standardized, so choose a sigma0 nearer 1",
                                   config.candidates.sigma0, pool_.widths[c], sizeof(T) == 4 ? "float32" : "float64"));
    }
    ols_ = config.trainer.strategy == Strategy::ols;
    // Levenberg-Marquardt solves a P x P system; say now, not after the whole growth, when the
    // largest model this run can grow would be too large for it.
    const RefineConfig& refine = config.refine;
    const std::size_t most_params = config.stopping.max_nodes * (p_.d + 1 + k_) + k_;
    if (refine.method == RefineMethod::lm && (refine.every > 0 || refine.at_end) && most_params > kMaxLmParameters)
      throw InputError(fmt::format("refine.method lm: {} nodes of {} features and {} outputs make {} parameters, more "
                                   "than the {} Levenberg-Marquardt solves directly; use refine.method adam or at most "
                                   "{} nodes",
                                   config.stopping.max_nodes, p_.d, k_, most_params, kMaxLmParameters,
                                   (kMaxLmParameters - k_) / (p_.d + 1 + k_)));
    fault_at_ = hooks_.fault_gpu_at_iteration ? hooks_.fault_gpu_at_iteration : fault_iteration_from_env();
  }

  TrainResult run();

 private:
  std::unique_ptr<Backend<T>> create(BackendKind kind) {
    std::unique_ptr<Backend<T>> b = hook_make<T>(hooks_, kind, config_);
    if (fault_at_ > 0 && b->name() == "gpu")
      b = std::make_unique<FaultInjectingBackend<T>>(std::move(b), fault_at_, &iteration_);
    b->set_training_data(x_.data(), n_, p_.d, y_.data(), k_);
    b->set_validation_data(xv_.data(), nv_);
    b->set_candidates(centers_.data(), widths_.data(), pool_.rows.data(), count_,
                      config_.candidates.memory_budget_mb * 1024.0 * 1024.0);
    return b;
  }

  // Bias-only model on `b`; returns q_0^T Y.
  std::vector<double> start(Backend<T>& b) {
    std::vector<double> a;
    b.reset_to_bias(a);
    // max_residual places a node at the worst-fitted row with the base width only.
    if (!ols_)
      for (std::size_t c = 0; c < count_; ++c)
        if (c % pool_.per_row != pool_.base_width) b.mark_used(c);
    return a;
  }

  // Rebuilds the model grown so far on `b` by re-adding its nodes in order; R and Q^T Y are
  // recomputed from b's own arithmetic so that everything stays consistent. Nodes still at
  // their candidates are re-added as those candidates (growth's own arithmetic, so that a
  // resumed run matches an uninterrupted one); after a refinement moved them, nodes are
  // added where they are now. With `drop_dependent`, a moved node that became dependent on
  // the earlier ones (two nodes refined onto each other) leaves the model instead.
  void replay(Backend<T>& b, bool drop_dependent = false) {
    std::vector<double> a = start(b), h;
    theta_ = a;
    r_.set_column(0, {std::sqrt(static_cast<double>(n_))});
    for (std::size_t c : skipped_) b.mark_used(c);
    if (nodes_moved_)
      for (std::size_t c : chosen_) b.mark_used(c);
    const double tol = config_.trainer.dependency_tol;
    std::vector<T> center(p_.d);
    for (std::size_t j = 0; j < chosen_.size();) {
      std::copy_n(node_centers_.begin() + static_cast<std::ptrdiff_t>(j * p_.d), p_.d, center.begin());
      const auto width = static_cast<T>(node_widths_[j]);
      const double norm = nodes_moved_ ? b.add_node_at(center.data(), width, tol, h) : b.add_node(chosen_[j], tol, h);
      if (!(norm > 0)) {
        if (!drop_dependent || !nodes_moved_)
          throw RuntimeError("internal error: a node became dependent while rebuilding the model");
        skipped_.push_back(chosen_[j]);
        chosen_.erase(chosen_.begin() + static_cast<std::ptrdiff_t>(j));
        node_centers_.erase(node_centers_.begin() + static_cast<std::ptrdiff_t>(j * p_.d),
                            node_centers_.begin() + static_cast<std::ptrdiff_t>((j + 1) * p_.d));
        node_widths_.erase(node_widths_.begin() + static_cast<std::ptrdiff_t>(j));
        continue;
      }
      b.update(ols_, a);
      h.push_back(norm);
      r_.set_column(j + 1, h);
      theta_.insert(theta_.end(), a.begin(), a.end());
      if (nv_ > 0) {
        if (nodes_moved_) {
          b.add_validation_column_at(center.data(), width);
        } else {
          b.add_validation_column(chosen_[j]);
        }
      }
      ++j;
    }
  }

  // Appends candidate c as the newest node (host record only).
  void commit_node(std::size_t c) {
    chosen_.push_back(c);
    node_centers_.insert(node_centers_.end(), pool_.centers.begin() + static_cast<std::ptrdiff_t>(c * p_.d),
                         pool_.centers.begin() + static_cast<std::ptrdiff_t>((c + 1) * p_.d));
    node_widths_.push_back(pool_.widths[c]);
  }

  // ---- Refinement (model/refine.hpp) ----

  // The refinement engine of the backend in use: created on first use and after a move.
  // Where the GPU engine cannot be created, refinement runs on the CPU and says so.
  RefineEngine<T>& refine_engine(std::vector<std::string>& events) {
    const std::string kind = backend_->name();
    if (engine_ && engine_kind_ == kind) return *engine_;
    engine_.reset();
    if (kind == "gpu") {
      try {
        engine_ = make_refine_engine<T>(BackendKind::gpu, config_.backend, config_.trainer.threads);
      } catch (const std::runtime_error& e) {  // InputError (no CUDA) or gpu::Error
        events.push_back(std::string("refinement runs on the CPU: ") + e.what());
        spdlog::warn("{}", events.back());
      }
    }
    if (!engine_) engine_ = make_refine_engine<T>(BackendKind::cpu, config_.backend, config_.trainer.threads);
    engine_kind_ = kind;
    engine_->set_data(x_.data(), n_, p_.d, y_.data(), k_, xv_.data(), nv_);
    return *engine_;
  }

  // The first `keep` nodes with their least-squares weights, as refinement parameters.
  NodeParams node_params(std::size_t keep) const {
    std::vector<double> w;
    r_.solve(theta_, k_, keep, w);
    NodeParams p(keep, p_.d, k_);
    std::copy_n(node_centers_.begin(), keep * p_.d, p.centers());
    for (std::size_t j = 0; j < keep; ++j) p.log_widths()[j] = std::log(node_widths_[j]);
    std::copy(w.begin() + static_cast<std::ptrdiff_t>(k_), w.end(), p.weights());
    std::copy_n(w.begin(), k_, p.bias());
    return p;
  }

  // Runs the configured optimizer, scored on validation RMSE when there is a validation set.
  RefineOutcome optimize(RefineEngine<T>& engine, const NodeParams& start, bool classify) {
    RefineScorer scorer;
    if (nv_ > 0) {
      scorer = [&](const NodeParams& q) {
        std::vector<double> pred;
        engine.predict_validation(q, pred);
        return score_predictions(p_, classify, pred).rmse;
      };
    }
    return refine(engine, start, n_, config_.refine, scorer);
  }

  std::string describe(const RefineOutcome& out, const std::string& engine, std::size_t nodes) const {
    return fmt::format("refine {} nodes on the {} ({}, {} epochs, best at {}; {})", nodes, engine,
                       config_.refine.method == RefineMethod::lm ? "lm" : "adam", out.epochs, out.best_epoch,
                       out.stop_reason);
  }

  // refine.every: refines every node grown so far, rebuilds Q, R and the candidate
  // statistics from the moved nodes, and keeps the result only if the rebuilt model's
  // validation error (training error without validation) beats the model before it.
  // `val_rmse` is the current model's; train_rmse is updated. Returns the log line.
  std::string refine_growing(bool classify, double val_rmse, double& train_rmse, double total_sse0,
                             std::vector<std::string>& events) {
    const std::size_t t = chosen_.size();
    RefineEngine<T>& engine = refine_engine(events);
    const RefineOutcome out = optimize(engine, node_params(t), classify);
    const std::string what = describe(out, engine.name(), t);
    if (!out.improved()) return what + ": no improvement, nodes kept";

    // What the rebuild replaces, to roll back to; and the best model so far if it is a
    // shorter prefix of the current nodes, which the rebuild cannot reproduce.
    const std::vector<double> old_centers = node_centers_, old_widths = node_widths_;
    const std::vector<std::size_t> old_chosen = chosen_, old_skipped = skipped_;
    const bool old_moved = nodes_moved_;
    std::unique_ptr<Network> snapshot;
    if (nv_ > 0 && !best_snapshot_ && best_nodes_ < t) snapshot = std::make_unique<Network>(assemble(best_nodes_));
    const double snapshot_rmse = nv_ > 0 && best_nodes_ < t ? train_rmse_at_[best_nodes_] : 0.0;
    auto roll_back = [&] {
      node_centers_ = old_centers;
      node_widths_ = old_widths;
      chosen_ = old_chosen;
      skipped_ = old_skipped;
      nodes_moved_ = old_moved;
      replay(*backend_);
    };

    std::copy_n(out.best.centers(), t * p_.d, node_centers_.begin());
    for (std::size_t j = 0; j < t; ++j) node_widths_[j] = std::exp(out.best.log_widths()[j]);
    nodes_moved_ = true;
    double new_rmse = 0;
    ValidationScore v;
    try {
      replay(*backend_, /*drop_dependent=*/true);
      double sse = total_sse0;
      for (std::size_t i = k_; i < theta_.size(); ++i) sse -= theta_[i] * theta_[i];
      new_rmse = std::sqrt(std::max(0.0, sse) / static_cast<double>(n_ * k_));
      if (nv_ > 0) {
        std::vector<double> w, scratch;
        r_.solve(theta_, k_, chosen_.size(), w);
        v = score_validation(*backend_, p_, w, chosen_.size(), classify, scratch);
      }
    } catch (const gpu::Error&) {
      // The host record goes back to the nodes before refinement; the caller moves the run
      // off the failed GPU by replaying them.
      node_centers_ = old_centers;
      node_widths_ = old_widths;
      chosen_ = old_chosen;
      skipped_ = old_skipped;
      nodes_moved_ = old_moved;
      throw;
    }
    const bool better = nv_ > 0 ? v.rmse < val_rmse : new_rmse < train_rmse;
    if (!better) {
      roll_back();
      return what + fmt::format(": the rebuilt model was not better ({} {:.5g} vs {:.5g}); rolled back",
                                nv_ > 0 ? "validation RMSE" : "training RMSE", nv_ > 0 ? v.rmse : new_rmse,
                                nv_ > 0 ? val_rmse : train_rmse);
    }
    const std::size_t kept = chosen_.size();
    train_rmse_at_.resize(kept + 1);
    train_rmse_at_[kept] = new_rmse;
    if (snapshot) {
      best_snapshot_ = std::move(snapshot);
      best_snapshot_train_rmse_ = snapshot_rmse;
    }
    std::string result = what + fmt::format(": training RMSE {:.5g} -> {:.5g}", train_rmse, new_rmse);
    if (nv_ > 0) {
      result += fmt::format(", validation RMSE {:.5g} -> {:.5g}", val_rmse, v.rmse);
      if (v.rmse < best_val_rmse_) {
        best_val_rmse_ = v.rmse;
        best_val_accuracy_ = v.accuracy;
        best_nodes_ = kept;
        best_snapshot_.reset();
        since_best_ = 0;
      }
    }
    if (kept < t) result += fmt::format("; {} nodes became dependent and were dropped", t - kept);
    train_rmse = new_rmse;
    return result;
  }

  // refine.at_end: refines the kept model and keeps the refined one only if it is better
  // on validation (on the training objective without validation).
  void refine_at_end(TrainResult& result, bool classify) {
    Network& net = result.network;
    const std::size_t t = net.nodes();
    if (t == 0) {
      result.events.push_back("refine at the end: the model has no nodes to refine");
      return;
    }
    const auto t0 = Clock::now();
    RefineEngine<T>& engine = refine_engine(result.events);
    NodeParams start(t, p_.d, k_);
    std::copy(net.centers.begin(), net.centers.end(), start.centers());
    for (std::size_t j = 0; j < t; ++j) start.log_widths()[j] = std::log(net.widths[j]);
    std::copy(net.weights.begin(), net.weights.end(), start.weights());
    std::copy(net.bias.begin(), net.bias.end(), start.bias());
    const RefineOutcome out = optimize(engine, start, classify);
    std::string what = "at the end: " + describe(out, engine.name(), t);
    if (out.improved()) {
      const NodeParams& best = out.best;
      std::copy_n(best.centers(), t * p_.d, net.centers.begin());
      for (std::size_t j = 0; j < t; ++j) net.widths[j] = std::exp(best.log_widths()[j]);
      std::copy_n(best.weights(), t * k_, net.weights.begin());
      std::copy_n(best.bias(), k_, net.bias.begin());
      const double sse = 2.0 * engine.loss_gradient(best, nullptr);
      const double rmse = std::sqrt(sse / static_cast<double>(n_ * k_));
      what += fmt::format(": training RMSE {:.5g} -> {:.5g}", result.final_train_rmse, rmse);
      result.final_train_rmse = rmse;
      if (nv_ > 0) {
        std::vector<double> pred;
        engine.predict_validation(best, pred);
        const ValidationScore v = score_predictions(p_, classify, pred);
        what += fmt::format(", validation RMSE {:.5g} -> {:.5g}", result.best_val_rmse, v.rmse);
        result.best_val_rmse = v.rmse;
        result.best_val_accuracy = v.accuracy;
      }
    } else {
      what += ": no improvement, model kept";
    }
    const double ms = ms_since(t0);
    result.refine_seconds += ms / 1000.0;
    result.events.push_back(what + fmt::format(" ({:.1f} ms)", ms));
    spdlog::info("{}", result.events.back());
  }

  // The model to save: the best on validation (a snapshot when a refinement replaced the
  // nodes it was made of), or the last without validation.
  Network best_network() const {
    if (nv_ == 0) return assemble(chosen_.size());
    if (best_snapshot_) return *best_snapshot_;
    return assemble(best_nodes_);
  }
  double best_train_rmse() const {
    if (nv_ == 0) return train_rmse_at_[chosen_.size()];
    return best_snapshot_ ? best_snapshot_train_rmse_ : train_rmse_at_[best_nodes_];
  }

  // Moves the run onto a new backend of `kind`; returns the milliseconds it took. After a
  // device fault (`after_fault`) the old backend's state is not trusted: the fault may have
  // come half-way through changing it, so the model is rebuilt from the host's record.
  double move_to(BackendKind kind, bool after_fault = false) {
    const auto t0 = Clock::now();
    std::unique_ptr<Backend<T>> next = create(kind);
    bool moved = false;
    if (backend_ && !after_fault) {
      try {
        BackendState<T> state;
        backend_->export_state(state);
        next->import_state(state);
        moved = true;
      } catch (const std::logic_error&) {
        moved = false;  // a backend without state transfer: rebuild instead
      }
    }
    if (!moved) replay(*next);
    backend_ = std::move(next);
    return ms_since(t0);
  }

  double migration_bytes() const {
    const double scalars = static_cast<double>(n_ * (p_.d + k_ + chosen_.size() + 1 + k_) + nv_ * (p_.d + chosen_.size()) +
                                               count_ * (p_.d + 3 + k_));
    return scalars * sizeof(T);
  }

  IterationShape shape() const {
    IterationShape s;
    s.rows = n_;
    s.features = p_.d;
    s.outputs = k_;
    const std::size_t unavailable = chosen_.size() + skipped_.size() + (ols_ ? 0 : count_ - count_ / pool_.per_row);
    s.candidates_unused = count_ > unavailable ? count_ - unavailable : 0;
    s.nodes = chosen_.size();
    s.validation_rows = nv_;
    s.scalar_bytes = sizeof(T);
    s.candidates_stored = backend_->candidates_stored();
    s.refine_every = config_.refine.every;
    s.refine_epochs = config_.refine.epochs;
    s.refine_lm = config_.refine.method == RefineMethod::lm;
    return s;
  }

  // The CPU's refinement cost per grown node at the current size, extrapolated from the last
  // refinement measured on the CPU (a refinement's cost grows with the node count); 0 before
  // any. Added to the measured iteration time the switch compares with the GPU's prediction.
  double cpu_refine_share_ms() const {
    if (config_.refine.every == 0 || cpu_refine_nodes_ == 0) return 0.0;
    const double scale = static_cast<double>(chosen_.size()) / static_cast<double>(cpu_refine_nodes_);
    return cpu_refine_ms_ * scale / static_cast<double>(config_.refine.every);
  }

  // auto: the first iteration's shape, before any backend exists.
  IterationShape first_shape() const {
    IterationShape first;
    first.rows = n_;
    first.features = p_.d;
    first.outputs = k_;
    first.candidates_unused = ols_ ? count_ : count_ / pool_.per_row;
    first.validation_rows = nv_;
    first.scalar_bytes = sizeof(T);
    first.candidates_stored = static_cast<double>(count_) * static_cast<double>(n_) * sizeof(T) <=
                              config_.candidates.memory_budget_mb * 1024.0 * 1024.0;
    return first;
  }

  // True when all max_nodes iterations, read at kFastestCpuGbs, would take less than
  // kGpuStartupFloorMs: no GPU could win that back, so auto need not look for one.
  bool whole_run_too_small_for_a_gpu() const {
    IterationShape last = first_shape();
    last.nodes = config_.stopping.max_nodes;  // the largest Q of the run bounds every iteration
    const double bytes = iteration_bytes(last) * static_cast<double>(config_.stopping.max_nodes);
    return iteration_flops(last) == 0 && bytes / (kFastestCpuGbs * 1e9) * 1e3 < kGpuStartupFloorMs;
  }

  // auto on a large problem: whether to skip the CPU phase (before any backend exists).
  bool starts_on_gpu(const SwitchPolicy&) const {
    const IterationShape first = first_shape();
    const double setup_bytes =
        static_cast<double>(n_ * (p_.d + k_) + nv_ * p_.d + count_ * (p_.d + 1)) * sizeof(T);
    if (hooks_.cpu_cost)
      return start_on_gpu(config_.backend, hooks_.cpu_cost(), gpu_cost_, migration_, first, config_.stopping.max_nodes,
                          setup_bytes);
    // Not even a CPU reading at kFastestCpuGbs could lose by 2x: small problems skip the probe.
    CostModel fastest_cpu;
    fastest_cpu.overhead_ms = 0;
    fastest_cpu.bandwidth_gbs = kFastestCpuGbs;
    fastest_cpu.gflops = 1e30;
    if (!start_on_gpu(config_.backend, fastest_cpu, gpu_cost_, migration_, first, config_.stopping.max_nodes,
                      setup_bytes))
      return false;
    static const CostModel measured = probe_cpu_cost_model(config_.trainer.threads);  // once per process
    return start_on_gpu(config_.backend, measured, gpu_cost_, migration_, first, config_.stopping.max_nodes,
                        setup_bytes);
  }

  // The network with the first `keep` nodes.
  Network assemble(std::size_t keep) const;
  // Where the run stands, for checkpoints.
  TrainingState state() const;
  // Restores a checkpointed run: counters from `state`, the model by replaying its nodes.
  void resume(const TrainingState& state);

  const data::Dataset& ds_;
  const Config& config_;
  const TrainOptions& options_;
  const TrainerHooks& hooks_;
  const PreparedData p_;
  const CandidatePool pool_;
  std::size_t n_ = 0, nv_ = 0, k_ = 0, count_ = 0;
  std::vector<T> x_, y_, xv_, centers_, widths_;
  bool ols_ = true;
  std::size_t fault_at_ = 0;
  std::size_t iteration_ = 0;

  std::unique_ptr<Backend<T>> backend_;
  UpperTriangular r_;                // R of [1, Phi_selected] = Q R
  std::vector<double> theta_;        // Q^T Y, row-major (nodes + 1) x k
  std::vector<std::size_t> chosen_;  // candidate per node
  std::vector<double> node_centers_; // nodes x d, standardized: where each node is now
  std::vector<double> node_widths_;  // nodes
  bool nodes_moved_ = false;         // a refinement moved the nodes off their candidates
  std::unique_ptr<Network> best_snapshot_;  // the best model when no prefix of the nodes is
  double best_snapshot_train_rmse_ = 0;
  std::unique_ptr<RefineEngine<T>> engine_;
  std::string engine_kind_;          // the backend the engine was made for
  std::size_t grown_since_refine_ = 0;  // nodes added since the last refinement (refine.every)
  double cpu_refine_ms_ = 0;            // the last refinement on the CPU, rebuild included
  std::size_t cpu_refine_nodes_ = 0;    // ... and the nodes it refined
  std::vector<std::size_t> skipped_; // candidates found dependent
  std::vector<double> train_rmse_at_;
  std::size_t best_nodes_ = 0, since_best_ = 0;
  double best_val_rmse_ = -1, best_val_accuracy_ = -1;
  double elapsed_before_ = 0;        // growth seconds of the run this one resumes
  CostModel gpu_cost_;               // auto: the switch policy's models
  MigrationModel migration_;
};

template <typename T>
Network GrowthRun<T>::assemble(std::size_t keep) const {
  std::vector<double> weights;
  r_.solve(theta_, k_, keep, weights);
  Network net;
  net.task = ds_.task;
  net.inputs = p_.d;
  net.outputs = k_;
  net.feature_names = ds_.feature_names;
  net.target_names = ds_.target_names;
  net.class_names = ds_.class_names;
  net.x_scaler = p_.x_scaler;
  net.y_scaler = p_.y_scaler;
  net.bias.assign(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(k_));
  net.weights.assign(weights.begin() + static_cast<std::ptrdiff_t>(k_), weights.end());
  net.centers.assign(node_centers_.begin(), node_centers_.begin() + static_cast<std::ptrdiff_t>(keep * p_.d));
  net.widths.assign(node_widths_.begin(), node_widths_.begin() + static_cast<std::ptrdiff_t>(keep));
  net.provenance.backend = backend_ ? backend_->name() : "";
  return net;
}

template <typename T>
TrainingState GrowthRun<T>::state() const {
  TrainingState s;
  s.iteration = iteration_;
  s.chosen = chosen_;
  s.skipped = skipped_;
  s.best_nodes = best_nodes_;
  s.since_best = since_best_;
  s.best_val_rmse = best_val_rmse_;
  s.best_val_accuracy = best_val_accuracy_;
  s.train_rmse_at = train_rmse_at_;
  s.candidates = count_;
  s.data_sha256 = options_.data_sha256;
  s.grown_since_refine = grown_since_refine_;
  if (nodes_moved_) {
    s.node_centers = node_centers_;
    s.node_widths = node_widths_;
  }
  if (nv_ > 0 && best_snapshot_) {
    const Network& b = *best_snapshot_;
    s.best_snapshot_nodes = b.nodes();
    for (const auto* part : {&b.centers, &b.widths, &b.weights, &b.bias})
      s.best_snapshot.insert(s.best_snapshot.end(), part->begin(), part->end());
    s.best_snapshot_train_rmse = best_snapshot_train_rmse_;
  }
  return s;
}

template <typename T>
void GrowthRun<T>::resume(const TrainingState& s) {
  if (s.candidates != count_)
    throw InputError("the checkpoint was made with " + std::to_string(s.candidates) +
                     " candidates but this data and configuration give " + std::to_string(count_) +
                     "; resume with the same data and configuration");
  if (!s.data_sha256.empty() && !options_.data_sha256.empty() && s.data_sha256 != options_.data_sha256)
    throw InputError("the checkpoint was made from different training data (SHA-256 differs)");
  chosen_ = s.chosen;
  skipped_ = s.skipped;
  node_centers_.clear();
  node_widths_.clear();
  for (std::size_t c : chosen_) {
    node_centers_.insert(node_centers_.end(), pool_.centers.begin() + static_cast<std::ptrdiff_t>(c * p_.d),
                         pool_.centers.begin() + static_cast<std::ptrdiff_t>((c + 1) * p_.d));
    node_widths_.push_back(pool_.widths[c]);
  }
  if (!s.node_widths.empty()) {
    if (s.node_centers.size() != chosen_.size() * p_.d)
      throw InputError("the checkpoint's node centers do not match this data's " + std::to_string(p_.d) + " features");
    node_centers_ = s.node_centers;
    node_widths_ = s.node_widths;
    nodes_moved_ = true;
  }
  if (s.best_snapshot_nodes > 0) {
    const std::size_t m = s.best_snapshot_nodes;
    if (s.best_snapshot.size() != m * (p_.d + 1 + k_) + k_)
      throw InputError("the checkpoint's best model does not match this data's features and outputs");
    best_snapshot_ = std::make_unique<Network>(assemble(0));
    auto at = s.best_snapshot.begin();
    for (auto* part : {&best_snapshot_->centers, &best_snapshot_->widths, &best_snapshot_->weights, &best_snapshot_->bias}) {
      const std::size_t size = part == &best_snapshot_->centers ? m * p_.d
                               : part == &best_snapshot_->widths ? m
                               : part == &best_snapshot_->weights ? m * k_ : k_;
      part->assign(at, at + static_cast<std::ptrdiff_t>(size));
      at += static_cast<std::ptrdiff_t>(size);
    }
    best_snapshot_train_rmse_ = s.best_snapshot_train_rmse;
  }
  replay(*backend_);
  iteration_ = s.iteration;
  train_rmse_at_ = s.train_rmse_at;
  best_nodes_ = s.best_nodes;
  since_best_ = s.since_best;
  best_val_rmse_ = s.best_val_rmse;
  best_val_accuracy_ = s.best_val_accuracy;
  elapsed_before_ = s.elapsed_seconds;
  grown_since_refine_ = s.grown_since_refine;
}

template <typename T>
TrainResult GrowthRun<T>::run() {
  const auto setup_start = Clock::now();
  const bool classify = ds_.task == data::Task::classification;
  const BackendKind requested = config_.backend.kind;
  TrainResult result;

  // auto starts on the CPU and may move to the GPU later, if there is one.
  std::unique_ptr<SwitchPolicy> policy;
  if (requested == BackendKind::auto_select && !hooks_.gpu_available && gpu::built_with_cuda() &&
      whole_run_too_small_for_a_gpu()) {
    // Asking the CUDA runtime for devices starts the driver (a few hundred ms), more than
    // this whole run would take even on the fastest CPU: do not touch the GPU at all.
    spdlog::debug("backend auto: the whole run is too small to repay a GPU start-up; training on the CPU");
  } else if (requested == BackendKind::auto_select) {
    std::string why;
    bool usable = hooks_.gpu_available ? hooks_.gpu_available(why) : default_gpu_available(config_, why);
    if (usable) {
      CostModel gpu_cost;
      MigrationModel migration;
      if (hooks_.cost_models) {
        hooks_.cost_models(gpu_cost, migration);
      } else if (config_.backend.switch_at_nodes == 0) {
        // The cost model matters only when no threshold is forced; a probe may run here.
        try {
          const SwitchCosts costs = switch_costs(config_.backend);
          gpu_cost = costs.gpu;
          migration = costs.migration;
          spdlog::debug("backend auto: GPU cost model from {}", costs.source);
        } catch (const gpu::Error& e) {
          usable = false;  // a GPU that fails its probe is no GPU to move to
          why = e.what();
        }
      }
      if (usable) {
        policy = std::make_unique<SwitchPolicy>(config_.backend, gpu_cost, migration);
        gpu_cost_ = gpu_cost;
        migration_ = migration;
      }
    }
    if (!usable) {
      spdlog::info("backend auto: no usable GPU ({}); training on the CPU", why);
      result.events.push_back("no usable GPU (" + why + "): training on the CPU");
    }
  }
  if (policy && (hooks_.cost_models || config_.backend.switch_at_nodes == 0) && starts_on_gpu(*policy)) {
    try {
      backend_ = create(BackendKind::gpu);
      policy.reset();
      result.events.push_back("auto: starting on the GPU: even the first iterations are predicted far cheaper there");
      spdlog::info("{}", result.events.back());
    } catch (const gpu::Error& e) {
      result.events.push_back(std::string("auto: the GPU could not be set up (") + e.what() + "); starting on the CPU");
      spdlog::warn("{}", result.events.back());
    }
  }
  if (!backend_) backend_ = create(requested == BackendKind::gpu ? BackendKind::gpu : BackendKind::cpu);
  theta_ = start(*backend_);
  r_.set_column(0, {std::sqrt(static_cast<double>(n_))});

  const double total_sse0 = [&] {
    double s = 0;
    for (double v : p_.y_train) s += v * v;
    for (std::size_t j = 0; j < k_; ++j) s -= theta_[j] * theta_[j];
    return std::max(0.0, s);
  }();
  const double denom = static_cast<double>(n_ * k_);
  std::vector<double> h, a, weights, scratch;
  if (options_.resume) {
    resume(*options_.resume);
  } else {
    train_rmse_at_ = {std::sqrt(total_sse0 / denom)};
    if (nv_ > 0) {
      r_.solve(theta_, k_, 0, weights);
      const ValidationScore v = score_validation(*backend_, p_, weights, 0, classify, scratch);
      best_val_rmse_ = v.rmse;
      best_val_accuracy_ = v.accuracy;
    }
  }
  double train_rmse = train_rmse_at_.back();

  result.train_rows = n_;
  result.validation_rows = nv_;
  result.candidates = count_;
  result.candidates_stored = backend_->candidates_stored();
  result.sigma0 = pool_.sigma0;
  result.setup_seconds = ms_since(setup_start) / 1000.0;

  const std::size_t max_nodes = config_.stopping.max_nodes;
  const auto loop_start = Clock::now();
  auto elapsed = [&] { return elapsed_before_ + ms_since(loop_start) / 1000.0; };
  result.stop_reason = "reached max_nodes";
  if (nv_ > 0 && config_.stopping.patience > 0 && since_best_ >= config_.stopping.patience)
    result.stop_reason = "validation error did not improve for " + std::to_string(config_.stopping.patience) + " iterations";
  while (chosen_.size() < max_nodes &&
         !(nv_ > 0 && config_.stopping.patience > 0 && since_best_ >= config_.stopping.patience)) {
    if (config_.stopping.goal > 0 && train_rmse <= config_.stopping.goal) {
      result.stop_reason = "reached the training error goal";
      break;
    }
    if (config_.stopping.max_seconds > 0 && elapsed() >= config_.stopping.max_seconds) {
      result.stop_reason = "reached max_seconds";
      break;
    }
    IterationRecord rec;
    rec.iteration = ++iteration_;
    rec.backend = backend_->name();
    const std::size_t theta_size = theta_.size();
    bool found = true;
    const auto t0 = Clock::now();
    try {
      const Selection sel = ols_ ? backend_->select_ols(config_.trainer.lambda, config_.trainer.dependency_tol)
                                 : backend_->select_max_residual();
      rec.select_ms = ms_since(t0);
      found = sel.found;
      if (found) {
        const std::size_t c = sel.index;
        rec.row = static_cast<long long>(p_.train_rows[pool_.rows[c]]);
        rec.width = pool_.widths[c];
        const auto t1 = Clock::now();
        const double norm = backend_->add_node(c, config_.trainer.dependency_tol, h);
        rec.add_ms = ms_since(t1);
        if (norm > 0) {
          const auto t2 = Clock::now();
          backend_->update(ols_, a);
          rec.update_ms = ms_since(t2);
          if (nv_ > 0) backend_->add_validation_column(c);
          // Committed only now that every backend call of the iteration has succeeded.
          h.push_back(norm);
          r_.set_column(chosen_.size() + 1, h);
          theta_.insert(theta_.end(), a.begin(), a.end());
          commit_node(c);
        } else {
          rec.dependent = true;
          skipped_.push_back(c);
        }
      }
      rec.nodes = chosen_.size();
      if (found && !rec.dependent && nv_ > 0) {
        const auto t3 = Clock::now();
        r_.solve(theta_, k_, chosen_.size(), weights);
        const ValidationScore v = score_validation(*backend_, p_, weights, chosen_.size(), classify, scratch);
        rec.val_rmse = v.rmse;
        rec.val_accuracy = v.accuracy;
        rec.evaluate_ms = ms_since(t3);
      }
    } catch (const gpu::Error& e) {
      if (requested != BackendKind::auto_select || backend_->name() != "gpu") throw;
      // A GPU fault in auto: drop this iteration and rebuild the model on the CPU from the
      // host's record of the nodes chosen so far, then go on from there.
      if (rec.dependent) skipped_.pop_back();
      if (theta_.size() != theta_size) {  // the fault came after the node was committed
        theta_.resize(theta_size);
        chosen_.pop_back();
        node_centers_.resize(chosen_.size() * p_.d);
        node_widths_.pop_back();
      }
      --iteration_;
      policy.reset();
      const double ms = move_to(BackendKind::cpu, /*after_fault=*/true);
      const std::string event = fmt::format("GPU failure ({}); rebuilt {} nodes on the CPU in {:.1f} ms and continued",
                                            e.what(), chosen_.size(), ms);
      spdlog::warn("{}", event);
      result.events.push_back(event);
      continue;
    }
    if (!found) {
      result.stop_reason = "no admissible candidate left";
      --iteration_;
      break;
    }

    if (!rec.dependent) {
      // ||E||^2 = ||Y||^2 - ||Q^T Y||^2: exact in exact arithmetic, free, and never increasing.
      const auto t3 = Clock::now();
      double sse = total_sse0;
      for (std::size_t i = k_; i < theta_.size(); ++i) sse -= theta_[i] * theta_[i];
      train_rmse = std::sqrt(std::max(0.0, sse) / denom);
      train_rmse_at_.push_back(train_rmse);
      if (nv_ > 0) {
        if (rec.val_rmse < best_val_rmse_) {
          best_val_rmse_ = rec.val_rmse;
          best_val_accuracy_ = rec.val_accuracy;
          best_nodes_ = chosen_.size();
          best_snapshot_.reset();
          since_best_ = 0;
        } else {
          ++since_best_;
        }
      }
      rec.evaluate_ms += ms_since(t3);
    }
    rec.train_rmse = train_rmse;
    rec.total_ms = ms_since(t0);

    // Counted, not `nodes % every`: a refinement that drops dependent nodes would otherwise
    // fire again at the same node count after growth refills them.
    if (!rec.dependent && config_.refine.every > 0 && ++grown_since_refine_ >= config_.refine.every) {
      grown_since_refine_ = 0;
      const auto t4 = Clock::now();
      try {
        rec.event = refine_growing(classify, rec.val_rmse, train_rmse, total_sse0, result.events);
      } catch (const gpu::Error& e) {
        if (requested != BackendKind::auto_select || backend_->name() != "gpu") throw;
        policy.reset();
        const double ms = move_to(BackendKind::cpu, /*after_fault=*/true);
        rec.event = fmt::format("GPU failure while refining ({}); rebuilt {} nodes on the CPU in {:.1f} ms and "
                                "continued without this refinement", e.what(), chosen_.size(), ms);
      }
      rec.refine_ms = ms_since(t4);
      result.refine_seconds += rec.refine_ms / 1000.0;
      if (backend_->name() == "cpu" && !chosen_.empty()) {
        cpu_refine_ms_ = rec.refine_ms;
        cpu_refine_nodes_ = chosen_.size();
      }
      rec.event += fmt::format(" ({:.1f} ms)", rec.refine_ms);
      spdlog::info("{}", rec.event);
      result.events.push_back(rec.event);
    }

    if (policy && !rec.dependent &&
        policy->should_switch(shape(), rec.total_ms + cpu_refine_share_ms(), max_nodes - chosen_.size(),
                              migration_bytes())) {
      policy.reset();
      std::string event;
      try {
        const double ms = move_to(BackendKind::gpu);
        event = fmt::format("switch cpu->gpu at {} nodes: migration {:.1f} ms", chosen_.size(), ms);
      } catch (const gpu::Error& e) {
        event = fmt::format("switch to the GPU failed ({}); staying on the CPU", e.what());
      }
      spdlog::info("{}", event);
      result.events.push_back(event);
      rec.event += (rec.event.empty() ? "" : "; ") + event;
    }
    result.iterations.push_back(rec);
    if (options_.on_iteration) options_.on_iteration(rec);
    if (nv_ > 0 && config_.stopping.patience > 0 && since_best_ >= config_.stopping.patience) {
      result.stop_reason = "validation error did not improve for " + std::to_string(config_.stopping.patience) +
                           " iterations";
      break;
    }
    if (options_.stop_requested && options_.stop_requested->load()) {
      result.stop_reason = "interrupted";
      result.interrupted = true;
      break;
    }
    if (options_.checkpoint_every > 0 && options_.on_checkpoint && iteration_ % options_.checkpoint_every == 0) {
      Network checkpoint = best_network();
      TrainingState st = state();
      st.elapsed_seconds = elapsed();
      checkpoint.training_state = encode_training_state(st);
      options_.on_checkpoint(checkpoint);
    }
  }
  result.seconds = ms_since(loop_start) / 1000.0;

  // Keep the best model on validation, or the last one without validation.
  result.network = best_network();
  std::string used;
  for (const auto& rec : result.iterations)
    if (used.find(rec.backend) == std::string::npos) used += (used.empty() ? "" : "+") + rec.backend;
  if (!used.empty()) result.network.provenance.backend = used;
  if (result.interrupted) {
    TrainingState st = state();
    st.elapsed_seconds = elapsed();
    result.network.training_state = encode_training_state(st);
  }
  result.final_train_rmse = best_train_rmse();
  result.best_val_rmse = best_val_rmse_;
  result.best_val_accuracy = best_val_accuracy_;
  if (config_.refine.at_end && !result.interrupted) refine_at_end(result, classify);
  return result;
}

}  // namespace

TrainResult train(const data::Dataset& dataset, const Config& config, const TrainOptions& options) {
  if (dataset.features == 0) throw InputError(dataset.source + ": no feature columns to train on");
  if (config.trainer.precision == Precision::float64) return GrowthRun<double>(dataset, config, options).run();
  return GrowthRun<float>(dataset, config, options).run();
}

TrainResult train(const data::Dataset& dataset, const Config& config, const IterationCallback& on_iteration,
                  const TrainerHooks& hooks) {
  TrainOptions options;
  options.on_iteration = on_iteration;
  options.hooks = hooks;
  return train(dataset, config, options);
}

double median_distance(const double* x, std::size_t n, std::size_t d, std::size_t sample, std::uint64_t seed) {
  const std::vector<std::size_t> rows = data::sample_indices(n, std::max<std::size_t>(sample, 2), seed);
  std::vector<double> dist;
  dist.reserve(rows.size() * (rows.size() - 1) / 2);
  for (std::size_t a = 0; a < rows.size(); ++a) {
    for (std::size_t b = a + 1; b < rows.size(); ++b) {
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double diff = x[rows[a] * d + j] - x[rows[b] * d + j];
        s += diff * diff;
      }
      dist.push_back(std::sqrt(s));
    }
  }
  if (dist.empty()) return 1.0;
  auto mid = dist.begin() + static_cast<std::ptrdiff_t>(dist.size() / 2);
  std::nth_element(dist.begin(), mid, dist.end());
  return *mid > 0 ? *mid : 1.0;
}

}  // namespace rbf::model
