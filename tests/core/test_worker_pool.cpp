// core/worker_pool.h: every task of a group runs once before wait() returns,
// on the pool's threads (or the caller's with none); the first exception
// comes back from wait() and the others still finish; groups are separate.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/worker_pool.h"

namespace wgrt {
namespace {

std::vector<std::function<void()>> counting(std::vector<std::atomic<int>>& hits) {
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < hits.size(); ++i) tasks.emplace_back([&hits, i] { hits[i]++; });
  return tasks;
}

TEST(WorkerPool, EveryTaskRunsOnceBeforeWaitReturns) {
  for (size_t threads : {0u, 1u, 4u}) {
    WorkerPool pool(threads);
    std::vector<std::atomic<int>> hits(100);
    TaskGroup group;
    pool.submit(counting(hits), group);
    group.wait();
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << threads << " threads, task " << i;
  }
}

TEST(WorkerPool, TasksRunOnThePoolsThreadsOrTheCallersWithNone) {
  const std::thread::id caller = std::this_thread::get_id();
  for (size_t threads : {0u, 3u}) {
    WorkerPool pool(threads);
    std::mutex m;
    std::set<std::thread::id> ran_on;
    std::vector<std::function<void()>> tasks(30, [&] {
      std::lock_guard lock(m);
      ran_on.insert(std::this_thread::get_id());
    });
    TaskGroup group;
    pool.submit(std::move(tasks), group);
    group.wait();
    EXPECT_EQ(ran_on.count(caller), threads == 0 ? 1u : 0u) << threads << " threads";
    EXPECT_LE(ran_on.size(), std::max<size_t>(threads, 1));
  }
}

TEST(WorkerPool, TheFirstErrorComesBackAndTheOtherTasksStillRun) {
  WorkerPool pool(2);
  std::atomic<int> ran{0};
  std::vector<std::function<void()>> tasks;
  for (int i = 0; i < 10; ++i) {
    tasks.emplace_back([&ran, i] {
      ran++;
      if (i == 3) throw std::runtime_error("piece 3 failed");
    });
  }
  TaskGroup group;
  pool.submit(std::move(tasks), group);
  try {
    group.wait();
    FAIL() << "the error was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "piece 3 failed");
  }
  EXPECT_EQ(ran.load(), 10);
  EXPECT_NO_THROW(group.wait());  // reported once
}

TEST(WorkerPool, GroupsAreWaitedForSeparately) {
  WorkerPool pool(2);
  std::atomic<bool> release{false};
  std::atomic<int> quick{0};
  TaskGroup slow, fast;
  pool.submit({[&] {
                while (!release) std::this_thread::yield();
              }},
              slow);
  pool.submit({[&] { quick++; }}, fast);
  fast.wait();  // returns while the slow group still runs
  EXPECT_EQ(quick.load(), 1);
  release = true;
  slow.wait();
}

}  // namespace
}  // namespace wgrt
