// A few threads that run tasks handed to them, for host work that splits
// into independent pieces (reading and repacking a chunk of weights while
// the loading thread hands the previous one to the GPU). Tasks are grouped:
// the caller waits for a group and gets its first exception rethrown.
// A pool of no threads runs each task on the caller's thread as it is
// submitted (the web build, which has no threads).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wgrt {

class TaskGroup {
 public:
  TaskGroup() = default;
  // Waits for its tasks: a group must not die with tasks running.
  ~TaskGroup() { wait_quietly(); }
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Blocks until every task submitted with this group has finished;
  // rethrows the first exception one of them threw (once).
  void wait();
  // The same without rethrowing (unwinding past a group).
  void wait_quietly();

 private:
  friend class WorkerPool;
  void finished(std::exception_ptr error);

  std::mutex mutex_;
  std::condition_variable done_;
  size_t pending_ = 0;
  std::exception_ptr error_;
};

class WorkerPool {
 public:
  explicit WorkerPool(size_t threads);
  ~WorkerPool();  // finishes the queued tasks, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  size_t threads() const { return threads_.size(); }
  // Queues `tasks`, counted in `group` (which must outlive them).
  void submit(std::vector<std::function<void()>> tasks, TaskGroup& group);

  // How many threads a pool should have here: the machine's hardware
  // threads up to `most`; 0 where there are no threads (WebAssembly).
  static size_t default_threads(size_t most);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::function<void()>, TaskGroup*>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace wgrt
