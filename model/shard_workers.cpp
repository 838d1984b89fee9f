// The shard threads: each waits for the next task, runs it for its own index, and reports
// its exception; run() posts a task and waits until every thread has finished it.
#include "model/shard_workers.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace rbf::model {

struct ShardWorkers::State {
  std::mutex mutex;
  std::condition_variable start, done;
  const std::function<void(std::size_t)>* task = nullptr;
  const std::function<void(std::size_t)>* on_failure = nullptr;
  std::size_t generation = 0;  // tasks posted so far
  std::size_t finished = 0;    // workers done with the current task
  bool stopping = false;
  std::vector<std::thread> threads;
};

ShardWorkers::ShardWorkers(std::size_t count) : state_(new State), errors_(count) {
  try {
    for (std::size_t i = 0; i < count; ++i) state_->threads.emplace_back([this, i] { work(i); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stopping = true;
    }
    state_->start.notify_all();
    for (auto& thread : state_->threads) thread.join();
    throw;
  }
}

ShardWorkers::~ShardWorkers() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->start.notify_all();
  for (auto& thread : state_->threads) thread.join();
}

void ShardWorkers::work(std::size_t index) {
  std::size_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(state_->mutex);
    state_->start.wait(lock, [&] { return state_->stopping || state_->generation != seen; });
    if (state_->stopping) return;
    seen = state_->generation;
    const auto* task = state_->task;
    const auto* on_failure = state_->on_failure;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*task)(index);
    } catch (...) {
      error = std::current_exception();
      try {
        (*on_failure)(index);
      } catch (...) {
        // The task's own exception is the one to report.
      }
    }
    lock.lock();
    errors_[index] = error;
    if (++state_->finished == errors_.size()) state_->done.notify_all();
  }
}

const std::vector<std::exception_ptr>& ShardWorkers::run(const std::function<void(std::size_t)>& task,
                                                         const std::function<void(std::size_t)>& on_failure) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->task = &task;
  state_->on_failure = &on_failure;
  state_->finished = 0;
  ++state_->generation;
  state_->start.notify_all();
  state_->done.wait(lock, [&] { return state_->finished == errors_.size(); });
  return errors_;
}

}  // namespace rbf::model
