// The row-sharded backend: K shard backends driven in lock step by K persistent threads, with
// the rows split into contiguous blocks and the small results taken from shard 0.
#include "model/sharded_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "data/errors.hpp"

namespace rbf::model {

std::size_t shard_first_row(std::size_t rows, std::size_t shards, std::size_t shard) {
  const std::size_t base = rows / shards, extra = rows % shards;
  return shard * base + std::min(shard, extra);
}

std::size_t shard_rows(std::size_t rows, std::size_t shards, std::size_t shard) {
  return rows / shards + (shard < rows % shards ? 1 : 0);
}

namespace {

// The exception to report from the shards' exceptions: the first that is not the group's
// abort (which only says that another shard failed), else the first one; null if none.
std::exception_ptr first_failure(const std::vector<std::exception_ptr>& errors) {
  std::exception_ptr first;
  for (const auto& error : errors) {
    if (!error) continue;
    if (!first) first = error;
    try {
      std::rethrow_exception(error);
    } catch (const ShardGroupAborted&) {
      continue;
    } catch (...) {
      return error;
    }
  }
  return first;
}

// The shards' row blocks (parts, each n_s x columns, column-major) joined into one rows x
// columns matrix.
template <typename T>
std::vector<T> gather_rows(const std::vector<std::vector<T>>& parts, std::size_t rows, std::size_t columns) {
  std::vector<T> whole(rows * columns);
  for (std::size_t s = 0; s < parts.size(); ++s) {
    const std::size_t n = shard_rows(rows, parts.size(), s), first = shard_first_row(rows, parts.size(), s);
    for (std::size_t j = 0; j < columns; ++j) std::copy_n(parts[s].data() + j * n, n, whole.data() + j * rows + first);
  }
  return whole;
}

// Shard s's row block of a rows x columns matrix.
template <typename T>
std::vector<T> scatter_rows(const std::vector<T>& whole, std::size_t rows, std::size_t columns, std::size_t shards,
                            std::size_t s) {
  const std::size_t n = shard_rows(rows, shards, s), first = shard_first_row(rows, shards, s);
  std::vector<T> part(n * columns);
  for (std::size_t j = 0; j < columns; ++j) std::copy_n(whole.data() + j * rows + first, n, part.data() + j * n);
  return part;
}

void check_state_size(std::size_t have, std::size_t want) {
  if (have != want) throw RuntimeError("internal error: imported trainer state does not match the data");
}

}  // namespace

template <typename T>
ShardedBackend<T>::ShardedBackend(std::vector<Factory> factories, std::vector<std::shared_ptr<RowShards>> group)
    : workers_(factories.size()), group_(std::move(group)), shards_(factories.size()) {
  if (factories.empty() || group_.size() != factories.size())
    throw std::logic_error("a row-sharded backend needs one row-shard group member per shard");
  for (std::size_t i = 0; i < group_.size(); ++i)
    if (!group_[i] || group_[i]->index() != i || group_[i]->count() != group_.size())
      throw std::logic_error("the row-shard group does not match the shards");
  try {
    on_all_slots([&](std::size_t i) {
      std::unique_ptr<Backend<T>> shard = factories[i]();
      shard->set_row_shards(group_[i]);
      shards_[i] = std::move(shard);
    });
  } catch (...) {
    release_shards();
    throw;
  }
  kind_ = shards_[0]->kind();
}

template <typename T>
ShardedBackend<T>::~ShardedBackend() {
  release_shards();
}

template <typename T>
void ShardedBackend<T>::release_shards() noexcept {
  // Each shard is destroyed on the thread that made it (its device is that thread's).
  const std::function<void(std::size_t)> release = [&](std::size_t i) { shards_[i].reset(); };
  const std::function<void(std::size_t)> nothing = [](std::size_t) {};
  try {
    workers_.run(release, nothing);
  } catch (...) {
    // Nothing can be reported from a destructor; the threads are joined regardless.
  }
}

template <typename T>
void ShardedBackend<T>::on_all_slots(const std::function<void(std::size_t)>& task) const {
  if (failed_)
    throw std::logic_error("internal error: a row-sharded backend was used after one of its shards failed");
  const std::function<void(std::size_t)> abort_group = [&](std::size_t i) { group_[i]->abort(); };
  const std::exception_ptr failure = first_failure(workers_.run(task, abort_group));
  if (!failure) return;
  failed_ = true;
  std::rethrow_exception(failure);
}

template <typename T>
void ShardedBackend<T>::on_all(const std::function<void(std::size_t, Backend<T>&)>& call) const {
  on_all_slots([&](std::size_t i) { call(i, *shards_[i]); });
}

template <typename T>
Selection ShardedBackend<T>::agreed(const std::vector<Selection>& choices) const {
  for (const Selection& s : choices)
    if (s.found != choices[0].found || (s.found && s.index != choices[0].index))
      throw std::logic_error("internal error: the row shards selected different candidates");
  return choices[0];
}

template <typename T>
double ShardedBackend<T>::agreed_norm(const std::vector<double>& norms) const {
  for (double norm : norms)
    if ((norm > 0) != (norms[0] > 0))
      throw std::logic_error("internal error: the row shards disagree on whether a node is dependent");
  return norms[0];
}

template <typename T>
void ShardedBackend<T>::set_setup_stop(const std::atomic<bool>* stop) {
  for (auto& shard : shards_) shard->set_setup_stop(stop);
}

template <typename T>
void ShardedBackend<T>::set_training_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k) {
  const std::size_t count = shards_.size();
  if (n < count)
    throw InputError("the training set has " + std::to_string(n) + " rows, fewer than the " + std::to_string(count) +
                     " row shards: give backend.gpu_devices fewer devices");
  n_ = n;
  d_ = d;
  k_ = k;
  on_all([&](std::size_t i, Backend<T>& b) {
    const std::size_t first = shard_first_row(n, count, i);
    group_[i]->set_rows(first, n);
    b.set_training_data(x + first * d, shard_rows(n, count, i), d, y + first * k, k);
  });
}

