// `wgrt serve`'s HTTP side: the OpenAI-compatible routes over one loaded
// model, on cpp-httplib. Generation requests go through a GenerationQueue
// (one at a time, bounded); everything else answers at once.
//
//   GET  /health                status, queue occupancy, completed requests
//   GET  /v1/models             the loaded model
//   POST /v1/completions        a prompt (text or token ids)
//   POST /v1/chat/completions   messages through the model's chat template
//
// Errors are OpenAI-style JSON: 400 for a bad request, 401 without the API
// key (when one is set), 404 for an unknown route, 413 for a body over the
// limit, 503 (with Retry-After) when the queue is full, the connections are
// at their cap or the server is shutting down, 500 when generation itself
// fails. A request not read within the timeout has its connection closed.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "wgrt/llm.h"

namespace wgrt::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: any free port (bind() says which)
  size_t max_waiting = 16;  // requests queued behind the running one
  std::string model_id;     // the name /v1/models and every answer give
  bool log_requests = true; // one line per request on stderr
  // Non-empty: every route but /health needs `Authorization: Bearer <key>`.
  std::string api_key;
  size_t max_body = 8u << 20;       // request bytes (413 beyond)
  int timeout_s = 30;               // to read a request; each write of an answer
  size_t max_connections = 64;      // open at once (503 beyond)
  // Non-empty: answers carry Access-Control-Allow-Origin: <it> ("*" for any)
  // and preflight OPTIONS requests are answered, for web pages on other origins.
  std::string cors_origin;
  // Loads the model again on a new device when the GPU device is lost (the
  // request that met the loss gets a 503); when it fails too, the server
  // stops and failure() says why. Without it, later requests fail (500).
  std::function<api::Llm()> reload;
  uint64_t lose_device_at_request_for_test = 0;  // test only: the Nth request meets a lost device
  uint64_t fail_allocation_at_request_for_test = 0;  // test only: a GPU allocation fails in the Nth request
};

class HttpServer {
 public:
  // The model is used by this server's worker thread only, from now on
  // (other threads make only api::Llm's "any thread" calls).
  HttpServer(api::Llm model, ServerOptions options);
  ~HttpServer();

  // Binds the listening socket and returns its port. Error(InvalidArgument)
  // when the address cannot be bound.
  int bind();
  // Serves until stop(); returns once every request thread has ended.
  void serve();
  // From any thread: cancels running and queued generation and ends serve().
  void stop();
  // Why the server stopped on its own (a lost device it could not recover
  // from); empty when it was stopped or still serves.
  std::string failure() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgrt::server
