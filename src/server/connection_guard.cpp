#include "server/connection_guard.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "server/openai_response.h"

namespace wgrt::server {
namespace {

std::atomic<ConnectionGuard*> g_guard{nullptr};
// The connection the current worker thread serves (0: none).
thread_local uint64_t t_connection = 0;

// Answers a connection over the cap with a 503 and closes it. The request is
// drained for a moment first: closing with unread bytes would reset the
// connection before the client reads the answer.
void refuse(int socket, size_t max_connections) {
  const std::string body = to_wire(error_body(
      ApiError(503, "server_error",
               "too many connections: this server serves " + std::to_string(max_connections) +
                   " at once (wgrt serve --max-connections); retry later",
               "", "too_many_connections")));
  const std::string response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                               "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n" + body;
  ::send(socket, response.data(), response.size(), MSG_NOSIGNAL);
  ::shutdown(socket, SHUT_WR);
  const timeval drain{0, 100'000};
  ::setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &drain, sizeof drain);
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(socket, sink, sizeof sink, 0) > 0; ++i) {
  }
  ::close(socket);
}

}  // namespace

// Serves one connection per thread and tells the guard which one each
// thread serves and when it ends.
class ConnectionGuard::CountingQueue : public httplib::TaskQueue {
 public:
  CountingQueue(ConnectionGuard& guard, size_t threads) : guard_(guard), pool_(threads) {}

  void enqueue(std::function<void()> fn) override {
    uint64_t id = 0;
    {
      std::lock_guard lock(guard_.mutex_);
      id = std::exchange(guard_.last_admitted_, 0);  // httplib enqueues right after accepting
    }
    pool_.enqueue([this, id, fn = std::move(fn)] {
      t_connection = id;
      fn();
      t_connection = 0;
      guard_.finished(id);
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  ConnectionGuard& guard_;
  httplib::ThreadPool pool_;
};

ConnectionGuard::ConnectionGuard(size_t max_connections, std::chrono::seconds read_deadline)
    : max_connections_(max_connections), read_deadline_(read_deadline), watchdog_([this] { watch(); }) {
  g_guard = this;
}

ConnectionGuard::~ConnectionGuard() {
  g_guard = nullptr;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [id, w] : watched_) ::close(w.socket);
    watched_.clear();
  }
  wake_.notify_all();
  watchdog_.join();
}

httplib::TaskQueue* ConnectionGuard::make_task_queue() {
  // Every admitted connection gets a thread at once (its read deadline runs
  // from the accept), plus spares for the moment a finished one is counted.
  return new CountingQueue(*this, max_connections_ + 4);
}

bool ConnectionGuard::admit(int socket) {
  if (open_.load() >= max_connections_) {
    refuse(socket, max_connections_);
    return false;
  }
  ++open_;
  const int watch_socket = ::fcntl(socket, F_DUPFD_CLOEXEC, 0);
  std::lock_guard lock(mutex_);
  const uint64_t id = next_id_++;
  last_admitted_ = id;
  if (watch_socket >= 0) watched_[id] = {watch_socket, std::chrono::steady_clock::now() + read_deadline_};
  wake_.notify_all();
  return true;
}

void ConnectionGuard::request_read() { set_deadline(t_connection, std::chrono::steady_clock::time_point::max()); }

void ConnectionGuard::answer_written() { set_deadline(t_connection, std::chrono::steady_clock::now() + read_deadline_); }

void ConnectionGuard::set_deadline(uint64_t id, std::chrono::steady_clock::time_point deadline) {
  std::lock_guard lock(mutex_);
  auto it = watched_.find(id);
  if (it == watched_.end()) return;
  it->second.deadline = deadline;
  wake_.notify_all();
}

void ConnectionGuard::finished(uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    auto it = watched_.find(id);
    if (it != watched_.end()) {
      ::close(it->second.socket);
      watched_.erase(it);
    }
  }
  --open_;
}

void ConnectionGuard::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto next = std::chrono::steady_clock::time_point::max();
    const auto now = std::chrono::steady_clock::now();
    for (auto& [id, w] : watched_) {
      if (w.deadline <= now) {
        // The worker's read fails and httplib closes the connection; the
        // duplicate closes when its task ends (finished).
        ::shutdown(w.socket, SHUT_RDWR);
        w.deadline = std::chrono::steady_clock::time_point::max();
      } else {
        next = std::min(next, w.deadline);
      }
    }
    if (next == std::chrono::steady_clock::time_point::max()) {
      wake_.wait(lock);
    } else {
      wake_.wait_until(lock, next);
    }
  }
}

}  // namespace wgrt::server

// This process's accept(): libc's, then the installed guard's admission. A
// refused connection (already answered and closed) is reported as EMFILE,
// on which httplib's listen loop waits a millisecond and polls again.
extern "C" int accept(int socket, sockaddr* address, socklen_t* length) {
  using Accept = int (*)(int, sockaddr*, socklen_t*);
  static const auto libc_accept = reinterpret_cast<Accept>(::dlsym(RTLD_NEXT, "accept"));
  const int connection = libc_accept(socket, address, length);
  wgrt::server::ConnectionGuard* guard = wgrt::server::g_guard.load();
  if (connection < 0 || guard == nullptr || guard->admit(connection)) return connection;
  errno = EMFILE;
  return -1;
}
