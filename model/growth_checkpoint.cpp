// A training run's checkpoints: the state a checkpoint records, and resuming from it.
#include "model/growth_run.hpp"

namespace rbf::model::detail {

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
  chosen_.clear();
  node_centers_.clear();
  node_widths_.clear();
  if (s.node_widths.empty()) {
    // Each candidate is a node or skipped once at most: a file that lists one twice was
    // altered or damaged (the backend would otherwise stop on an internal error).
    std::vector<char> listed(count_, 0);
    for (const std::vector<std::size_t>* list : {&s.skipped, &s.chosen})
      for (std::size_t c : *list) {
        if (c < count_ && listed[c]++)
          throw InputError("the checkpoint's training state lists candidate " + std::to_string(c) +
                           " twice (as a node, or as a node and a skipped candidate): the file was altered or "
                           "damaged; start a new run");
      }
    for (std::size_t c : s.chosen) commit_node(c);
  } else {  // a refinement moved the nodes off their candidates
    if (s.node_centers.size() != s.chosen.size() * p_.d)
      throw InputError("the checkpoint's node centers do not match this data's " + std::to_string(p_.d) + " features");
    chosen_ = s.chosen;
    node_centers_ = s.node_centers;
    node_widths_ = s.node_widths;
    nodes_moved_ = true;
  }
  skipped_ = s.skipped;
  if (s.best_snapshot_nodes > 0) {
    const std::size_t m = s.best_snapshot_nodes;
    if (s.best_snapshot.size() != m * (p_.d + 1 + k_) + k_)
      throw InputError("the checkpoint's best model does not match this data's features and outputs");
    best_snapshot_ = std::make_unique<Network>(assemble(0));
    auto at = s.best_snapshot.begin();
    auto take = [&at](std::vector<double>& part, std::size_t size) {
      part.assign(at, at + static_cast<std::ptrdiff_t>(size));
      at += static_cast<std::ptrdiff_t>(size);
    };
    take(best_snapshot_->centers, m * p_.d);
    take(best_snapshot_->widths, m);
    take(best_snapshot_->weights, m * k_);
    take(best_snapshot_->bias, k_);
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

template TrainingState GrowthRun<float>::state() const;
template TrainingState GrowthRun<double>::state() const;
template void GrowthRun<float>::resume(const TrainingState&);
template void GrowthRun<double>::resume(const TrainingState&);

}  // namespace rbf::model::detail