template <typename T>
void ShardedBackend<T>::set_row_scale(const T* s) {
  const std::size_t count = shards_.size();
  on_all([&](std::size_t i, Backend<T>& b) { b.set_row_scale(s == nullptr ? s : s + shard_first_row(n_, count, i)); });
}

template <typename T>
void ShardedBackend<T>::set_validation_data(const T* x, std::size_t nv) {
  nv_ = nv;
  const std::size_t count = shards_.size();
  on_all([&](std::size_t i, Backend<T>& b) {
    const std::size_t first = shard_first_row(nv, count, i);
    b.set_validation_data(x == nullptr ? x : x + first * d_, shard_rows(nv, count, i));
  });
}

template <typename T>
void ShardedBackend<T>::set_candidates(const T* centers, const T* widths, const std::size_t* rows, std::size_t count,
                                       const StorageRequest& storage) {
  // The cap is on the whole Phi_C: each shard may take its rows' share of it, so that the
  // shards store their blocks exactly when one backend would store the whole matrix.
  const std::size_t shards = shards_.size();
  on_all([&](std::size_t i, Backend<T>& b) {
    StorageRequest share = storage;
    share.budget_bytes *= static_cast<double>(shard_rows(n_, shards, i)) / static_cast<double>(n_);
    b.set_candidates(centers, widths, rows, count, share);
  });
}

template <typename T>
StorageDecision ShardedBackend<T>::candidate_storage() const {
  // Stored only where every shard stores its block; else the first shard that computes says why.
  for (const auto& shard : shards_)
    if (!shard->candidates_stored()) return shard->candidate_storage();
  return shards_.front()->candidate_storage();
}

template <typename T>
void ShardedBackend<T>::reserve_nodes(std::size_t nodes) {
  on_all([&](std::size_t, Backend<T>& b) { b.reserve_nodes(nodes); });
}

template <typename T>
std::string ShardedBackend<T>::memory_shortfall(std::size_t nodes) const {
  // Each shard holds its rows' block of Q: the first that is short speaks for the run.
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    const std::string shortfall = shards_[i]->memory_shortfall(nodes);
    if (!shortfall.empty())
      return shortfall + " (row shard " + std::to_string(i + 1) + " of " + std::to_string(shards_.size()) + ")";
  }
  return "";
}

template <typename T>
void ShardedBackend<T>::reset_to_bias(std::vector<double>& a) {
  std::vector<std::vector<double>> as(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { b.reset_to_bias(as[i]); });
  a = as[0];
}

