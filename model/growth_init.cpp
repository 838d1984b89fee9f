// Continued training (TrainOptions::init): a run that starts from another network's nodes.
//
// The data are standardized with the network's own scalers, so its nodes keep their places and
// widths. Its nodes are added to the basis first, in order, as nodes off the candidate pool
// (a refinement's moved nodes are rebuilt the same way); growth then continues from the
// candidates of the new rows. The output weights are solved on the new rows only: the rows a
// network was trained on are not in its file, so what it learnt from them is kept in the
// nodes' places and widths, not in the weights (the forgetting rule docs/USAGE.md states).
#include "model/growth_run.hpp"

namespace rbf::model::detail {

template <typename T>
std::size_t GrowthRun<T>::nearest_candidate(const double* center, double width) const {
  std::size_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < count_; ++c) {
    double distance = 0;
    for (std::size_t f = 0; f < p_.d; ++f) {
      const double diff = pool_.centers[c * p_.d + f] - center[f];
      distance += diff * diff;
    }
    const double log_ratio = std::log(pool_.widths[c] / width);
    distance += log_ratio * log_ratio;
    if (distance < best_distance) {
      best_distance = distance;
      best = c;
    }
  }
  return best;
}

template <typename T>
void GrowthRun<T>::start_from_model(const Network& init, double total_sse0, bool classify, TrainResult& result) {
  start_from_bias(total_sse0, classify, result);
  if (init.nodes() == 0) return;
  node_centers_ = init.centers;
  node_widths_ = init.widths;
  chosen_.clear();
  // Each node stands for the candidate nearest to it, which is then not offered again: growth
  // would otherwise find it nearly dependent on the node and spend an iteration on it.
  for (std::size_t j = 0; j < init.nodes(); ++j)
    chosen_.push_back(nearest_candidate(init.centers.data() + j * p_.d, init.widths[j]));
  nodes_moved_ = true;
  // A node the new rows cannot tell from the earlier ones (dependent on them there) leaves.
  replay(*backend_, /*drop_dependent=*/true);
  result.init_nodes = chosen_.size();
  // The cost log and checkpoints count the model's nodes as iterations already made: the
  // first new node is iteration init_nodes + 1.
  iteration_ = chosen_.size() + skipped_.size();
  // The training error after each kept node, from Q^T Y as record_progress computes it.
  double sse = total_sse0;
  for (std::size_t j = 1; j <= chosen_.size(); ++j) {
    for (std::size_t i = j * k_; i < (j + 1) * k_; ++i) sse -= theta_[i] * theta_[i];
    train_rmse_at_.push_back(std::sqrt(std::max(0.0, sse) / static_cast<double>(n_ * k_)));
  }
  if (nv_ == 0) return;
  // The kept nodes are the starting model: growth keeps a larger model only where it is better
  // on validation, and never fewer nodes than these.
  std::vector<double> weights;
  r_.solve(theta_, k_, chosen_.size(), weights);
  const ValidationScore v = score_validation(*backend_, p_, weights, chosen_.size(), classify, scratch_);
  best_val_rmse_ = v.rmse;
  best_val_accuracy_ = v.accuracy;
  best_nodes_ = chosen_.size();
  since_best_ = 0;
}

template std::size_t GrowthRun<float>::nearest_candidate(const double*, double) const;
template std::size_t GrowthRun<double>::nearest_candidate(const double*, double) const;
template void GrowthRun<float>::start_from_model(const Network&, double, bool, TrainResult&);
template void GrowthRun<double>::start_from_model(const Network&, double, bool, TrainResult&);

}  // namespace rbf::model::detail
