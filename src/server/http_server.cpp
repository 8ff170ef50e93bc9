#include "server/http_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>

#include "server/connection_guard.h"
#include "server/generation_queue.h"
#include "server/generation_setup.h"
#include "server/openai_response.h"
#include "wgrt/error.h"

namespace wgrt::server {
namespace {

// While a streamed request waits in the queue, an SSE comment goes out this
// often: it is how a client that went away is noticed before its turn.
constexpr auto kStreamPoll = std::chrono::milliseconds(500);

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(to_wire(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& error) {
  if (error.status == 503) res.set_header("Retry-After", "1");
  send_json(res, error.status, error_body(error));
}

ApiError shutting_down() { return ApiError(503, "server_error", "the server is shutting down"); }
ApiError device_lost(const std::string& what) {
  return ApiError(503, "server_error",
                  "the GPU device was lost during this request (" + what + "); the model is loading again: retry",
                  "", "device_lost");
}

// Compares every byte of the secret whatever the guess: no timing tells how
// much of a guess was right.
bool same_secret(const std::string& guess, const std::string& secret) {
  unsigned char diff = guess.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < secret.size(); ++i) {
    diff |= static_cast<unsigned char>((i < guess.size() ? guess[i] : 0) ^ secret[i]);
  }
  return diff == 0;
}

// A streamed answer: each choice's text as SSE chunks (the choices one after
// another, each job running meanwhile), its finish reason, then the usage
// when asked, and [DONE].
struct EventStream {
  std::vector<std::shared_ptr<Job>> jobs;  // one per choice
  ResponseMeta meta;
  bool include_usage = false;
  ReplyReader reader;
  bool first = true;       // the current choice's first chunk is still to come
  size_t text_offset = 0;  // a completion's logprobs: where the next token's text starts
  // A reply that may hold tool calls is held back and sent whole at the end
  // (calls cannot be told from text until they are complete).
  std::string held;
  std::vector<TokenLogprob> held_logprobs;
  JobResult total;  // the usage: prompt tokens once, completion tokens summed

  static bool send(httplib::DataSink& sink, const std::string& event) { return sink.write(event.data(), event.size()); }
  static std::string data(const json& body) { return "data: " + to_wire(body) + "\n\n"; }

  void cancel() {
    for (auto& job : jobs) job->cancel();
  }

  // One turn of httplib's content provider; false ends the connection.
  bool pump(httplib::DataSink& sink) {
    if (first) {
      first = false;
      if (meta.endpoint == Endpoint::ChatCompletions && !send(sink, data(completion_chunk(meta, "", {}, 0, std::nullopt, true)))) {
        return false;
      }
    }
    Job::Update update = jobs[meta.index]->take(kStreamPoll);
    if (update.text.empty() && update.logprobs.empty() && !update.result) return send(sink, ": waiting\n\n");
    if (reader.reads_calls()) {
      held += update.text;
      held_logprobs.insert(held_logprobs.end(), update.logprobs.begin(), update.logprobs.end());
    } else if (!update.text.empty() || !update.logprobs.empty()) {
      if (!send(sink, data(completion_chunk(meta, update.text, update.logprobs, text_offset, std::nullopt, false)))) {
        return false;
      }
      for (const TokenLogprob& t : update.logprobs) text_offset += t.token.size();
    }
    if (!update.result) return true;
    const JobResult& result = *update.result;
    if (result.reason == FinishReason::Error || result.reason == FinishReason::Cancelled ||
        result.reason == FinishReason::Unavailable) {
      const ApiError error = result.reason == FinishReason::Error
                                 ? ApiError(500, "server_error", "generation failed: " + result.error)
                             : result.reason == FinishReason::Unavailable ? device_lost(result.error)
                                                                            : shutting_down();
      send(sink, data(error_body(error)));
      return false;
    }
    if (reader.reads_calls() && !send_held(sink, result)) return false;
    if (!send(sink, data(completion_chunk(meta, "", {}, 0, result.reason, false)))) return false;
    add_usage(result);
    if (meta.index + 1 < jobs.size()) {  // the next choice
      ++meta.index;
      first = true;
      text_offset = 0;
      held.clear();
      held_logprobs.clear();
      meta.tool_calls = false;
      return true;
    }
    if (include_usage && !send(sink, data(usage_chunk(meta, total)))) return false;
    if (!send(sink, "data: [DONE]\n\n")) return false;
    sink.done();
    return true;
  }

  void add_usage(const JobResult& result) {
    if (meta.index == 0) {
      total = result;
    } else {
      total.completion_tokens += result.completion_tokens;
    }
  }

