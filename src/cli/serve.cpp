// `wgrt serve`: an OpenAI-compatible HTTP server over one model (see
// src/server/). This file parses the command line, loads the model, and
// turns SIGINT/SIGTERM into a clean stop.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "server/http_server.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"
#include "wgrt/runtime.h"

namespace wgrt::cli {
namespace {

constexpr int64_t kDefaultParallel = 4;
constexpr int64_t kParallelUnset = std::numeric_limits<int64_t>::min();

struct ServeConfig {
  api::LlmOptions load;
  server::ServerOptions server;
  int64_t parallel = kParallelUnset;  // unset: 4 for a GGUF model, 1 for a .pte (its cache holds one sequence)
  int64_t queue = 16;
  bool quiet = false;
};

// SIGINT and SIGTERM are blocked in every thread and taken by one thread
// with sigwait(), which may then call into the server safely (a signal
// handler could not).
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);  // before any other thread exists
    std::signal(SIGPIPE, SIG_IGN);               // a vanished client is a failed write, not death
    thread_ = std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      std::lock_guard lock(mutex_);
      stopped_ = true;
      if (server_) server_->stop();
    });
    thread_.detach();  // it ends with the process
  }
  // Returns false when a signal came before the server existed.
  bool attach(server::HttpServer* server) {
    std::lock_guard lock(mutex_);
    server_ = server;
    return !stopped_;
  }

 private:
  sigset_t set_;
  std::mutex mutex_;
  server::HttpServer* server_ = nullptr;
  bool stopped_ = false;
  std::thread thread_;
};

int serve(ServeConfig& config) {
  if (config.parallel == kParallelUnset) config.parallel = config.load.path.ends_with(".pte") ? 1 : kDefaultParallel;
  if (config.parallel < 1 || config.parallel > 32) {
    throw Error(ErrorCode::InvalidArgument,
                "--parallel " + std::to_string(config.parallel) + ": sequences decoded at once must be 1 to 32");
  }
  config.load.parallel = config.parallel;
  config.load.chunk = std::max(config.load.chunk, config.parallel);  // a batched step is one pass of them
  config.server.max_waiting = size_t(config.queue);
  if (config.server.api_key.empty()) {
    if (const char* key = std::getenv("WGRT_API_KEY"); key != nullptr) config.server.api_key = key;
  }
  config.server.log_requests = !config.quiet;
  static StopSignals signals;  // its thread may outlive this call

  const api::Runtime runtime = api::Runtime::create(runtime_options(config.load.devices));
  {
    // The model path and tuning the environment names (WGRT_DEFAULT_MODEL, WGRT_*).
    const api::LlmOptions env = llm_options(config.load.path);
    config.load.path = env.path;
    config.load.load = env.load;
  }
  std::optional<api::Llm> model;
  {
    ProgressBar bar("loading");
    config.load.on_progress = [&](size_t done, size_t total, const char* stage) { bar.update(done, total, stage); };
    model = api::Llm::load(runtime, config.load);
    bar.finish();
  }
  config.server.model_id = std::filesystem::path(model->path()).filename().string();
  // After a lost GPU device: a new device and the model loaded again on it.
  config.server.reload = [load = config.load]() mutable {
    load.on_progress = nullptr;
    return api::Llm::load(api::Runtime::create(runtime_options(load.devices)), load);
  };

  server::HttpServer server(*model, config.server);
  const int port = server.bind();
  std::fprintf(stderr, "model: %s\n  %s\n  on %s, context %lld\n", model->path().c_str(),
               model->description().c_str(), adapter_names(*model).c_str(), static_cast<long long>(model->context()));
  const std::string at_once = model->parallel() > 1 ? std::to_string(model->parallel()) + " requests at once"
                                                    : std::string("one request at a time");
  std::fprintf(stderr, "listening on http://%s:%d (%s, %zu may wait%s)\n", config.server.host.c_str(), port,
               at_once.c_str(), config.server.max_waiting,
               config.server.api_key.empty() ? "; no API key" : "; API key required");
  if (signals.attach(&server)) server.serve();
  signals.attach(nullptr);
  if (const std::string why = server.failure(); !why.empty()) {
    std::fprintf(stderr, "wgrt serve: %s\n", why.c_str());
    return 1;
  }
  std::fprintf(stderr, "stopped\n");
  return 0;
}

}  // namespace

