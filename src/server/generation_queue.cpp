#include "server/generation_queue.h"

#include <cstdio>
#include <exception>
#include <utility>

#include "wgrt/error.h"

namespace wgrt::server {

Job::Update Job::take(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return !text_.empty() || !logprobs_.empty() || result_.has_value(); });
  return {std::exchange(text_, {}), std::exchange(logprobs_, {}), result_};
}

Job::Update Job::take_all() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return result_.has_value(); });
  return {std::exchange(text_, {}), std::exchange(logprobs_, {}), result_};
}

void Job::append(const std::string& text, std::optional<TokenLogprob> logprob) {
  if (text.empty() && !logprob) return;
  {
    std::lock_guard lock(mutex_);
    text_ += text;
    if (logprob) logprobs_.push_back(std::move(*logprob));
  }
  changed_.notify_all();
}

void Job::finish(JobResult result) {
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result);
  }
  changed_.notify_all();
}

GenerationQueue::GenerationQueue(api::Llm model, size_t max_waiting, Reload reload, Fatal fatal)
    : model_(std::move(model)),
      max_waiting_(max_waiting),
      parallel_(size_t(model_.parallel())),
      reload_(std::move(reload)),
      fatal_(std::move(fatal)),
      worker_([this] { work(); }) {}

GenerationQueue::~GenerationQueue() {
  shutdown();
  worker_.join();
}

std::shared_ptr<Job> GenerationQueue::submit(std::vector<int32_t> prompt, api::GenerateOptions options,
                                             bool cache_prompt, Refusal& refusal) {
  std::lock_guard lock(mutex_);
  // The running jobs and up to max_waiting_ behind them (a job just
  // submitted to an idle worker counts as running).
  const size_t in_system = waiting_.size() + (running_ ? 1 : 0) + batched_.size();
  refusal = stopping_ ? Refusal::ShuttingDown : in_system >= max_waiting_ + parallel_ ? Refusal::Full : Refusal::None;
  if (refusal != Refusal::None) return nullptr;
  auto job = std::make_shared<Job>(std::move(prompt), std::move(options), cache_prompt);
  waiting_.push_back(job);
  wake_.notify_one();
  return job;
}

void GenerationQueue::shutdown() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  if (running_) running_->cancel();
  for (auto& [id, job] : batched_) job->cancel();
  for (auto& job : waiting_) job->cancel();
  wake_.notify_all();
}

GenerationQueue::Status GenerationQueue::status() const {
  std::lock_guard lock(mutex_);
  return {(running_ ? 1u : 0u) + batched_.size(), waiting_.size(), max_waiting_, completed_, stopping_};
}

void GenerationQueue::work() {
  if (parallel_ > 1) {
    work_batched();
    return;
  }
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // stopping, and nobody left to tell
      job = std::move(waiting_.front());
      waiting_.pop_front();
      running_ = job;
    }
    execute(*job);
    std::lock_guard lock(mutex_);
    running_.reset();
    ++completed_;
  }
}

std::shared_ptr<Job> GenerationQueue::admit(api::Batch& batch) {
  while (!waiting_.empty() && batched_.size() < parallel_) {
    std::shared_ptr<Job> job = waiting_.front();
    if (!api::Batch::accepts(job->options_)) {
      if (!batched_.empty()) return nullptr;  // it runs alone once the batch has drained
      waiting_.pop_front();
      running_ = job;
      return job;
    }
    waiting_.pop_front();
    if (job->cancel_) {  // gone while it waited
      JobResult result;
      result.prompt_tokens = job->prompt_.size();
      result.reason = FinishReason::Cancelled;
      job->finish(std::move(result));
      ++completed_;
      continue;
    }
    // (No allocation hook here: a batched request allocates nothing on the
    // GPU, its sampler row and readback ring coming with the batch.)
    if (++started_ == lose_at_request_) model_.lose_device_for_test();
    api::GenerateOptions options = job->options_;
    options.cancel = &job->cancel_;
    api::BatchCallbacks callbacks;
    Job* raw = job.get();
    callbacks.on_token = [raw](int32_t, std::string_view text) {
      raw->append(std::string(text), std::nullopt);
      return true;
    };
    auto id_box = std::make_shared<uint64_t>(0);  // the batch's id, known once added
    callbacks.on_done = [this, raw, id_box](const api::GenerateResult& r, const std::string& error) {
      JobResult result;
      result.prompt_tokens = r.prompt_tokens;
      result.cached_tokens = r.cached_tokens;
      result.completion_tokens = r.generated_tokens;
      result.error = error;
      result.reason = !error.empty()                                ? FinishReason::Error
                      : r.cancelled                                 ? FinishReason::Cancelled
                      : r.stopped_at_eos || r.stopped_at_stop_string ? FinishReason::Stop
                                                                    : FinishReason::Length;
      raw->finish(std::move(result));
      std::lock_guard lock(mutex_);  // step() runs without it (work_batched)
      batched_.erase(*id_box);
      ++completed_;
    };
    try {
      *id_box = batch.add(job->prompt_, options, std::move(callbacks), job->cache_prompt_);
      batched_.emplace(*id_box, job);
    } catch (const Error& e) {
      JobResult result;
      result.prompt_tokens = job->prompt_.size();
      result.reason = FinishReason::Error;
      result.error = e.what();
      job->finish(std::move(result));
      ++completed_;
    }
  }
  return nullptr;
}