  // The held-back reply: its text, then its calls.
  bool send_held(httplib::DataSink& sink, const JobResult& result) {
    const ReplyReader::Reply reply = reader.read(held, result);
    meta.tool_calls = !reply.tool_calls.empty();
    if ((!reply.text.empty() || !held_logprobs.empty()) &&
        !send(sink, data(completion_chunk(meta, reply.text, held_logprobs, 0, std::nullopt, false)))) {
      return false;
    }
    return reply.tool_calls.empty() || send(sink, data(tool_calls_chunk(meta, reply.tool_calls)));
  }
};

}  // namespace

struct HttpServer::Impl {
  Impl(api::Llm model, ServerOptions options)
      : model(std::move(model)),
        options(std::move(options)),
        queue(this->model, this->options.max_waiting, this->options.reload,
              [this](const std::string& why) { fail(why); }),
        guard(this->options.max_connections, std::chrono::seconds(this->options.timeout_s)),
        started(std::time(nullptr)) {}

  api::Llm model;
  const ServerOptions options;
  GenerationQueue queue;
  ConnectionGuard guard;
  const int64_t started;
  std::atomic<uint64_t> next_id{1};
  std::atomic<bool> stop_requested{false}, serving_ended{false};
  httplib::Server http;

  void routes();
  void fail(const std::string& why) {
    {
      std::lock_guard lock(failure_mutex);
      failure = why;
    }
    std::fprintf(stderr, "wgrt serve: %s; stopping\n", why.c_str());
    stop_requested = true;
    queue.shutdown();
    http.stop();
  }
  mutable std::mutex failure_mutex;
  std::string failure;
  // Pre-routing: CORS headers and preflights, then the API key.
  bool refused_before_routing(const httplib::Request& req, httplib::Response& res) const;
  void generate(Endpoint endpoint, const httplib::Request& req, httplib::Response& res);
  std::vector<std::shared_ptr<Job>> submit(const GenerationRequest& request, const PreparedGeneration& prepared);
  json whole_answer(const std::vector<std::shared_ptr<Job>>& jobs, const ResponseMeta& meta, const ReplyReader& reader);
};

void HttpServer::Impl::routes() {
  // A thread per connection, up to --max-connections (ConnectionGuard).
  http.new_task_queue = [this] { return guard.make_task_queue(); };
  http.set_payload_max_length(options.max_body);
  http.set_read_timeout(options.timeout_s);
  http.set_write_timeout(options.timeout_s);
  // An idle keep-alive connection holds its thread this long, and stop()
  // waits for it: short, so that shutdown is quick (clients reconnect).
  http.set_keep_alive_timeout(2);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refused_before_routing(req, res) ? httplib::Server::HandlerResponse::Handled
                                            : httplib::Server::HandlerResponse::Unhandled;
  });
  // Called once an answer has been written: the connection's next request
  // (keep-alive) gets a fresh deadline.
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    guard.answer_written();
    if (options.log_requests) std::fprintf(stderr, "%s %s -> %d\n", req.method.c_str(), req.path.c_str(), res.status);
  });

  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    guard.request_read();
    const GenerationQueue::Status s = queue.status();
    send_json(res, s.shutting_down ? 503 : 200,
              {{"status", s.shutting_down ? "shutting_down" : "ok"},
               {"model", options.model_id},
               {"running", s.running},
               {"waiting", s.waiting},
               {"max_waiting", s.max_waiting},
               {"completed", s.completed}});
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    guard.request_read();
    send_json(res, 200, model_list(options.model_id, started));
  });
  http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    generate(Endpoint::Completions, req, res);
  });
  http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    generate(Endpoint::ChatCompletions, req, res);
  });
  // Unmatched routes (404) and httplib's own refusals (413, 400) get a JSON body too.
  http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const bool not_found = res.status == 404;
    std::string message = not_found ? "no route " + req.method + " " + req.path
                                    : "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path;
    if (res.status == 413) {
      // curl -d sends form encoding, which cpp-httplib caps at 8 KiB whatever --max-body says.
      message = req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0
                    ? "the body is sent as application/x-www-form-urlencoded, limited to 8 KiB: send it with "
                      "'Content-Type: application/json'"
                    : "the body is larger than this server takes (" + std::to_string(options.max_body) +
                          " bytes; wgrt serve --max-body)";
    }
    send_error(res, ApiError(res.status, not_found ? "not_found_error" : "invalid_request_error", message));
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, ApiError(500, "server_error", "internal error: " + what));
  });
}

bool HttpServer::Impl::refused_before_routing(const httplib::Request& req, httplib::Response& res) const {
  if (!options.cors_origin.empty()) {
    res.set_header("Access-Control-Allow-Origin", options.cors_origin);
    if (req.method == "OPTIONS") {  // a browser's preflight
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
      res.set_header("Access-Control-Max-Age", "600");
      res.status = 204;
      return true;
    }
  }
  if (options.api_key.empty() || req.path == "/health") return false;
  if (same_secret(req.get_header_value("Authorization"), "Bearer " + options.api_key)) return false;
  res.set_header("WWW-Authenticate", "Bearer");
  send_error(res, ApiError(401, "invalid_request_error",
                           req.has_header("Authorization")
                               ? "wrong API key: send the key wgrt serve was started with as 'Authorization: Bearer <key>'"
                               : "this server needs an API key: send 'Authorization: Bearer <key>'",
                           "", "invalid_api_key"));
  return true;
}

