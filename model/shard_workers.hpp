// A fixed team of persistent threads, one per row shard, that run each task on every thread
// at once and wait for all: the row-sharded backend's way of driving its shards in lock step.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace rbf::model {

// K threads, thread i running every task of shard i: a GPU shard's current device is per
// thread, so a shard's backend is made, used and destroyed on one thread.
class ShardWorkers {
 public:
  explicit ShardWorkers(std::size_t count);
  ~ShardWorkers();
  ShardWorkers(const ShardWorkers&) = delete;
  ShardWorkers& operator=(const ShardWorkers&) = delete;

  std::size_t count() const { return errors_.size(); }
  // Runs task(i) on worker i for every i, in parallel, and waits for all. Returns each
  // worker's exception (null where it succeeded); `on_failure(i)` runs on worker i as soon as
  // its task throws, so that the others can be released from a wait on it.
  const std::vector<std::exception_ptr>& run(const std::function<void(std::size_t)>& task,
                                             const std::function<void(std::size_t)>& on_failure);

 private:
  struct State;
  void work(std::size_t index);

  std::unique_ptr<State> state_;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace rbf::model
