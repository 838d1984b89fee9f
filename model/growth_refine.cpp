// Refinement inside a training run: the engine for the backend in use, the optimizer with
// its validation scorer, and refinement during growth (with the rebuild of Q, R and the
// candidate statistics, and rollback) and at the end.
#include "model/growth_run.hpp"

#include <fmt/format.h>


namespace rbf::model::detail {

template <typename T>
RefineEngine<T>& GrowthRun<T>::refine_engine(std::vector<std::string>& events) {
  const BackendKind kind = backend_->kind();
  if (engine_ && engine_kind_ == kind) return *engine_;
  engine_.reset();
  if (kind == BackendKind::gpu) {
    try {
      engine_ = factory_.template make_refine_engine<T>(BackendKind::gpu);
    } catch (const std::runtime_error& e) {  // InputError (no CUDA) or DeviceError
      events.push_back(std::string("refinement runs on the CPU: ") + e.what());
      spdlog::warn("{}", events.back());
    }
  }
  if (!engine_) engine_ = factory_.template make_refine_engine<T>(BackendKind::cpu);
  engine_kind_ = kind;
  engine_->set_data(x_.data(), n_, p_.d, y_.data(), k_, xv_.data(), nv_);
  return *engine_;
}

template <typename T>
NodeParams GrowthRun<T>::node_params(std::size_t keep) const {
  std::vector<double> w;
  r_.solve(theta_, k_, keep, w);
  NodeParams p(keep, p_.d, k_);
  std::copy_n(node_centers_.begin(), keep * p_.d, p.centers());
  for (std::size_t j = 0; j < keep; ++j) p.log_widths()[j] = std::log(node_widths_[j]);
  std::copy(w.begin() + static_cast<std::ptrdiff_t>(k_), w.end(), p.weights());
  std::copy_n(w.begin(), k_, p.bias());
  return p;
}

template <typename T>
RefineOutcome GrowthRun<T>::optimize(RefineEngine<T>& engine, const NodeParams& start, bool classify) {
  RefineScorer scorer;
  if (nv_ > 0) {
    scorer = [&](const NodeParams& q) {
      std::vector<double> pred;
      engine.predict_validation(q, pred);
      return score_predictions(p_, classify, pred).rmse;
    };
  }
  return refine(engine, start, n_, config_.refine, scorer, options_.stop_requested);
}

template <typename T>
std::string GrowthRun<T>::describe(const RefineOutcome& out, const std::string& engine, std::size_t nodes) const {
  return fmt::format("refine {} nodes on the {} ({}, {} epochs, best at {}; {})", nodes, engine,
                     refine_method_name(out.method), out.epochs, out.best_epoch,
                     out.stop_reason);
}

template <typename T>
std::string GrowthRun<T>::refine_growing(bool classify, double val_rmse, double& train_rmse, double total_sse0,
                                         std::vector<std::string>& events) {
  const std::size_t t = chosen_.size();
  RefineEngine<T>& engine = refine_engine(events);
  const RefineOutcome out = optimize(engine, node_params(t), classify);
  const std::string what = describe(out, engine.name(), t);
  // An interrupted refinement is dropped whole and stays due, as one a stop came before: the
  // checkpoint resumes with it.
  if (out.interrupted) {
    grown_since_refine_ = config_.refine.every;
    return what + ": nodes kept";
  }
  if (!out.improved()) return what + ": no improvement, nodes kept";

  // What the rebuild replaces, to roll back to; and the best model so far if it is a
  // shorter prefix of the current nodes, which the rebuild cannot reproduce.
  const std::vector<double> old_centers = node_centers_, old_widths = node_widths_;
  const std::vector<std::size_t> old_chosen = chosen_, old_skipped = skipped_;
  const bool old_moved = nodes_moved_;
  std::unique_ptr<Network> snapshot;
  if (nv_ > 0 && !best_snapshot_ && best_nodes_ < t) snapshot = std::make_unique<Network>(assemble(best_nodes_));
  const double snapshot_rmse = nv_ > 0 && best_nodes_ < t ? train_rmse_at_[best_nodes_] : 0.0;
  auto restore_record = [&] {
    node_centers_ = old_centers;
    node_widths_ = old_widths;
    chosen_ = old_chosen;
    skipped_ = old_skipped;
    nodes_moved_ = old_moved;
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
  } catch (const DeviceError&) {
    // The host record goes back to the nodes before refinement; the caller moves the run
    // off the failed GPU by replaying them.
    restore_record();
    throw;
  }
  const bool better = nv_ > 0 ? v.rmse < val_rmse : new_rmse < train_rmse;
  if (!better) {
    restore_record();
    replay(*backend_);
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

template <typename T>
bool GrowthRun<T>::refine_at_end(TrainResult& result, bool classify) {
  Network& net = result.network;
  const std::size_t t = net.nodes();
  if (t == 0) {
    result.events.push_back("refine at the end: the model has no nodes to refine");
    return true;
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
  if (out.interrupted) {
    result.events.push_back(what + ": model kept");
    return false;
  }
  if (out.improved()) {
    const NodeParams& best = out.best;
    std::copy_n(best.centers(), t * p_.d, net.centers.begin());
    for (std::size_t j = 0; j < t; ++j) net.widths[j] = std::exp(best.log_widths()[j]);
    std::copy_n(best.weights(), t * k_, net.weights.begin());
    std::copy_n(best.bias(), k_, net.bias.begin());
    const double sse = 2.0 * engine.loss_gradient(best, nullptr);
    const double rmse = std::sqrt(sse / static_cast<double>(n_ * k_));
    // Standardized, as the trainer's stopping goal is; the summary reports target units.
    what += fmt::format(": training RMSE (standardized) {:.5g} -> {:.5g}", result.final_train_rmse, rmse);
    result.final_train_rmse = rmse;
    if (nv_ > 0) {
      std::vector<double> pred;
      engine.predict_validation(best, pred);
      const ValidationScore v = score_predictions(p_, classify, pred);
      what += fmt::format(", validation RMSE (target units) {:.5g} -> {:.5g}", result.best_val_rmse, v.rmse);
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
  return true;
}

// The refinement members are defined here, not in the header: instantiate them here too.
#define RBF_INSTANTIATE_REFINEMENT(T)                                                              \
  template RefineEngine<T>& GrowthRun<T>::refine_engine(std::vector<std::string>&);              \
  template NodeParams GrowthRun<T>::node_params(std::size_t) const;                               \
  template RefineOutcome GrowthRun<T>::optimize(RefineEngine<T>&, const NodeParams&, bool);      \
  template std::string GrowthRun<T>::describe(const RefineOutcome&, const std::string&, std::size_t) const; \
  template std::string GrowthRun<T>::refine_growing(bool, double, double&, double, std::vector<std::string>&); \
  template bool GrowthRun<T>::refine_at_end(TrainResult&, bool);
RBF_INSTANTIATE_REFINEMENT(float)
RBF_INSTANTIATE_REFINEMENT(double)
#undef RBF_INSTANTIATE_REFINEMENT

}  // namespace rbf::model::detail