// One job per choice (`n`), each with its own seed; all or none are queued.
std::vector<std::shared_ptr<Job>> HttpServer::Impl::submit(const GenerationRequest& request,
                                                           const PreparedGeneration& prepared) {
  std::vector<std::shared_ptr<Job>> jobs;
  for (int64_t i = 0; i < request.n; ++i) {
    api::GenerateOptions o = prepared.options;
    o.seed += uint64_t(i);  // n choices, n draws (greedy ones alike)
    GenerationQueue::Refusal refusal;
    std::shared_ptr<Job> job = queue.submit(prepared.prompt, std::move(o), prepared.cache_prompt, refusal);
    if (refusal != GenerationQueue::Refusal::None) {
      for (auto& queued : jobs) queued->cancel();
      if (refusal == GenerationQueue::Refusal::ShuttingDown) throw shutting_down();
      throw ApiError(503, "server_error",
                     "the server is busy: " + std::to_string(options.max_waiting) +
                         " requests are already waiting (see wgrt serve --queue); retry later",
                     "", "queue_full");
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// A whole answer: every choice's text (or tool calls), the usage summed.
json HttpServer::Impl::whole_answer(const std::vector<std::shared_ptr<Job>>& jobs, const ResponseMeta& meta,
                                    const ReplyReader& reader) {
  std::vector<ChoiceReply> choices;
  JobResult total;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job::Update all = jobs[i]->take_all();
    const JobResult& r = *all.result;
    if (r.reason == FinishReason::Cancelled || r.reason == FinishReason::Error || r.reason == FinishReason::Unavailable) {
      for (const auto& job : jobs) job->cancel();
      if (r.reason == FinishReason::Cancelled) throw shutting_down();
      if (r.reason == FinishReason::Unavailable) throw device_lost(r.error);
      throw ApiError(500, "server_error", "generation failed: " + r.error);
    }
    ReplyReader::Reply reply = reader.read(all.text, r);
    choices.push_back({std::move(reply.text), all.logprobs, r.reason, std::move(reply.tool_calls)});
    if (i == 0) {
      total = r;
    } else {
      total.completion_tokens += r.completion_tokens;
    }
  }
  return completion_body(meta, choices, total);
}

void HttpServer::Impl::generate(Endpoint endpoint, const httplib::Request& req, httplib::Response& res) {
  guard.request_read();  // the body too has arrived
  try {
    const GenerationRequest request = parse_generation_request(endpoint, req.body);
    PreparedGeneration prepared = prepare_generation(model, request);
    std::vector<std::shared_ptr<Job>> jobs = submit(request, prepared);
    const ReplyReader reader{prepared.tool_format, prepared.reply_prefix, prepared.reply_suffix};
    const uint64_t n = next_id++;
    ResponseMeta meta{endpoint, (endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-") + std::to_string(n),
                      options.model_id, int64_t(std::time(nullptr)), request.sampler.logprobs >= 0};
    if (!request.stream) {
      send_json(res, 200, whole_answer(jobs, meta, reader));
      return;
    }
    auto stream = std::make_shared<EventStream>();
    stream->jobs = std::move(jobs);
    stream->meta = std::move(meta);
    stream->include_usage = request.include_usage;
    stream->reader = reader;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream", [stream](size_t, httplib::DataSink& sink) { return stream->pump(sink); },
        // Ended, completed or not (the client left, the server stopped): the
        // jobs stop if they still run, and free their slots.
        [stream](bool) { stream->cancel(); });
  } catch (const ApiError& e) {
    send_error(res, e);
  } catch (const Error& e) {
    // The tokenizer and chat template report bad input as InvalidArgument.
    send_error(res, e.code() == ErrorCode::InvalidArgument ? ApiError::invalid(e.what())
                                                           : ApiError(500, "server_error", e.what()));
  }
}

HttpServer::HttpServer(api::Llm model, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(options))) {
  impl_->queue.lose_device_at_request_for_test(impl_->options.lose_device_at_request_for_test);
  impl_->queue.fail_allocation_at_request_for_test(impl_->options.fail_allocation_at_request_for_test);
  impl_->routes();
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() {
  const ServerOptions& o = impl_->options;
  const int port = o.port == 0 ? impl_->http.bind_to_any_port(o.host)
                               : (impl_->http.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port <= 0) {
    throw Error(ErrorCode::InvalidArgument,
                "cannot listen on " + o.host + ":" + std::to_string(o.port) + " (address in use, or not this host's)");
  }
  return port;
}

void HttpServer::serve() {
  if (!impl_->stop_requested) impl_->http.listen_after_bind();
  impl_->serving_ended = true;
}

std::string HttpServer::failure() const {
  std::lock_guard lock(impl_->failure_mutex);
  return impl_->failure;
}

void HttpServer::stop() {
  impl_->stop_requested = true;
  impl_->queue.shutdown();
  // httplib's stop() does nothing until listening has begun: a stop() that
  // races with the start of serve() waits for it (at most 2 s).
  for (int i = 0; i < 200 && !impl_->http.is_running() && !impl_->serving_ended; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  impl_->http.stop();
}

}  // namespace wgrt::server
