// One training run of the incremental trainer: the host state (R, Q^T Y, the nodes), the
// backend that holds the large state, migration and fallback between backends, and
// refinement. Internal to the trainer (model/trainer.hpp is the interface); its members are
// defined in growth_run.cpp and growth_refine.cpp and instantiated for float and double.
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "gpu/gpu_error.hpp"
#include "model/backend.hpp"
#include "model/fault_injection.hpp"
#include "model/gaussian_columns.hpp"
#include "model/refine.hpp"
#include "model/refine_engine.hpp"
#include "model/switch_policy.hpp"
#include "model/trainer.hpp"
#include "model/training_data.hpp"
#include "model/training_state.hpp"
#include "model/triangular.hpp"

namespace rbf::model::detail {

using Clock = std::chrono::steady_clock;

// An upper bound on any CPU's memory bandwidth, for skipping the CPU probe when it cannot matter.
constexpr double kFastestCpuGbs = 400.0;
// A lower bound on starting a GPU (driver, context, first allocations) on any machine seen:
// measured start-ups are 100 to 250 ms.
constexpr double kGpuStartupFloorMs = 50.0;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A backend of `kind` in precision T: the hook when a test set one, else make_backend.
template <typename T>
std::unique_ptr<Backend<T>> hook_make(const TrainerHooks& hooks, BackendKind kind, const Config& config);
template <>
std::unique_ptr<Backend<float>> hook_make<float>(const TrainerHooks& hooks, BackendKind kind, const Config& config);
template <>
std::unique_ptr<Backend<double>> hook_make<double>(const TrainerHooks& hooks, BackendKind kind, const Config& config);

// Whether a CUDA device exists for config.backend.gpu_device; `why` says why not.
bool default_gpu_available(const Config& config, std::string& why);

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

  // ---- Refinement (growth_refine.cpp) ----

  // The refinement engine of the backend in use: created on first use and after a move.
  // Where the GPU engine cannot be created, refinement runs on the CPU and says so.
  RefineEngine<T>& refine_engine(std::vector<std::string>& events);

  // The first `keep` nodes with their least-squares weights, as refinement parameters.
  NodeParams node_params(std::size_t keep) const;

  // Runs the configured optimizer, scored on validation RMSE when there is a validation set.
  RefineOutcome optimize(RefineEngine<T>& engine, const NodeParams& start, bool classify);

  // The event line of a refinement: method, epochs, best epoch, why it stopped.
  std::string describe(const RefineOutcome& out, const std::string& engine, std::size_t nodes) const;

  // refine.every: refines every node grown so far, rebuilds Q, R and the candidate
  // statistics from the moved nodes, and keeps the result only if the rebuilt model's
  // validation error (training error without validation) beats the model before it.
  // `val_rmse` is the current model's; train_rmse is updated. Returns the log line.
  std::string refine_growing(bool classify, double val_rmse, double& train_rmse, double total_sse0,
                             std::vector<std::string>& events);

  // refine.at_end: refines the kept model and keeps the refined one only if it is better
  // on validation (on the training objective without validation).
  void refine_at_end(TrainResult& result, bool classify);

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

}  // namespace rbf::model::detail
