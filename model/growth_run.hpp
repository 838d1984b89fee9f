// One training run of the incremental trainer: the host state (R, Q^T Y, the nodes), the
// backend that holds the large state, migration and fallback between backends, and
// refinement. Internal to the trainer (model/trainer.hpp is the interface); its members are
// defined by job, each file instantiating them for float and double:
//   growth_run.cpp         set-up, backends (create, replay, move), the network it returns
//   growth_loop.cpp        the growth loop: start decision, iterations, fault fallback, switch
//   growth_checkpoint.cpp  checkpoint state and resume
//   growth_refine.cpp      refinement during growth and at the end
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/backend_factory.hpp"
#include "contracts/device_error.hpp"
#include "contracts/backend.hpp"
#include "model/fault_injection.hpp"
#include "contracts/gaussian_columns.hpp"
#include "model/refine.hpp"
#include "contracts/refine_engine.hpp"
#include "model/switching/start_rule.hpp"
#include "model/switching/switch_rule.hpp"
#include "model/trainer.hpp"
#include "model/training_data.hpp"
#include "model/training_state.hpp"
#include "model/triangular.hpp"

namespace rbf::model::detail {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One training run: the host state (R, Q^T Y, chosen nodes) and the backend that holds the
// large state, which can be replaced mid-run by migration (auto) or fallback (GPU fault).
template <typename T>
class GrowthRun {
 public:
  GrowthRun(const data::Dataset& ds, const Config& config, const TrainOptions& options);

  TrainResult run();

 private:
  // A backend of `kind` holding this run's data and candidates: the test hook's when one is
  // set, else the factory's; GPU backends fail on cue under fault injection. `setup_stop`
  // (the run's first backend only) lets a stop cut its set-up short (Backend::set_setup_stop).
  std::unique_ptr<Backend<T>> create(BackendKind kind, const std::atomic<bool>* setup_stop = nullptr);

  // Bias-only model on `b`; returns q_0^T Y.
  std::vector<double> start(Backend<T>& b);

  // Rebuilds the model grown so far on `b` by re-adding its nodes in order; R and Q^T Y are
  // recomputed from b's own arithmetic so that everything stays consistent. Nodes still at
  // their candidates are re-added as those candidates (growth's own arithmetic, so that a
  // resumed run matches an uninterrupted one); after a refinement moved them, nodes are
  // added where they are now. With `drop_dependent`, a moved node that became dependent on
  // the earlier ones (two nodes refined onto each other) leaves the model instead.
  void replay(Backend<T>& b, bool drop_dependent = false);

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
  // on validation (on the training objective without validation). False when a stop was
  // asked for meanwhile: the model is left as grown.
  bool refine_at_end(TrainResult& result, bool classify);

  // ---- Output ridge (growth_output_ridge.cpp) ----

  // trainer.output_ridge, once growth has stopped: ridge regression on the kept model's
  // output weights, its penalty the grid value best on validation ('auto'; the least-squares
  // weights unless one is strictly better) or the configured one. Replaces the weights of
  // result.network and records the penalty. Not for a snapshot (a refinement replaced the
  // nodes R was made of): its weights stay as they are.
  void choose_output_ridge(TrainResult& result, bool classify);

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
  double move_to(BackendKind kind, bool after_fault = false);

  // ---- The switch's view of the run (growth_run.cpp) ----
  double migration_bytes() const;
  IterationShape shape() const;
  // The CPU's refinement cost per grown node at the current size, extrapolated from the last
  // refinement measured on the CPU (a refinement's cost grows with the node count); 0 before
  // any. Added to the measured iteration time the switch compares with the GPU's prediction.
  double cpu_refine_share_ms() const;
  // auto: the first iteration's shape, before any backend exists.
  IterationShape first_shape() const;
  // candidates.memory_budget_mb in bytes (+infinity for auto: the machine's limit alone).
  double candidate_cap_bytes() const { return config_.candidates.memory_budget_mb * 1024.0 * 1024.0; }
  // What a CPU backend is asked: the cap, with the run's predicted costs of storing Phi_C and
  // computing it on every pass where Phi_C is large (model/switching/storage_rule.hpp; the GPU
  // backend times the same choice itself).
  StorageRequest cpu_storage_request() const;

  // ---- The growth loop (growth_loop.cpp) ----

