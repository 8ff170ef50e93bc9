// `wgrt serve`: an OpenAI-compatible HTTP server over one model (see
// src/server/). This file parses the command line, loads the model, and
// turns SIGINT/SIGTERM into a clean stop.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "gpu/device.h"
#include "llm/llm_model.h"
#include "server/http_server.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

constexpr const char* kUsage =
    "usage: wgrt serve [options]\n"
    "\n"
    "Serves a Llama-family model over an OpenAI-compatible HTTP API: GET /health, GET /v1/models,\n"
    "POST /v1/completions and POST /v1/chat/completions (stream: true for server-sent events).\n"
    "With no --model, serves SmolLM2-135M-Instruct (Q4_1), installed by scripts/setup.sh.\n"
    "\n"
    "options:\n"
    "  --model PATH      GGUF file, or a .pte from ExecuTorch's Llama export (needs --tokenizer)\n"
    "  --tokenizer PATH  for a .pte model: a GGUF file whose tokenizer it uses\n"
    "  --host ADDR       address to listen on (default 127.0.0.1: this machine only)\n"
    "  --port N          port (default 8080; 0 picks a free one, printed at start)\n"
    "  --ctx N           context length per request: prompt + completion (default 2048)\n"
    "  --chunk N         most prompt tokens per forward pass (default 256)\n"
    "  --parallel N      sequences decoded at once; only 1 for now (no batching yet)\n"
    "  --queue N         requests that may wait behind the running one (default 16); when\n"
    "                    it is full, new requests get 503 with Retry-After\n"
    "  --quiet           no line per request on stderr\n"
    "\n"
    "Requests run one at a time, in arrival order. SIGINT or SIGTERM cancels running and\n"
    "queued requests and exits with status 0.\n";

struct ServeConfig {
  llm::LlmLoadOptions load;
  server::ServerOptions server;
};

// All of serve's command line in one place.
ServeConfig parse_serve_args(int argc, char** argv) {
  const Args args(argc, argv, {"--model", "--tokenizer", "--host", "--port", "--ctx", "--chunk", "--parallel", "--queue"},
                  {"--quiet"});
  if (!args.positionals().empty()) {
    throw Error(ErrorCode::InvalidArgument, "unexpected argument '" + args.positionals()[0] + "' (see --help)");
  }
  ServeConfig c;
  c.load.path = args.get_or("--model", "");
  c.load.tokenizer_path = args.get_or("--tokenizer", "");
  c.load.context = args.get_int("--ctx", 2048);
  c.load.chunk = args.get_int("--chunk", 256);
  c.server.host = args.get_or("--host", "127.0.0.1");
  const int64_t port = args.get_int("--port", 8080);
  if (port < 0 || port > 65535) throw Error(ErrorCode::InvalidArgument, "--port must be in [0, 65535]");
  c.server.port = int(port);
  const int64_t parallel = args.get_int("--parallel", 1);
  if (parallel != 1) {
    throw Error(ErrorCode::NotSupported,
                "--parallel " + std::to_string(parallel) +
                    ": wgrt serve decodes one sequence at a time (continuous batching is not implemented yet); "
                    "requests queue instead, up to --queue of them");
  }
  const int64_t queue = args.get_int("--queue", 16);
  if (queue < 0 || queue > 1024) throw Error(ErrorCode::InvalidArgument, "--queue must be in [0, 1024]");
  c.server.max_waiting = size_t(queue);
  c.server.log_requests = !args.flag("--quiet");
  return c;
}

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

}  // namespace

int run_serve(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  ServeConfig config = parse_serve_args(argc, argv);
  static StopSignals signals;  // its thread may outlive this call

  auto device = gpu::Device::create();
  std::unique_ptr<llm::LlmModel> model;
  {
    ProgressBar bar("loading");
    config.load.on_progress = [&](size_t done, size_t total, const char* stage) { bar.update(done, total, stage); };
    model = llm::LlmModel::load(*device, config.load);
  }
  config.server.model_id = std::filesystem::path(model->path()).filename().string();

  server::HttpServer server(*model, config.server);
  const int port = server.bind();
  std::fprintf(stderr, "model: %s\n  %s\n  on %s (%s), context %lld\n", model->path().c_str(),
               model->config().summary().c_str(), device->adapter_info().name.c_str(),
               device->adapter_info().backend.c_str(), static_cast<long long>(model->context()));
  std::fprintf(stderr, "listening on http://%s:%d (one request at a time, %zu may wait)\n", config.server.host.c_str(),
               port, config.server.max_waiting);
  if (signals.attach(&server)) server.serve();
  signals.attach(nullptr);
  std::fprintf(stderr, "stopped\n");
  return 0;
}

}  // namespace wgrt::cli
