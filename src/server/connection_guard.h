// Limits on connections that cpp-httplib (0.11, Debian's) cannot set itself:
//   - a cap on open connections: one past it is answered 503 at once and
//     closed, before it takes a thread;
//   - a deadline for reading a request: httplib's read timeout bounds each
//     read, so a client sending one byte a second would hold its connection
//     for ever; here a connection whose request has not been read within the
//     deadline is shut down (the client sees the socket close).
//
// httplib hands out no accepted socket, so the guard watches accept() itself:
// this process's accept() passes each new socket to the installed guard
// (connection_guard.cpp defines it; without a guard it is libc's). The guard
// also makes httplib's task queue, so it knows which worker thread serves
// which connection: on that thread the request handler calls request_read()
// and, once the answer is written, answer_written() restarts the deadline
// for the connection's next request.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace wgrt::server {

class ConnectionGuard {
 public:
  // `max_connections` open at once; each request read within `read_deadline`.
  ConnectionGuard(size_t max_connections, std::chrono::seconds read_deadline);
  ~ConnectionGuard();  // uninstalls, stops the watchdog
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // For httplib::Server::new_task_queue: a thread per allowed connection
  // (and a few to spare), counting the connections it serves.
  httplib::TaskQueue* make_task_queue();
  // From a request handler: the request on this thread's connection has
  // been read; no deadline applies while it is answered.
  void request_read();
  // Once its answer is written: the connection's next request (keep-alive)
  // must arrive whole within the deadline too.
  void answer_written();

  // Called by the interposed accept() for each new connection on any
  // socket of this process; false: refused (answered and closed).
  bool admit(int socket);

 private:
  class CountingQueue;
  void watch();                  // the watchdog thread: shuts down connections past their deadline
  void finished(uint64_t id);    // a connection's task ended
  void set_deadline(uint64_t id, std::chrono::steady_clock::time_point deadline);

  const size_t max_connections_;
  const std::chrono::seconds read_deadline_;
  std::atomic<size_t> open_{0};  // connections accepted and not yet finished

  // Open connections: id -> (a duplicate of the socket, so that shutting it
  // down can never reach a reused number; the deadline for the request being
  // read, or none while one is answered).
  struct Watched {
    int socket = -1;
    std::chrono::steady_clock::time_point deadline;
  };
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, Watched> watched_;
  uint64_t next_id_ = 1;
  uint64_t last_admitted_ = 0;  // handed to the task the listen thread enqueues next
  bool stopping_ = false;
  std::thread watchdog_;
};

}  // namespace wgrt::server
