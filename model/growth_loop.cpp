// The growth loop of a training run: auto's start decision, one node per iteration, the GPU
// fault fallback, refinement points, the CPU -> GPU switch, stopping and checkpoints.
#include "model/growth_run.hpp"

#include <fmt/format.h>

namespace rbf::model::detail {

template <typename T>
std::unique_ptr<SwitchPolicy> GrowthRun<T>::plan_switch(TrainResult& result) {
  if (config_.backend.kind != BackendKind::auto_select) return nullptr;
  // A GPU this process already started (an earlier fit: a grid search, bench's repeats) costs
  // no start-up: then even a small run may be cheaper there.
  const bool started = hooks_.gpu_started ? hooks_.gpu_started() : gpu::context_opened_in_process();
  // (Not when the user fixed the switch's node count: that asks for the GPU whatever the size.)
  if (!started && !hooks_.gpu_available && gpu::built_with_cuda() && config_.backend.switch_at_nodes == 0 &&
      whole_run_too_small_for_a_gpu(first_shape(), config_.stopping.max_nodes, options_.growths_ahead)) {
    // Asking the CUDA runtime for devices starts the driver (a few hundred ms), more than
    // this whole run would take even on the fastest CPU: do not touch the GPU at all.
    spdlog::debug("backend auto: the whole run is too small to repay a GPU start-up; training on the CPU");
    return nullptr;
  }
  if (!hooks_.gpu_available && !gpu::built_with_cuda()) {
    // A build without CUDA never has a GPU: `rbfnet info` says so, and the summary of every
    // run need not repeat it.
    spdlog::debug("backend auto: this rbfnet was built without CUDA; training on the CPU");
    return nullptr;
  }
  std::string why;
  bool usable = hooks_.gpu_available ? hooks_.gpu_available(why) : factory_.gpu_available(why);
  if (usable) {
    CostModel gpu_cost;
    MigrationModel migration;
    if (hooks_.cost_models) {
      hooks_.cost_models(gpu_cost, migration);
    } else if (config_.backend.switch_at_nodes == 0) {
      // The cost model matters only when no threshold is forced; a probe may run here.
      try {
        const SwitchCosts costs = switch_costs(config_.backend, factory_.gpu_probe());
        gpu_cost = costs.gpu;
        migration = costs.migration;
        spdlog::debug("backend auto: GPU cost model from {}", costs.source);
      } catch (const DeviceError& e) {
        usable = false;  // a GPU that fails its probe is no GPU to move to
        why = e.what();
      }
    }
    if (usable) {
      gpu_cost_ = gpu_cost;
      migration_ = shared_migration(migration, options_.growths_ahead, started);
      return std::make_unique<SwitchPolicy>(config_.backend, gpu_cost, migration_);
    }
  }
  spdlog::info("backend auto: no usable GPU ({}); training on the CPU", why);
  result.events.push_back("no usable GPU (" + why + "): training on the CPU");
  return nullptr;
}

template <typename T>
bool GrowthRun<T>::starts_on_gpu() {
  const IterationShape first = first_shape();
  const double setup_bytes = static_cast<double>(n_ * (p_.d + k_) + nv_ * p_.d + count_ * (p_.d + 1)) * sizeof(T);
  const std::size_t iterations = config_.stopping.max_nodes;
  if (hooks_.cpu_cost)
    return start_on_gpu(config_.backend, hooks_.cpu_cost(), gpu_cost_, migration_, first, iterations, setup_bytes);
  // Not even a CPU reading at kFastestCpuGbs could lose by 2x: small problems skip the probe.
  if (!start_on_gpu(config_.backend, fastest_cpu_cost_model(), gpu_cost_, migration_, first, iterations, setup_bytes))
    return false;
  return start_on_gpu(config_.backend, cached_cpu_cost_model(config_.trainer.threads), gpu_cost_, migration_, first, iterations, setup_bytes);
}

template <typename T>
void GrowthRun<T>::open_first_backend(std::unique_ptr<SwitchPolicy>& policy, TrainResult& result) {
  if (policy && (hooks_.cost_models || config_.backend.switch_at_nodes == 0) && starts_on_gpu()) {
    try {
      backend_ = create(BackendKind::gpu, options_.stop_requested);
      check_memory_plan(*backend_);
      policy.reset();
      result.events.push_back("auto: starting on the GPU: even the first iterations are predicted far cheaper there");
      spdlog::info("{}", result.events.back());
    } catch (const DeviceError& e) {
      backend_.reset();
      result.events.push_back(std::string("auto: the GPU could not be set up (") + e.what() + "); starting on the CPU");
      spdlog::warn("{}", result.events.back());
    }
  }
  if (!backend_)
    backend_ = create(config_.backend.kind == BackendKind::gpu ? BackendKind::gpu : BackendKind::cpu,
                      options_.stop_requested);
}

template <typename T>
bool GrowthRun<T>::grow(IterationRecord& rec, bool classify) {
  const auto t0 = Clock::now();
  const Selection sel = ols_ ? backend_->select_ols(config_.trainer.lambda, config_.trainer.dependency_tol)
                             : backend_->select_max_residual();
  rec.select_ms = ms_since(t0);
  if (!sel.found) return false;
  const std::size_t c = sel.index;
  rec.row = static_cast<long long>(p_.train_rows[pool_.rows[c]]);
  rec.width = pool_.widths[c];
  typename Backend<T>::PhaseTimes phases;
  const double norm = backend_->add_and_update(c, config_.trainer.dependency_tol, h_, ols_, a_, phases);
  rec.add_ms = phases.add_ms;
  rec.update_ms = phases.update_ms;
  if (norm > 0) {
    if (nv_ > 0) backend_->add_validation_column(c);
    // Committed only now that every backend call of the iteration has succeeded.
    h_.push_back(norm);
    r_.set_column(chosen_.size() + 1, h_);
    theta_.insert(theta_.end(), a_.begin(), a_.end());
    commit_node(c);
  } else {
    rec.dependent = true;
    skipped_.push_back(c);
  }
  rec.nodes = chosen_.size();
  if (!rec.dependent && nv_ > 0) {
    const auto t3 = Clock::now();
    std::vector<double> weights;
    r_.solve(theta_, k_, chosen_.size(), weights);
    const ValidationScore v = score_validation(*backend_, p_, weights, chosen_.size(), classify, scratch_);
    rec.val_rmse = v.rmse;
    rec.val_accuracy = v.accuracy;
    rec.evaluate_ms = ms_since(t3);
  }
  return true;
}

template <typename T>
void GrowthRun<T>::undo_iteration(std::size_t theta_size, bool dependent) {
  if (dependent) skipped_.pop_back();
  if (theta_.size() != theta_size) {  // the fault came after the node was committed
    theta_.resize(theta_size);
    chosen_.pop_back();
    node_centers_.resize(chosen_.size() * p_.d);
    node_widths_.pop_back();
  }
  --iteration_;
}

template <typename T>
double GrowthRun<T>::bias_model_sse() const {
  double s = 0;
  for (double v : p_.y_train) s += v * v;
  for (std::size_t j = 0; j < k_; ++j) s -= theta_[j] * theta_[j];
  return std::max(0.0, s);
}

template <typename T>
void GrowthRun<T>::stop_out_of_memory(const DeviceError& e, std::size_t theta_size, bool dependent,
                                      TrainResult& result) {
  // An explicit GPU that ran out of memory (another process took what the plan counted on):
  // the nodes grown so far are kept and saved, as at an interrupt.
  undo_iteration(theta_size, dependent);
  result.stop_reason = "out of GPU memory at " + std::to_string(chosen_.size()) + " nodes (" + e.what() + ")";
  result.interrupted = true;
  result.out_of_device_memory = true;
  spdlog::warn("{}", result.stop_reason);
}

template <typename T>
std::string GrowthRun<T>::fall_back(const DeviceError& e, std::size_t theta_size, bool dependent) {
  undo_iteration(theta_size, dependent);
  const double ms = move_to(BackendKind::cpu, /*after_fault=*/true);
  return fmt::format("GPU failure ({}); rebuilt {} nodes on the CPU in {:.1f} ms and continued", e.what(),
                     chosen_.size(), ms);
}

template <typename T>
void GrowthRun<T>::record_progress(IterationRecord& rec, double& train_rmse, double total_sse0) {
  // ||E||^2 = ||Y||^2 - ||Q^T Y||^2: exact in exact arithmetic, free, and never increasing.
  const auto t3 = Clock::now();
  double sse = total_sse0;
  for (std::size_t i = k_; i < theta_.size(); ++i) sse -= theta_[i] * theta_[i];
  train_rmse = std::sqrt(std::max(0.0, sse) / static_cast<double>(n_ * k_));
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

template <typename T>
void GrowthRun<T>::refine_if_due(IterationRecord& rec, bool classify, double& train_rmse, double total_sse0,
                                 TrainResult& result) {
  // Counted, not `nodes % every`: a refinement that drops dependent nodes would otherwise
  // fire again at the same node count after growth refills them.
  // Not when a stop was asked for: a refinement can take long, and the counter stays due, so
  // a resumed run refines first.
  const bool stopping = options_.stop_requested && options_.stop_requested->load();
  if (rec.dependent || config_.refine.every == 0 || ++grown_since_refine_ < config_.refine.every || stopping) return;
  grown_since_refine_ = 0;
  const auto t4 = Clock::now();
  try {
    rec.event = refine_growing(classify, rec.val_rmse, train_rmse, total_sse0, result.events);
  } catch (const DeviceError& e) {
    if (!falls_back_to_cpu()) throw;
    const double ms = move_to(BackendKind::cpu, /*after_fault=*/true);
    rec.event = fmt::format("GPU failure while refining ({}); rebuilt {} nodes on the CPU in {:.1f} ms and "
                            "continued without this refinement", e.what(), chosen_.size(), ms);
  }
  rec.refine_ms = ms_since(t4);
  result.refine_seconds += rec.refine_ms / 1000.0;
  if (backend_->kind() == BackendKind::cpu && !chosen_.empty()) {
    cpu_refine_ms_ = rec.refine_ms;
    cpu_refine_nodes_ = chosen_.size();
  }
  rec.event += fmt::format(" ({:.1f} ms)", rec.refine_ms);
  spdlog::info("{}", rec.event);
  result.events.push_back(rec.event);
}

template <typename T>
void GrowthRun<T>::switch_if_due(std::unique_ptr<SwitchPolicy>& policy, IterationRecord& rec, TrainResult& result) {
  if (gpu_faulted_) policy.reset();  // after a device fault the run stays on the CPU
  if (!policy || rec.dependent || backend_->kind() != BackendKind::cpu) return;
  if (!policy->should_switch(shape(), rec.total_ms + cpu_refine_share_ms(),
                             config_.stopping.max_nodes - chosen_.size(), migration_bytes()))
    return;
  policy.reset();
  std::string event;
  try {
    const double ms = move_to(BackendKind::gpu);
    event = fmt::format("switch cpu->gpu at {} nodes: migration {:.1f} ms", chosen_.size(), ms);
  } catch (const DeviceError& e) {
    event = fmt::format("switch to the GPU failed ({}); staying on the CPU", e.what());
  }
  spdlog::info("{}", event);
  result.events.push_back(event);
  rec.event += (rec.event.empty() ? "" : "; ") + event;
}

template <typename T>
bool GrowthRun<T>::stop_before_next(double train_rmse, double elapsed_seconds, TrainResult& result) const {
  if (patience_exhausted()) {
    result.stop_reason =
        "validation error did not improve for " + std::to_string(config_.stopping.patience) + " iterations";
    return true;
  }
  if (chosen_.size() >= config_.stopping.max_nodes) return true;
  if (config_.stopping.goal > 0 && train_rmse <= config_.stopping.goal) {
    result.stop_reason = "reached the training error goal";
    return true;
  }
  if (config_.stopping.max_seconds > 0 && elapsed_seconds >= config_.stopping.max_seconds) {
    result.stop_reason = "reached max_seconds";
    return true;
  }
  // Before the first iteration too: a stop asked for during set-up (candidates, the targets
  // of many classes) ends the run here with a checkpoint of what there is.
  if (options_.stop_requested && options_.stop_requested->load()) {
    result.stop_reason = "interrupted";
    result.interrupted = true;
    return true;
  }
  return false;
}

template <typename T>
void GrowthRun<T>::finish(TrainResult& result, double elapsed_seconds) {
  // Keep the best model on validation, or the last one without validation.
  result.network = best_network();
  std::string used;
  for (const auto& rec : result.iterations)
    if (used.find(rec.backend) == std::string::npos) used += (used.empty() ? "" : "+") + rec.backend;
  if (!used.empty()) result.network.provenance.backend = used;
  if (result.interrupted || options_.state_in_result) {
    TrainingState st = state();
    st.elapsed_seconds = elapsed_seconds;
    result.network.training_state = encode_training_state(st);
  }
  result.final_train_rmse = best_train_rmse();
  result.linear_ridge = p_.linear.empty() ? -1.0 : p_.linear_alpha;
  result.best_val_rmse = best_val_rmse_;
  result.best_val_accuracy = best_val_accuracy_;
}

template <typename T>
void GrowthRun<T>::start_from_bias(double total_sse0, bool classify, TrainResult& result) {
  train_rmse_at_ = {std::sqrt(total_sse0 / static_cast<double>(n_ * k_))};
  if (nv_ == 0) return;
  std::vector<double> weights;
  r_.solve(theta_, k_, 0, weights);
  const ValidationScore v = score_validation(*backend_, p_, weights, 0, classify, scratch_);
  best_val_rmse_ = v.rmse;
  best_val_accuracy_ = v.accuracy;
  result.zero_node_val_rmse = v.rmse;
  result.zero_node_val_accuracy = v.accuracy;
}

template <typename T>
void GrowthRun<T>::write_checkpoint(double elapsed_seconds) {
  Network checkpoint = best_network();
  TrainingState st = state();
  st.elapsed_seconds = elapsed_seconds;
  checkpoint.training_state = encode_training_state(st);
  options_.on_checkpoint(checkpoint);
}

template <typename T>
TrainResult GrowthRun<T>::run() {
  const auto setup_start = Clock::now();
  const bool classify = ds_.task == data::Task::classification;
  TrainResult result;

  // auto starts on the CPU and may move to the GPU later, if there is one.
  std::unique_ptr<SwitchPolicy> policy = plan_switch(result);
  open_first_backend(policy, result);
  theta_ = start(*backend_);
  // Every later pass must finish: replays and rebuilds feed the model that is saved.
  backend_->set_setup_stop(nullptr);
  r_.set_column(0, {std::sqrt(static_cast<double>(n_))});
  if (options_.resume && stop_requested(options_.stop_requested)) {
    // Stopped before the resumed model was rebuilt: nothing is new, and the checkpoint it came
    // from stays as it is. (A fresh run stops before its first iteration below, with the
    // bias-only model, whose weights start() computes even when set-up was cut short.)
    result.stop_reason = "interrupted";
    result.interrupted = true;
    result.resume_unchanged = true;
    return result;
  }

  const double total_sse0 = bias_model_sse();
  if (options_.resume) {
    resume(*options_.resume);
  } else if (options_.init != nullptr) {
    start_from_model(*options_.init, total_sse0, classify, result);
  } else {
    start_from_bias(total_sse0, classify, result);
  }
  double train_rmse = train_rmse_at_.back();

  result.train_rows = n_;
  result.validation_rows = nv_;
  result.candidates = count_;
  const StorageDecision storage = backend_->candidate_storage();
  result.candidates_stored = storage.store;
  result.candidate_storage_reason = storage.reason;
  result.sigma0 = pool_.sigma0;
  result.setup_seconds = ms_since(setup_start) / 1000.0;

  const auto loop_start = Clock::now();
  auto elapsed = [&] { return elapsed_before_ + ms_since(loop_start) / 1000.0; };
  result.stop_reason = "reached max_nodes";
  while (!stop_before_next(train_rmse, elapsed(), result)) {
    IterationRecord rec;
    rec.iteration = ++iteration_;
    rec.backend = backend_->name();
    const std::size_t theta_size = theta_.size();
    const auto t0 = Clock::now();
    bool found = true;
    try {
      found = grow(rec, classify);
    } catch (const DeviceError& e) {
      if (!falls_back_to_cpu()) {
        if (dynamic_cast<const DeviceMemoryError*>(&e) == nullptr) throw;
        stop_out_of_memory(e, theta_size, rec.dependent, result);
        break;
      }
      // A GPU fault in auto: drop this iteration and rebuild the model on the CPU from the
      // host's record of the nodes chosen so far, then go on from there.
      policy.reset();
      result.events.push_back(fall_back(e, theta_size, rec.dependent));
      spdlog::warn("{}", result.events.back());
      continue;
    }
    if (!found) {
      result.stop_reason = "no admissible candidate left";
      --iteration_;
      break;
    }
    if (!rec.dependent) record_progress(rec, train_rmse, total_sse0);
    rec.train_rmse = train_rmse;
    rec.total_ms = ms_since(t0);
    refine_if_due(rec, classify, train_rmse, total_sse0, result);
    switch_if_due(policy, rec, result);
    result.iterations.push_back(rec);
    if (options_.on_iteration) options_.on_iteration(rec);
    if (patience_exhausted()) continue;  // the loop's test says why it stops
    if (options_.stop_requested && options_.stop_requested->load()) {
      result.stop_reason = "interrupted";
      result.interrupted = true;
      break;
    }
    if (options_.checkpoint_every > 0 && options_.on_checkpoint && iteration_ % options_.checkpoint_every == 0)
      write_checkpoint(elapsed());
  }
  result.seconds = ms_since(loop_start) / 1000.0;
  result.basis_storage = backend_->basis_storage();  // the backend that grew the last nodes
  finish(result, elapsed());
  if (!result.interrupted) choose_output_ridge(result, classify);
  if (config_.refine.at_end && !result.interrupted && !refine_at_end(result, classify)) {
    // Interrupted while refining at the end: the grown model and its state make the checkpoint.
    result.stop_reason = "interrupted";
    result.interrupted = true;
    finish(result, elapsed());
  }
  return result;
}

#define RBF_INSTANTIATE_GROWTH_LOOP(T)                                                                          \
  template std::unique_ptr<SwitchPolicy> GrowthRun<T>::plan_switch(TrainResult&);                             \
  template bool GrowthRun<T>::starts_on_gpu();                                                                  \
  template void GrowthRun<T>::open_first_backend(std::unique_ptr<SwitchPolicy>&, TrainResult&);                \
  template bool GrowthRun<T>::grow(IterationRecord&, bool);                                                     \
  template std::string GrowthRun<T>::fall_back(const DeviceError&, std::size_t, bool);                         \
  template void GrowthRun<T>::undo_iteration(std::size_t, bool);                                              \
  template double GrowthRun<T>::bias_model_sse() const;                                                        \
  template void GrowthRun<T>::stop_out_of_memory(const DeviceError&, std::size_t, bool, TrainResult&);        \
  template void GrowthRun<T>::record_progress(IterationRecord&, double&, double);                              \
  template void GrowthRun<T>::refine_if_due(IterationRecord&, bool, double&, double, TrainResult&);            \
  template void GrowthRun<T>::switch_if_due(std::unique_ptr<SwitchPolicy>&, IterationRecord&, TrainResult&);   \
  template bool GrowthRun<T>::stop_before_next(double, double, TrainResult&) const;                            \
  template void GrowthRun<T>::finish(TrainResult&, double);                                                     \
  template TrainResult GrowthRun<T>::run();
RBF_INSTANTIATE_GROWTH_LOOP(float)
RBF_INSTANTIATE_GROWTH_LOOP(double)
#undef RBF_INSTANTIATE_GROWTH_LOOP

}  // namespace rbf::model::detail
