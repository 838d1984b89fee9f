// A backend made of K row shards (contracts/row_shards.hpp): each shard's backend holds
// a contiguous block of the training and validation rows, and every call runs on all shards
// at once, each on its own persistent thread. The candidate memory cap of set_candidates is
// for the whole Phi_C; each shard gets its rows' share of it.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "contracts/backend.hpp"
#include "contracts/row_shards.hpp"
#include "model/shard_workers.hpp"

namespace rbf::model {

// The first row and the row count of shard `shard` when `rows` rows are split into `shards`
// contiguous blocks whose sizes differ by at most one (the larger blocks first).
std::size_t shard_first_row(std::size_t rows, std::size_t shards, std::size_t shard);
std::size_t shard_rows(std::size_t rows, std::size_t shards, std::size_t shard);

template <typename T>
class ShardedBackend final : public Backend<T> {
 public:
  using Factory = std::function<std::unique_ptr<Backend<T>>()>;

  // One factory and one member of `group` per shard, in shard order; factory i runs on
  // worker i. Throws what a factory throws (the first failing shard's exception).
  ShardedBackend(std::vector<Factory> factories, std::vector<std::shared_ptr<RowShards>> group);
  ~ShardedBackend() override;

  BackendKind kind() const override { return kind_; }
  void set_setup_stop(const std::atomic<bool>* stop) override;
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k) override;
  void set_row_scale(const T* s) override;
  void set_validation_data(const T* x, std::size_t nv) override;
  void set_candidates(const T* centers, const T* widths, const std::size_t* rows, std::size_t count,
                      const StorageRequest& storage) override;
  StorageDecision candidate_storage() const override;
  void reserve_nodes(std::size_t nodes) override;
  std::string memory_shortfall(std::size_t nodes) const override;
  void reset_to_bias(std::vector<double>& a) override;
  void mark_used(std::size_t c) override;
  Selection select_ols(double lambda, double tol) override;
  Selection select_max_residual() override;
  double add_node(std::size_t c, double tol, std::vector<double>& h) override;
  double add_node_at(const T* center, T width, double tol, std::vector<double>& h) override;
  double update(bool statistics, std::vector<double>& a) override;
  void add_validation_column(std::size_t c) override;
  void add_validation_column_at(const T* center, T width) override;
  void predict_validation(const double* w, std::size_t columns, std::vector<double>& out) override;
  std::size_t nodes() const override { return shards_[0]->nodes(); }
  std::size_t reorthogonalizations() const override { return shards_[0]->reorthogonalizations(); }
  std::size_t memory_bytes() const override;
  void export_state(BackendState<T>& state) const override;
  void import_state(const BackendState<T>& state) override;

  std::size_t shard_count() const { return shards_.size(); }

 private:
  // Runs call(i, shard i) on every shard in parallel. When a shard throws, the group is
  // aborted at once and, once every shard has returned, the first failing shard's exception
  // is rethrown (one that is not ShardGroupAborted, when there is one); the backend may then
  // only be destroyed.
  void on_all(const std::function<void(std::size_t, Backend<T>&)>& call) const;
  // The same for a task given the shard's index only (making and destroying the shards).
  void on_all_slots(const std::function<void(std::size_t)>& task) const;
  // Destroys every shard on its own worker.
  void release_shards() noexcept;
  // Checks that every shard chose the same candidate: they all see the same sums, so a
  // disagreement means a sum over rows that was not reduced.
  Selection agreed(const std::vector<Selection>& choices) const;
  // add_node's and add_node_at's common part: runs `add` on every shard, takes h and ||u|| from
  // shard 0, and checks that every shard made the same dependency decision.
  double agreed_norm(const std::vector<double>& norms) const;

  mutable ShardWorkers workers_;
  std::vector<std::shared_ptr<RowShards>> group_;
  std::vector<std::unique_ptr<Backend<T>>> shards_;
  BackendKind kind_ = BackendKind::cpu;
  mutable bool failed_ = false;
  std::size_t n_ = 0, d_ = 0, k_ = 0, nv_ = 0;
};

}  // namespace rbf::model
