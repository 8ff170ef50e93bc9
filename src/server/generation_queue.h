// Requests for the one loaded model, run by a worker thread in arrival
// order: one at a time, or, when the model holds several sequences
// (LlmOptions::parallel), up to that many at once through api::Batch
// (continuous batching: a request joins or leaves between forward passes,
// its prompt prefilled in chunks between the others' decode steps; a JSON
// constraint or grammar joins too). A request the batch cannot take
// (logprobs: they need the logits on the host) waits until the running ones
// end and then runs alone.
// The queue is bounded: a request that finds it full is refused at once (the
// HTTP layer answers 503) rather than left waiting.
//
// Each request is a Job the HTTP thread holds: it reads the text as it is
// produced (streaming) or waits for the whole of it, and cancels the job when
// its client goes away; the worker then stops at the next token and moves on.
//
// The model and its GPU device are used only by the worker thread once the
// queue exists (a device is driven by one thread; other threads use only
// api::Llm's "any thread" calls).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "wgrt/batch.h"
#include "wgrt/llm.h"

namespace wgrt::server {

// Unavailable: the GPU device was lost during the request (a 503; the model
// is being loaded again on a new device).
enum class FinishReason { Stop, Length, Cancelled, Error, Unavailable };

struct JobResult {
  FinishReason reason = FinishReason::Error;
  size_t prompt_tokens = 0;
  size_t cached_tokens = 0;  // of prompt_tokens: found in the KV cache, not run again
  size_t completion_tokens = 0;
  std::string error;  // for FinishReason::Error
};

// One generated token's log-probability (GenerateOptions::logprobs), with
// the token and its alternatives as text.
struct TokenLogprob {
  std::string token;
  float logprob = 0;
  std::vector<std::pair<std::string, float>> top;
};

class Job {
 public:
  // `cache_prompt`: start from the cached prefix the prompt repeats.
  Job(std::vector<int32_t> prompt, api::GenerateOptions options, bool cache_prompt = true)
      : prompt_(std::move(prompt)), options_(std::move(options)), cache_prompt_(cache_prompt) {}

  struct Update {
    std::string text;                 // produced since the last take
    std::vector<TokenLogprob> logprobs;  // of the tokens generated since the last take, when asked for
    std::optional<JobResult> result;  // set once the job has ended
  };
  // Waits until there is new text or the job ends, or `timeout` passes (then
  // the update is empty).
  Update take(std::chrono::milliseconds timeout);
  // Waits for the end; all text not taken before.
  Update take_all();
  // Stops the job: a waiting one never runs, a running one ends at its next token.
  void cancel() { cancel_ = true; }

 private:
  friend class GenerationQueue;
  void append(const std::string& text, std::optional<TokenLogprob> logprob);
  void finish(JobResult result);

  const std::vector<int32_t> prompt_;
  const api::GenerateOptions options_;
  const bool cache_prompt_;
  std::atomic<bool> cancel_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string text_;
  std::vector<TokenLogprob> logprobs_;
  std::optional<JobResult> result_;
};

class GenerationQueue {
 public:
  // Loads the model again on a new device, after the device was lost.
  using Reload = std::function<api::Llm()>;
  // Told when the model could not be loaded again (the server then stops).
  using Fatal = std::function<void(const std::string&)>;
  // At most `max_waiting` jobs wait behind the running ones. Without
  // `reload`, a lost device fails every later request.
  GenerationQueue(api::Llm model, size_t max_waiting, Reload reload = {}, Fatal fatal = {});
  // Test only: the device is lost as the Nth request starts (0: never).
  void lose_device_at_request_for_test(uint64_t n) { lose_at_request_ = n; }
  // Test only: a GPU allocation fails as the Nth request starts (0: never).
  void fail_allocation_at_request_for_test(uint64_t n) { fail_at_request_ = n; }
  ~GenerationQueue();  // shutdown(), then joins the worker
  GenerationQueue(const GenerationQueue&) = delete;
  GenerationQueue& operator=(const GenerationQueue&) = delete;

  enum class Refusal { None, Full, ShuttingDown };
  // The job, or the reason it was refused.
  std::shared_ptr<Job> submit(std::vector<int32_t> prompt, api::GenerateOptions options, bool cache_prompt,
                              Refusal& refusal);

  // Cancels the running and waiting jobs and refuses new ones.
  void shutdown();

  struct Status {
    size_t running = 0, waiting = 0, max_waiting = 0;
    uint64_t completed = 0;
    bool shutting_down = false;
  };
  Status status() const;

 private:
  void work();
  // The worker's loop when the model holds several sequences.
  void work_batched();
  // Moves waiting jobs into the batch while it has room; returns a job to run
  // alone once nothing runs, if the first waiting one needs that. Under mutex_.
  std::shared_ptr<Job> admit(api::Batch& batch);
  // Ends every job in the batch with `reason` (a failed or lost device).
  void fail_batch(FinishReason reason, const std::string& error);
  void execute(Job& job);
  // After a lost device: the model on a new one (true), or the server told
  // to stop (false).
  bool recover(const std::string& what);
  // With no model left to run: fails every job that arrives until shutdown.
  void refuse_until_stopped(const std::string& why);
  // A step's log-probabilities with its tokens as text.
  TokenLogprob token_logprob(const api::GenerationStep& step) const;

  api::Llm model_;
  const size_t max_waiting_;
  const size_t parallel_;  // the model's slots (api::Llm::parallel)
  const Reload reload_;
  const Fatal fatal_;
  std::atomic<uint64_t> lose_at_request_{0}, fail_at_request_{0};
  uint64_t started_ = 0;  // requests the worker has begun
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> waiting_;
  std::shared_ptr<Job> running_;  // one at a time
  std::map<uint64_t, std::shared_ptr<Job>> batched_;  // running in the batch, by its ids
  uint64_t completed_ = 0;
  bool stopping_ = false;
  std::thread worker_;  // last: starts once everything above exists
};

}  // namespace wgrt::server