Command add_serve(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "serve", "an OpenAI-compatible HTTP server for a Llama-family model",
      "Serves a Llama-family model over an OpenAI-compatible HTTP API: GET /health, GET /v1/models,\n"
      "POST /v1/completions and POST /v1/chat/completions (stream: true for server-sent events).\n"
      "With no --model, serves SmolLM2-135M-Instruct (Q4_1), installed by scripts/setup.sh.",
      "Up to --parallel requests run at once (continuous batching: one forward pass advances\n"
      "all of them; a new request's prompt runs in chunks between their steps), the rest wait\n"
      "in arrival order. Each has a slot of the KV cache (--ctx tokens); a finished request's\n"
      "cache stays in its slot, and a request whose prompt repeats it (a chat's earlier turns)\n"
      "runs only the rest (usage reports prompt_tokens_details.cached_tokens; \"cache_prompt\":\n"
      "false opts out). A JSON response_format, a grammar or a required tool call decodes in\n"
      "the batch under a token mask; requests with logprobs run alone, after the running ones.\n"
      "SIGINT or SIGTERM cancels running and queued requests and exits with status 0.");
  auto c = std::make_shared<ServeConfig>();
  c->server.host = "127.0.0.1";
  c->server.port = 8080;
  cmd->add_option("--model", c->load.path, "GGUF file, or a .pte from ExecuTorch's Llama export (needs --tokenizer)")
      ->type_name("PATH");
  cmd->add_option("--tokenizer", c->load.tokenizer_path, "for a .pte model: a GGUF file whose tokenizer it uses")
      ->type_name("PATH");
  cmd->add_option("--host", c->server.host, "address to listen on (default 127.0.0.1: this machine only)")
      ->type_name("ADDR");
  cmd->add_option("--port", c->server.port, "port (default 8080; 0 picks a free one, printed at start)")
      ->type_name("N")
      ->check(in_range(0, 65535));
  cmd->add_option("--ctx", c->load.context, "context length per request: prompt + completion (default 2048)")
      ->type_name("N");
  add_devices_option(cmd, c->load.devices);
  cmd->add_option("--chunk", c->load.chunk, "most prompt tokens per forward pass (default 256)")->type_name("N");
  cmd->add_option("--parallel", c->parallel,
                  "requests decoded at once, 1 to 32 (default 4; 1 for a .pte); the KV cache\n"
                  "holds --parallel x --ctx tokens")
      ->type_name("N");
  cmd->add_option("--queue", c->queue,
                  "requests that may wait behind the running one (default 16); when\n"
                  "it is full, new requests get 503 with Retry-After")
      ->type_name("N")
      ->check(in_range(0, 1024));
  cmd->add_option("--api-key", c->server.api_key,
                  "require 'Authorization: Bearer KEY' on every route but /health (401 otherwise);\n"
                  "default: $WGRT_API_KEY, else none")
      ->type_name("KEY");
  cmd->add_option("--max-body", c->server.max_body, "largest request body in bytes (default 8 MiB; 413 beyond)")
      ->type_name("BYTES")
      ->check(in_range(1, int64_t{1} << 30));
  cmd->add_option("--timeout", c->server.timeout_s,
                  "seconds to receive a whole request (a slower client's connection is closed)\n"
                  "and for each write of an answer (default 30)")
      ->type_name("S")
      ->check(in_range(1, 3600));
  cmd->add_option("--max-connections", c->server.max_connections,
                  "connections open at once (default 64); one more is answered 503")
      ->type_name("N")
      ->check(in_range(1, 4096));
  cmd->add_option("--cors", c->server.cors_origin,
                  "let web pages from ORIGIN (e.g. http://localhost:5173, or *) call the API\n"
                  "(Access-Control-Allow-Origin; preflights answered); default off")
      ->type_name("ORIGIN");
  cmd->add_flag("--quiet", c->quiet, "no line per request on stderr");
  cmd->add_option("--test-lose-device-at-request", c->server.lose_device_at_request_for_test,
                  "testing: the GPU device is lost as the Nth request starts")
      ->type_name("N")
      ->group("");  // hidden
  cmd->add_option("--test-fail-allocation-at-request", c->server.fail_allocation_at_request_for_test,
                  "testing: a GPU buffer allocation fails as the Nth request starts, if it runs alone (logprobs: a batched "
                  "request allocates none)")
      ->type_name("N")
      ->group("");
  return {cmd, [c] { return serve(*c); }};
}

}  // namespace wgrt::cli
