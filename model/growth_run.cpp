// A training run's set-up and backends: preparing the data and candidates, creating a
// backend and rebuilding the model on it, moving between backends, the switch's view of
// the run, and the network it returns.
#include "model/growth_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <type_traits>

#include "contracts/host_memory.hpp"
#include "model/switching/start_rule.hpp"
#include "model/switching/storage_rule.hpp"

namespace rbf::model::detail {

template <typename T>
GrowthRun<T>::GrowthRun(const data::Dataset& ds, const Config& config, const TrainOptions& options)
    : ds_(ds),
      config_(config),
      options_(options),
      hooks_(options.hooks),
      factory_(config.backend, config.trainer.threads),
      p_(prepare(ds, config, options.validation_from,
                 options.scalers_from != nullptr ? &options.scalers_from->x_scaler : nullptr,
                 options.scalers_from != nullptr ? &options.scalers_from->y_scaler : nullptr)),
      pool_(make_pool(p_, config)) {
  n_ = p_.train_rows.size();
  nv_ = p_.val_rows.size();
  k_ = p_.k;
  count_ = pool_.widths.size();
  // The basis of a growth to max_nodes (rows x columns, split by rows over shards) and what
  // each shard holds whole (the candidates' projection history), for auto's GPU count.
  const double columns = static_cast<double>(std::min(config.stopping.max_nodes, count_) + 2);
  factory_.set_problem_size(n_, count_, columns * static_cast<double>(n_ + nv_) * sizeof(T),
                            columns * static_cast<double>(count_) * sizeof(T));
  x_ = to_scalar<T>(p_.x_train);
  y_ = to_scalar<T>(p_.y_train);
  for (const double w : p_.w_train) row_scale_.push_back(static_cast<T>(std::sqrt(w)));
  for (std::size_t i = 0; i < row_scale_.size(); ++i)
    for (std::size_t j = 0; j < k_; ++j) y_[i * k_ + j] *= row_scale_[i];
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
  if (!row_scale_.empty() && (refine.every > 0 || refine.at_end))
    throw InputError(kRefinementIgnoresWeights);
  fault_at_ = hooks_.fault_gpu_at_iteration ? hooks_.fault_gpu_at_iteration : fault_iteration_from_env();
}

template <typename T>
std::unique_ptr<Backend<T>> GrowthRun<T>::create(BackendKind kind, const std::atomic<bool>* setup_stop) {
  std::unique_ptr<Backend<T>> b;
  std::function<std::unique_ptr<Backend<T>>(BackendKind)> hook;
  if constexpr (std::is_same<T, float>::value) hook = hooks_.make_float;
  else hook = hooks_.make_double;
  b = hook ? hook(kind) : factory_.template make_backend<T>(kind);
  if (fault_at_ > 0 && b->kind() == BackendKind::gpu)
    b = std::make_unique<FaultInjectingBackend<T>>(
        std::move(b), fault_at_, &iteration_, hooks_.fault_gpu_out_of_memory || fault_out_of_memory_from_env());
  b->set_setup_stop(setup_stop);
  b->set_training_data(x_.data(), n_, p_.d, y_.data(), k_);
  if (!row_scale_.empty()) b->set_row_scale(row_scale_.data());
  b->set_validation_data(xv_.data(), nv_);
  // A device backend sums the validation errors where its predictions are; the targets (nv x k,
  // twice with linear terms) are made only then, so that CPU runs do not hold them.
  if (nv_ > 0 && b->kind() == BackendKind::gpu) {
    if (validation_targets_.target.empty())
      validation_targets_ = validation_targets(p_, ds_.task == data::Task::classification);
    b->set_validation_targets(validation_targets_);
  }
  b->set_candidates(centers_.data(), widths_.data(), pool_.rows.data(), count_,
                    b->kind() == BackendKind::cpu ? cpu_storage_request() : StorageRequest{candidate_cap_bytes()});
  return b;
}

template <typename T>
StorageRequest GrowthRun<T>::cpu_storage_request() const {
  const double cap = std::min(candidate_cap_bytes(), host_candidate_limit_bytes());
  const double phi_bytes = static_cast<double>(n_) * static_cast<double>(count_) * sizeof(T);
  // Too large to store, or small enough to store without asking: the budget alone decides.
  if (phi_bytes > cap || phi_bytes < kStorageDecisionBytes) return StorageRequest{candidate_cap_bytes()};
  const IterationShape first = first_iteration_shape(n_, p_.d, k_, ols_ ? count_ : count_ / pool_.per_row, nv_,
                                                     sizeof(T), count_, StorageRequest{cap});
  const CostModel& cpu = cached_cpu_cost_model(config_.trainer.threads);
  return model::cpu_storage_request(candidate_cap_bytes(), phi_bytes, cpu, first, config_.stopping.max_nodes);
}

template <typename T>
void GrowthRun<T>::check_memory_plan(const Backend<T>& b) const {
  const std::size_t nodes = config_.stopping.max_nodes;
  const std::string shortfall = b.memory_shortfall(nodes);
  if (shortfall.empty()) return;
  const bool gpu = b.kind() == BackendKind::gpu;
  const std::string message = "the " + b.name() + " backend cannot grow this run to " + std::to_string(nodes) +
                              " nodes: it " + shortfall + "; lower stopping.max_nodes (--nodes)" +
                              (gpu ? ", spread the rows over more GPUs (backend.gpu_devices)" : "") +
                              " or train on fewer rows";
  if (gpu) throw DeviceMemoryError(message);
  throw RuntimeError(message);
}

template <typename T>
std::vector<double> GrowthRun<T>::start(Backend<T>& b) {
  std::vector<double> a;
  b.reserve_nodes(config_.stopping.max_nodes);
  check_memory_plan(b);
  b.reset_to_bias(a);
  // max_residual places a node at the worst-fitted row with the base width only.
  if (!ols_)
    for (std::size_t c = 0; c < count_; ++c)
      if (c % pool_.per_row != pool_.base_width) b.mark_used(c);
  return a;
}

template <typename T>
void GrowthRun<T>::replay(Backend<T>& b, bool drop_dependent) {
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

template <typename T>
double GrowthRun<T>::move_to(BackendKind kind, bool after_fault) {
  const auto t0 = Clock::now();
  if (after_fault) {
    factory_.forget_gpu();
    gpu_faulted_ = true;
  }
  std::unique_ptr<Backend<T>> next = create(kind);
  bool moved = false;
  if (backend_ && !after_fault) {
    try {
      BackendState<T> state;
      backend_->export_state(state);
      next->import_state(state);
      next->reserve_nodes(config_.stopping.max_nodes);
      check_memory_plan(*next);
      moved = true;
    } catch (const std::logic_error&) {
      moved = false;  // a backend without state transfer: rebuild instead
    }
  }
  if (!moved) replay(*next);
  backend_ = std::move(next);
  return ms_since(t0);
}

template <typename T>
double GrowthRun<T>::migration_bytes() const {
  const double scalars = static_cast<double>(n_ * (p_.d + k_ + chosen_.size() + 1 + k_) + nv_ * (p_.d + chosen_.size()) +
                                             count_ * (p_.d + 3 + k_));
  return scalars * sizeof(T);
}

template <typename T>
IterationShape GrowthRun<T>::shape() const {
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
  s.refine_lm = resolve_refine_method(config_.refine.method, s.nodes * (p_.d + 1 + k_) + k_) == RefineMethod::lm;
  return s;
}

template <typename T>
double GrowthRun<T>::cpu_refine_share_ms() const {
  if (config_.refine.every == 0 || cpu_refine_nodes_ == 0) return 0.0;
  const double scale = static_cast<double>(chosen_.size()) / static_cast<double>(cpu_refine_nodes_);
  return cpu_refine_ms_ * scale / static_cast<double>(config_.refine.every);
}

template <typename T>
IterationShape GrowthRun<T>::first_shape() const {
  // The CPU backend's storage decision (the GPU's is predicted the same: device and host
  // memory are of one order on the machines seen, and one and the same on a Jetson).
  return first_iteration_shape(n_, p_.d, k_, ols_ ? count_ : count_ / pool_.per_row, nv_, sizeof(T), count_,
                               cpu_storage_request(), host_candidate_limit_bytes());
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
  net.linear = p_.linear;
  net.provenance.backend = backend_ ? backend_->name() : "";
  return net;
}


template class GrowthRun<float>;
template class GrowthRun<double>;

}  // namespace rbf::model::detail