void GenerationQueue::fail_batch(FinishReason reason, const std::string& error) {
  std::lock_guard lock(mutex_);
  for (auto& [id, job] : batched_) {
    JobResult result;
    result.prompt_tokens = job->prompt_.size();
    result.reason = reason;
    result.error = error;
    job->finish(std::move(result));
    ++completed_;
  }
  batched_.clear();
}

// One loop over a Batch until a device failure (then a new Batch over the
// model, reloaded if the device was lost) or shutdown. The worker takes
// mutex_ to admit, and steps without it (a step's callbacks take it to update
// batched_): held through the step, the worker took it straight back each
// round and HTTP threads waited many steps to queue a request (std::mutex is
// not fair), which on the H100 made the mean time to the first token of 32
// streams arriving at once ~1.9 s.
void GenerationQueue::work_batched() {
  for (;;) {
    std::optional<api::Batch> batch;
    try {
      batch.emplace(model_);
      for (;;) {
        std::shared_ptr<Job> alone;
        bool step = false;
        {
          std::unique_lock lock(mutex_);
          wake_.wait(lock, [&] { return stopping_ || !waiting_.empty() || !batched_.empty(); });
          if (stopping_ && waiting_.empty() && batched_.empty()) return;
          alone = admit(*batch);
          step = !alone && !batched_.empty();
        }
        if (step) batch->step();
        if (alone) {
          execute(*alone);
          std::lock_guard lock(mutex_);
          running_.reset();
          ++completed_;
        }
      }
    } catch (const Error& e) {
      const bool lost = e.code() == ErrorCode::DeviceLost;
      fail_batch(lost ? FinishReason::Unavailable : FinishReason::Error, e.what());
      batch.reset();
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;  // (a device that stays lost after a failed reload ends here)
      }
      if (lost && !recover(e.what())) {
        refuse_until_stopped(std::string("the GPU device was lost and the model could not be loaded again: ") +
                             e.what());
        return;
      }
      if (!lost) {
        model_.reset();  // a failed pass may have left rows unwritten
      }
    }
  }
}

TokenLogprob GenerationQueue::token_logprob(const api::GenerationStep& step) const {
  auto text = [&](int32_t id) { return model_.detokenize(std::span(&id, 1)); };
  TokenLogprob out{text(step.token), step.logprobs->logprob, {}};
  for (const auto& [id, logprob] : step.logprobs->top) out.top.emplace_back(text(id), logprob);
  return out;
}

void GenerationQueue::execute(Job& job) {
  JobResult result;
  result.prompt_tokens = job.prompt_.size();
  if (job.cancel_) {
    result.reason = FinishReason::Cancelled;
    job.finish(std::move(result));
    return;
  }
  if (++started_ == lose_at_request_) model_.lose_device_for_test();
  if (started_ == fail_at_request_) model_.fail_next_allocation_for_test();
  try {
    api::GenerateOptions options = job.options_;
    options.cancel = &job.cancel_;
    // The previous request's cache stays: a prompt that repeats its start (a
    // chat's next turn) runs only the rest.
    if (!job.cache_prompt_) model_.reset();
    const int64_t reused = model_.reuse_cached_prefix(job.prompt_);
    result.cached_tokens = size_t(reused);
    api::Generation gen(model_, std::span(job.prompt_).subspan(size_t(reused)), options);
    while (std::optional<api::GenerationStep> step = gen.next()) {
      std::optional<TokenLogprob> logprob;
      if (step->logprobs) logprob = token_logprob(*step);
      job.append(step->text, std::move(logprob));
    }
    const api::GenerateResult stats = gen.stats();
    result.completion_tokens = stats.generated_tokens;
    result.reason = stats.cancelled                                          ? FinishReason::Cancelled
                    : stats.stopped_at_eos || stats.stopped_at_stop_string ? FinishReason::Stop
                                                                           : FinishReason::Length;
  } catch (const Error& e) {
    result.error = e.what();
    if (e.code() == ErrorCode::DeviceLost) {
      result.reason = FinishReason::Unavailable;
      job.finish(std::move(result));
      recover(e.what());
      return;
    }
    result.reason = FinishReason::Error;
    model_.reset();  // a failed pass may have left rows unwritten: no later request reuses them
  } catch (const std::exception& e) {
    result.reason = FinishReason::Error;
    result.error = e.what();
    model_.reset();
  }
  job.finish(std::move(result));
}

bool GenerationQueue::recover(const std::string& what) {
  std::fprintf(stderr, "wgrt serve: the GPU device was lost (%s); loading the model again\n", what.c_str());
  if (!reload_) return false;
  try {
    model_ = reload_();
    std::fprintf(stderr, "wgrt serve: the model is loaded again; serving\n");
    return true;
  } catch (const std::exception& e) {
    if (fatal_) fatal_(std::string("the GPU device was lost and the model could not be loaded again: ") + e.what());
    return false;
  }
}

void GenerationQueue::refuse_until_stopped(const std::string& why) {
  std::unique_lock lock(mutex_);
  for (;;) {
    for (auto& job : waiting_) {
      JobResult result;
      result.prompt_tokens = job->prompt_.size();
      result.reason = FinishReason::Unavailable;
      result.error = why;
      job->finish(std::move(result));
      ++completed_;
    }
    waiting_.clear();
    if (stopping_) return;
    wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
  }
}

}  // namespace wgrt::server
