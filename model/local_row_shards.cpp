// The in-process row-shard group: a two-barrier all-reduce among the shards' threads.
//
// Every shard deposits its values in its own slot and waits until all K have; each then adds
// the K slots in shard order 0..K-1 itself (so the K results are the same bits, whatever the
// thread timing), and all wait once more before a slot may be overwritten by the next sum.
#include "model/local_row_shards.hpp"

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace rbf::model {
namespace {

class LocalGroup {
 public:
  explicit LocalGroup(std::size_t count) : slots_(count) {}

  void sum(std::size_t shard, double* values, std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    slots_[shard].assign(values, values + count);
    barrier(lock);
    for (const auto& slot : slots_) {
      if (slot.size() != count) {
        // The shards are out of step: a programming error that must not become a hang.
        abort_locked();
        throw std::logic_error("row shards summed different numbers of values");
      }
    }
    lock.unlock();  // the slots are only read until the second barrier
    for (std::size_t j = 0; j < count; ++j) {
      double total = slots_[0][j];
      for (std::size_t s = 1; s < slots_.size(); ++s) total += slots_[s][j];
      values[j] = total;
    }
    lock.lock();
    barrier(lock);
  }

  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    abort_locked();
  }

 private:
  // Waits until every shard has arrived; throws ShardGroupAborted once the group is aborted.
  void barrier(std::unique_lock<std::mutex>& lock) {
    if (aborted_) throw ShardGroupAborted();
    const std::size_t generation = generation_;
    if (++waiting_ == slots_.size()) {
      waiting_ = 0;
      ++generation_;
      wake_.notify_all();
    } else {
      wake_.wait(lock, [&] { return generation_ != generation || aborted_; });
    }
    if (aborted_) throw ShardGroupAborted();
  }

  void abort_locked() {
    aborted_ = true;
    wake_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::vector<double>> slots_;
  std::size_t waiting_ = 0;     // shards at the current barrier
  std::size_t generation_ = 0;  // barriers passed
  bool aborted_ = false;
};

class LocalRowShards final : public RowShards {
 public:
  LocalRowShards(std::size_t index, std::size_t count, std::shared_ptr<LocalGroup> group)
      : RowShards(index, count), group_(std::move(group)) {}
  void sum(double* values, std::size_t count) override { group_->sum(index(), values, count); }
  void abort() override { group_->abort(); }

 private:
  std::shared_ptr<LocalGroup> group_;
};

}  // namespace

std::vector<std::shared_ptr<RowShards>> make_local_row_shards(std::size_t count) {
  if (count == 0) throw std::logic_error("a row-shard group needs at least one shard");
  auto group = std::make_shared<LocalGroup>(count);
  std::vector<std::shared_ptr<RowShards>> shards;
  for (std::size_t i = 0; i < count; ++i) shards.push_back(std::make_shared<LocalRowShards>(i, count, group));
  return shards;
}

}  // namespace rbf::model
