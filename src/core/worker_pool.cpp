#include "core/worker_pool.h"

#include <algorithm>
#include <utility>

namespace wgrt {

void TaskGroup::wait() {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void TaskGroup::wait_quietly() {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  error_ = nullptr;
}

void TaskGroup::finished(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (error && !error_) error_ = error;
  if (--pending_ == 0) done_.notify_all();
}

WorkerPool::WorkerPool(size_t threads) {
#ifdef __EMSCRIPTEN__
  threads = 0;  // no threads in the web build: tasks run as they are submitted
#endif
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

size_t WorkerPool::default_threads(size_t most) {
#ifdef __EMSCRIPTEN__
  (void)most;
  return 0;
#else
  return std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), most);
#endif
}

void WorkerPool::submit(std::vector<std::function<void()>> tasks, TaskGroup& group) {
  {
    std::lock_guard lock(group.mutex_);
    group.pending_ += tasks.size();
  }
  if (threads_.empty()) {
    for (auto& task : tasks) {
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      group.finished(error);
    }
    return;
  }
  {
    std::lock_guard lock(mutex_);
    for (auto& task : tasks) queue_.emplace_back(std::move(task), &group);
  }
  ready_.notify_all();
}

void WorkerPool::run() {
  for (;;) {
    std::pair<std::function<void()>, TaskGroup*> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr error;
    try {
      job.first();
    } catch (...) {
      error = std::current_exception();
    }
    job.second->finished(error);
  }
}

}  // namespace wgrt