template <typename T>
void ShardedBackend<T>::mark_used(std::size_t c) {
  on_all([&](std::size_t, Backend<T>& b) { b.mark_used(c); });
}

template <typename T>
Selection ShardedBackend<T>::select_ols(double lambda, double tol) {
  std::vector<Selection> choices(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { choices[i] = b.select_ols(lambda, tol); });
  return agreed(choices);
}

template <typename T>
Selection ShardedBackend<T>::select_max_residual() {
  std::vector<Selection> choices(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { choices[i] = b.select_max_residual(); });
  return agreed(choices);
}

template <typename T>
double ShardedBackend<T>::add_node(std::size_t c, double tol, std::vector<double>& h) {
  std::vector<std::vector<double>> hs(shards_.size());
  std::vector<double> norms(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { norms[i] = b.add_node(c, tol, hs[i]); });
  h = hs[0];
  return agreed_norm(norms);
}

template <typename T>
double ShardedBackend<T>::add_node_at(const T* center, T width, double tol, std::vector<double>& h) {
  std::vector<std::vector<double>> hs(shards_.size());
  std::vector<double> norms(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { norms[i] = b.add_node_at(center, width, tol, hs[i]); });
  h = hs[0];
  return agreed_norm(norms);
}

template <typename T>
double ShardedBackend<T>::update(bool statistics, std::vector<double>& a) {
  std::vector<std::vector<double>> as(shards_.size());
  std::vector<double> sse(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { sse[i] = b.update(statistics, as[i]); });
  a = as[0];
  return sse[0];
}

template <typename T>
void ShardedBackend<T>::add_validation_column(std::size_t c) {
  on_all([&](std::size_t, Backend<T>& b) { b.add_validation_column(c); });
}

template <typename T>
void ShardedBackend<T>::add_validation_column_at(const T* center, T width) {
  on_all([&](std::size_t, Backend<T>& b) { b.add_validation_column_at(center, width); });
}

template <typename T>
void ShardedBackend<T>::predict_validation(const double* w, std::size_t columns, std::vector<double>& out) {
  std::vector<std::vector<double>> parts(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { b.predict_validation(w, columns, parts[i]); });
  // Row-major nv x k: the shards' row blocks, in order, are the whole.
  out.clear();
  out.reserve(nv_ * k_);
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
}

template <typename T>
std::size_t ShardedBackend<T>::memory_bytes() const {
  std::size_t bytes = 0;
  for (const auto& shard : shards_) bytes += shard->memory_bytes();
  return bytes;
}

template <typename T>
void ShardedBackend<T>::export_state(BackendState<T>& state) const {
  std::vector<BackendState<T>> parts(shards_.size());
  on_all([&](std::size_t i, Backend<T>& b) { b.export_state(parts[i]); });
  // The statistics are sums over all rows, the same on every shard; Q, E and Phi_val are not.
  std::vector<std::vector<T>> q, e, phi_val;
  for (auto& part : parts) {
    q.push_back(std::move(part.q));
    e.push_back(std::move(part.e));
    phi_val.push_back(std::move(part.phi_val));
  }
  state = std::move(parts[0]);
  state.q = gather_rows(q, n_, state.basis);
  state.e = gather_rows(e, n_, k_);
  state.phi_val = gather_rows(phi_val, nv_, state.val_columns);
}

template <typename T>
void ShardedBackend<T>::import_state(const BackendState<T>& state) {
  check_state_size(state.q.size(), n_ * state.basis);
  check_state_size(state.e.size(), n_ * k_);
  check_state_size(state.phi_val.size(), nv_ * state.val_columns);
  const std::size_t count = shards_.size();
  on_all([&](std::size_t i, Backend<T>& b) {
    BackendState<T> part;
    part.basis = state.basis;
    part.q = scatter_rows(state.q, n_, state.basis, count, i);
    part.e = scatter_rows(state.e, n_, k_, count, i);
    part.n_norm = state.n_norm;
    part.s_proj = state.s_proj;
    part.g = state.g;
    part.used = state.used;
    part.val_columns = state.val_columns;
    part.phi_val = scatter_rows(state.phi_val, nv_, state.val_columns, count, i);
    b.import_state(part);
  });
}

template class ShardedBackend<float>;
template class ShardedBackend<double>;

}  // namespace rbf::model