  // auto: whether a GPU is usable and, if so, the switch policy with its cost models; the
  // reason there is none goes to result.events.
  std::unique_ptr<SwitchPolicy> plan_switch(TrainResult& result);
  // auto on a large problem: whether to skip the CPU phase (before any backend exists).
  bool starts_on_gpu();
  // Creates the first backend (on the GPU when auto predicts it far cheaper there).
  void open_first_backend(std::unique_ptr<SwitchPolicy>& policy, TrainResult& result);
  // One growth iteration on the backend: select, add, update, validate, commit. Throws
  // rbf::model::DeviceError on a device fault, with nothing committed.
  bool grow(IterationRecord& rec, bool classify);
  // After a device fault in auto: forget the iteration's partial record and rebuild the
  // model on the CPU. Returns the event line.
  std::string fall_back(const DeviceError& e, std::size_t theta_size, bool dependent);
  // Training error and the validation record after a committed node.
  void record_progress(IterationRecord& rec, double& train_rmse, double total_sse0);
  // refine.every, when due: refines and returns with rec.event and refine_ms set.
  void refine_if_due(IterationRecord& rec, bool classify, double& train_rmse, double total_sse0,
                     TrainResult& result);
  // auto: asks the policy and migrates when it says so.
  void switch_if_due(std::unique_ptr<SwitchPolicy>& policy, IterationRecord& rec, TrainResult& result);
  // A fresh run's start: the bias-only model's training error, and its validation score.
  void start_from_bias(double total_sse0, bool classify, TrainResult& result);
  // Continued training (growth_init.cpp): the bias, then `init`'s nodes in order, as the start.
  void start_from_model(const Network& init, double total_sse0, bool classify, TrainResult& result);
  // The candidate nearest to a node (center in standardized units, width): squared distance
  // plus the squared log ratio of the widths.
  std::size_t nearest_candidate(const double* center, double width) const;
  // The best model so far with the state to resume it, handed to options_.on_checkpoint.
  void write_checkpoint(double elapsed_seconds);
  bool patience_exhausted() const {
    if (nv_ == 0 || config_.stopping.patience == 0) return false;
    const std::size_t patience =
        options_.patience_past_best ? std::max(config_.stopping.patience, best_nodes_) : config_.stopping.patience;
    return since_best_ >= patience;
  }
  // Refuses, before growing, a growth to stopping.max_nodes that `b`'s memory cannot hold:
  // DeviceMemoryError for a GPU (auto then stays on, or goes back to, the CPU), RuntimeError for
  // the host; the message names what is short, the node count that fits and the keys that help.
  void check_memory_plan(const Backend<T>& b) const;
  // ||Y||^2 - ||q_0^T Y||^2 (theta_'s first k values): the bias model's squared training error.
  double bias_model_sse() const;
  // Takes back a half-done iteration (the node it committed, if any) after a device failure.
  void undo_iteration(std::size_t theta_size, bool dependent);
  // An explicit GPU out of memory mid-run: the iteration taken back, the run stopped as at an
  // interrupt (result.out_of_device_memory), the nodes grown so far kept.
  void stop_out_of_memory(const DeviceError& e, std::size_t theta_size, bool dependent, TrainResult& result);
  // Whether a device fault now moves the run to the CPU (auto on the GPU) rather than ending it.
  bool falls_back_to_cpu() const {
    return config_.backend.kind == BackendKind::auto_select && backend_->kind() == BackendKind::gpu;
  }
  // Whether the loop stops before the next iteration (max_nodes, patience, goal, time).
  bool stop_before_next(double train_rmse, double elapsed_seconds, TrainResult& result) const;
  // The result's model, provenance and figures once growth has stopped.
  void finish(TrainResult& result, double elapsed_seconds);

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
  BackendFactory factory_;
  const PreparedData p_;
  const CandidatePool pool_;
  std::size_t n_ = 0, nv_ = 0, k_ = 0, count_ = 0;
  std::vector<T> x_, y_, xv_, centers_, widths_;
  std::vector<T> row_scale_;  // sqrt of p_.w_train; empty unweighted (y_ is then scaled by it)
  ValidationTargets validation_targets_;  // given to each GPU backend, which scores on its own
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
  BackendKind engine_kind_ = BackendKind::auto_select;  // the backend the engine was made for
  std::size_t grown_since_refine_ = 0;  // nodes added since the last refinement (refine.every)
  double cpu_refine_ms_ = 0;            // the last refinement on the CPU, rebuild included
  std::size_t cpu_refine_nodes_ = 0;    // ... and the nodes it refined
  std::vector<std::size_t> skipped_; // candidates found dependent
  std::vector<double> train_rmse_at_;
  std::size_t best_nodes_ = 0, since_best_ = 0;
  double best_val_rmse_ = -1, best_val_accuracy_ = -1;
  double elapsed_before_ = 0;        // growth seconds of the run this one resumes
  bool gpu_faulted_ = false;         // a device fault moved the run to the CPU for good
  std::vector<double> h_, a_, scratch_;  // per-iteration vectors, kept to reuse their memory
  CostModel gpu_cost_;               // auto: the switch policy's models
  MigrationModel migration_;
};

}  // namespace rbf::model::detail
