// A training run: checkpoint state, resume, the growth loop with its backend switch, GPU
// fault fallback and refinement points, and the network it returns.
#include "model/growth_run.hpp"

#include <fmt/format.h>

#include "gpu/gpu_api.hpp"
#include "model/backend_factory.hpp"
#include "model/calibration_cache.hpp"

namespace rbf::model::detail {

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
  chosen_.clear();
  node_centers_.clear();
  node_widths_.clear();
  if (s.node_widths.empty()) {
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
    // Not when a stop was asked for: a refinement can take long, and the counter stays due, so
    // a resumed run refines first.
    const bool stopping = options_.stop_requested && options_.stop_requested->load();
    if (!rec.dependent && config_.refine.every > 0 && ++grown_since_refine_ >= config_.refine.every && !stopping) {
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

template class GrowthRun<float>;
template class GrowthRun<double>;

}  // namespace rbf::model::detail
