#include "llm/batch_generation.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "gpu/command_batch.h"
#include "llm/stop_strings.h"
#include "llm/tokenizer/utf8_stream.h"
#include "ops/sampling/gpu_sampler.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

struct BatchGenerator::Sequence {
  Sequence(uint64_t id, BatchRequest r, const Tokenizer& tokenizer)
      : id(id), request(std::move(r)), decoder(tokenizer), stops(request.options.stop) {}

  uint64_t id;
  BatchRequest request;
  StreamDecoder decoder;
  StopStrings stops;
  // A JSON constraint or grammar (made at admission), and its last mask.
  std::unique_ptr<TokenConstraint> constraint;
  std::vector<uint8_t> allowed;
  std::vector<uint32_t> mask;
  size_t slot = 0;
  size_t prompt_done = 0;  // prompt tokens run (or found cached)
  int64_t prompt_end = 0;  // the slot's positions once the prompt has run
  int32_t queued = 0;      // draws submitted
  int32_t produced = 0;    // tokens taken
  int32_t in_flight = 0;   // draws submitted, not taken
  bool prefilling = true;
  bool stopped = false;    // no more steps; its draws in flight are dropped
  GenerateStats stats;
  Clock::time_point admitted, first_token;
};

BatchGenerator::BatchGenerator(LlmModel& model, int32_t in_flight)
    : model_(model),
      in_flight_(in_flight),
      slots_(model.slots()),
      sampler_(model.sampler()),
      // Every decode step and every prompt's last chunk takes a ring slot.
      ring_(model.device(), size_t(std::max(in_flight, 1)) + 2, model.slots() * sizeof(int32_t)),
      ring_busy_(ring_.slots(), false),
      taken_(model.slots(), 0) {
  if (in_flight < 1) {
    throw Error(ErrorCode::InvalidArgument,
                "steps in flight must be >= 1 (1 waits for each token), got " + std::to_string(in_flight));
  }
}

BatchGenerator::~BatchGenerator() {
  try {
    ring_.discard_all();
  } catch (...) {  // a lost device: nothing left in flight
  }
}

size_t BatchGenerator::running() const {
  return size_t(std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s != nullptr; }));
}

uint64_t BatchGenerator::add(BatchRequest request) {
  const GenerateOptions& o = request.options;
  validate(o, model_.sampling_vocab());
  const char* host_only = o.on_logits       ? "on_logits"
                          : o.logprobs >= 0   ? "logprobs"
                          : !o.gpu_sampling   ? "host sampling"
                                              : nullptr;
  if (host_only != nullptr) {
    throw Error(ErrorCode::NotSupported, std::string("batched generation samples on the GPU; ") + host_only +
                                             " needs the host between tokens (run it alone)");
  }
  if (request.prompt.empty()) throw Error(ErrorCode::InvalidArgument, "batched generation: an empty prompt");
  const int64_t vocab = model_.sampling_vocab();
  for (size_t i = 0; i < request.prompt.size(); ++i) {
    const TokenId t = request.prompt[i];
    if (t < 0 || t >= vocab) {
      throw Error(ErrorCode::InvalidArgument, "prompt token " + std::to_string(i) + " is id " + std::to_string(t) +
                                                  ", outside the vocabulary of " + std::to_string(vocab));
    }
  }
  if (int64_t(request.prompt.size()) > model_.context()) {
    throw Error(ErrorCode::InvalidArgument, "a prompt of " + std::to_string(request.prompt.size()) +
                                                " tokens is longer than the context of " +
                                                std::to_string(model_.context()) + " (raise --ctx)");
  }
  const uint64_t id = next_id_++;
  waiting_.push_back(std::make_unique<Sequence>(id, std::move(request), model_.tokenizer()));
  waiting_.back()->stats.prompt_tokens = waiting_.back()->request.prompt.size();
  return id;
}

void BatchGenerator::cancel(uint64_t id) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if ((*it)->id != id) continue;
    std::unique_ptr<Sequence> seq = std::move(*it);
    waiting_.erase(it);
    seq->stats.cancelled = true;
    if (seq->request.on_done) seq->request.on_done(seq->stats, {});
    return;
  }
  for (auto& seq : slots_) {
    if (seq && seq->id == id && !seq->stopped) {
      seq->stats.cancelled = true;
      stop(*seq);
    }
  }
}

// The free slot whose cache shares the longest prefix with the prompt (the
// lowest free slot when none does).
size_t BatchGenerator::pick_slot(const std::vector<TokenId>& prompt, bool cache_prompt) const {
  size_t best = slots_.size();
  int64_t best_len = -1;
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s]) continue;
    model_.select_slot(s);
    const int64_t len = cache_prompt ? model_.cached_prefix(prompt) : 0;
    if (len > best_len) {
      best = s;
      best_len = len;
    }
  }
  return best;
}

void BatchGenerator::admit() {
  while (!waiting_.empty() && running() < slots_.size()) {
    std::unique_ptr<Sequence> seq = std::move(waiting_.front());
    waiting_.pop_front();
    const size_t s = pick_slot(seq->request.prompt, seq->request.cache_prompt);
    model_.select_slot(s);
    const int64_t reuse = seq->request.cache_prompt ? model_.cached_prefix(seq->request.prompt) : 0;
    model_.rewind(reuse);
    seq->slot = s;
    seq->prompt_done = size_t(reuse);
    seq->stats.cached_tokens = size_t(reuse);
    seq->admitted = Clock::now();
    // Penalties look back over the whole context: the cached prefix and the prompt.
    std::vector<int32_t> history(seq->request.prompt.begin(), seq->request.prompt.end());
    seq->constraint = make_token_constraint(model_, seq->request.options);
    ops::SamplingParams params = gpu_sampling_params(seq->request.options.sampler);
    params.token_mask = seq->constraint != nullptr;
    sampler_.configure(uint32_t(s), params, ops::SamplerRow{uint32_t(s), uint32_t(model_.model_vocab())}, history);
    slots_[s] = std::move(seq);
  }
}

size_t BatchGenerator::free_ring_slot() {
  for (;;) {
    for (size_t i = 0; i < ring_busy_.size(); ++i) {
      if (!ring_busy_[i]) return i;
    }
    take_event();
  }
}

BatchGenerator::Sequence* BatchGenerator::oldest_prefilling() const {
  Sequence* oldest = nullptr;
  for (const auto& seq : slots_) {
    if (seq && seq->prefilling && (oldest == nullptr || seq->id < oldest->id)) oldest = seq.get();
  }
  return oldest;
}

size_t BatchGenerator::next_chunk(const Sequence& seq) const {
  return std::min(seq.request.prompt.size() - seq.prompt_done, size_t(model_.chunk()));
}

// The next chunk of an admitted prompt; its last chunk draws the first token.
void BatchGenerator::prefill_chunk(Sequence& seq) {
  const std::vector<TokenId>& prompt = seq.request.prompt;
  const size_t n = next_chunk(seq);
  const bool last = seq.prompt_done + n == prompt.size();
  const bool draw = last && seq.request.options.max_tokens > 0;
  if (draw && !mask_next_draw(seq)) return;  // a dead end: the sequence has ended
  const size_t ring_slot = draw ? free_ring_slot() : 0;
  model_.select_slot(seq.slot);
  const std::span<const TokenId> chunk(prompt.data() + seq.prompt_done, n);
  if (draw) {
    const uint32_t row = uint32_t(seq.slot);
    sampler_.read_row(row, 0);  // one sequence's pass: its logits are row 0
    model_.submit(chunk, std::span(&row, 1), [&](gpu::CommandBatch& batch) {
      ring_.record_copy(batch, model_.token_buffer(), 0, ring_slot);
    });
    sampler_.read_row(row, row);
    ring_.request(ring_slot, model_.last_submission());
    ring_busy_[ring_slot] = true;
    events_.push_back(Event{ring_slot, {{seq.slot, seq.id}}});
    ++seq.queued;
    ++seq.in_flight;
  } else {
    model_.submit(chunk, {}, {});
  }
  seq.prompt_done += n;
  if (last) {
    seq.prefilling = false;
    seq.prompt_end = model_.cached();
    if (!draw) stop(seq);
  }
}

// A constrained sequence's mask needs the text so far, so its next draw waits
// until its last token is back on the host (the loop in step() takes it at once).
bool BatchGenerator::wants_step(const Sequence& seq) const {
  if (seq.prefilling || seq.stopped || seq.queued >= seq.request.options.max_tokens) return false;
  if (seq.constraint && seq.in_flight > 0) return false;
  model_.select_slot(seq.slot);
  return model_.cached() < model_.context();
}

// One token of every decoding sequence in one pass: rows are slots
// [0, highest decoding slot], a row whose slot is not decoding is skipped.
bool BatchGenerator::decode_step() {
  size_t rows = 0;
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s] && wants_step(*slots_[s])) rows = s + 1;
  }
  if (rows == 0) return false;
  const size_t ring_slot = free_ring_slot();
  std::vector<LlmModel::BatchRow> batch_rows(rows);
  Event event{ring_slot, {}};
  std::vector<size_t> constrained;  // rows whose draw waits for their mask
  for (size_t s = 0; s < rows; ++s) {
    batch_rows[s].slot = int32_t(s);
    // take_event() above may have stopped a sequence: ask again.
    if (!slots_[s] || !wants_step(*slots_[s])) continue;
    model_.select_slot(s);
    batch_rows[s].position = int32_t(model_.cached());
    if (slots_[s]->constraint) {
      constrained.push_back(s);
    } else {
      event.draws.push_back({s, slots_[s]->id});
    }
  }
  if (event.draws.empty() && constrained.empty()) return false;
  std::vector<uint32_t> drawing;
  for (const auto& [s, id] : event.draws) drawing.push_back(uint32_t(s));
  const auto copies = [&](gpu::CommandBatch& batch) {
    if (constrained.empty()) ring_.record_copy(batch, model_.token_buffer(), 0, ring_slot);
  };
  model_.submit_batch(batch_rows, drawing, copies, time_next_step_);
  if (time_next_step_) step_timings_ = model_.graph().last_timings();
  time_next_step_ = false;
  uint64_t submission = model_.last_submission();
  if (!constrained.empty()) {
    // The masks need only the text so far: found while the GPU runs the
    // pass, then the constrained draws (and the step's readback) follow it
    // in a submit of their own: the graph's tail alone.
    drawing.clear();
    for (size_t s : constrained) {
      if (!mask_next_draw(*slots_[s])) continue;  // a dead end: the sequence has ended
      drawing.push_back(uint32_t(s));
      event.draws.push_back({s, slots_[s]->id});
    }
    model_.draw(drawing, [&](gpu::CommandBatch& batch) {
      ring_.record_copy(batch, model_.token_buffer(), 0, ring_slot);
    });
    submission = model_.last_submission();
  }
  ring_.request(ring_slot, submission);
  ring_busy_[ring_slot] = true;
  for (const auto& [s, id] : event.draws) {
    ++slots_[s]->queued;
    ++slots_[s]->in_flight;
  }
  events_.push_back(std::move(event));
  return true;
}

bool BatchGenerator::mask_next_draw(Sequence& seq) {
  if (!seq.constraint) return true;
  if (constraint_mask(*seq.constraint, size_t(model_.sampling_vocab()), seq.allowed, seq.mask) > 0) {
    sampler_.set_mask(uint32_t(seq.slot), seq.mask);
    return true;
  }
  seq.stopped = true;
  seq.prefilling = false;
  seq.stats.generated_tokens = size_t(seq.produced);
  finish(seq.slot, dead_end_message(seq.request.options, seq.produced));
  return false;
}

bool BatchGenerator::constrained_in_flight() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const auto& seq) {
    return seq && seq->constraint && !seq->stopped && seq->in_flight > 0;
  });
}

void BatchGenerator::take_event() {
  Event event = std::move(events_.front());
  events_.pop_front();
  ring_.take(event.ring_slot, taken_.data());
  ring_busy_[event.ring_slot] = false;
  for (const auto& [s, id] : event.draws) {
    Sequence* seq = slots_[s].get();
    if (seq == nullptr || seq->id != id) continue;
    --seq->in_flight;
    if (!seq->stopped) deliver(*seq, taken_[s]);
  }
}

void BatchGenerator::deliver(Sequence& seq, TokenId token) {
  if (token < 0 || token >= model_.sampling_vocab()) {
    seq.stopped = true;
    seq.stats.generated_tokens = size_t(seq.produced);
    finish(seq.slot, "sampling found no token to draw: the logits hold NaN or infinite values (the model's "
                     "weights, or a penalty or bias that overflows)");
    return;
  }
  if (seq.constraint) seq.constraint->accept(token);
  const GenerateOptions& o = seq.request.options;
  if (seq.produced == 0) {
    seq.first_token = Clock::now();
    seq.stats.prompt_seconds = seconds_between(seq.admitted, seq.first_token);
  }
  if (!o.ignore_eos && model_.tokenizer().is_end_of_generation(token)) {
    seq.stats.stopped_at_eos = true;
    stop(seq);
    return;
  }
  model_.select_slot(seq.slot);
  model_.note_fed_token(seq.prompt_end + seq.produced, token);
  ++seq.produced;
  ++seq.stats.generated_tokens;
  const std::string text = seq.stops.push(seq.decoder.push(token));
  bool go_on = true;
  if (seq.stops.matched()) {
    seq.stats.stopped_at_stop_string = true;
    go_on = false;
  }
  if (seq.request.on_token && !seq.request.on_token(token, text)) go_on = false;
  if (o.cancel != nullptr && o.cancel->load()) {
    seq.stats.cancelled = true;
    go_on = false;
  }
  if (!go_on || seq.produced >= o.max_tokens) stop(seq);
}

void BatchGenerator::stop(Sequence& seq) {
  if (seq.stopped) return;
  seq.stopped = true;
  if (seq.stats.stopped_at_stop_string) return;  // the text after the stop string is never shown
  std::string rest = seq.stops.push(seq.decoder.finish());
  if (seq.stops.matched()) seq.stats.stopped_at_stop_string = true;
  rest += seq.stops.flush();
  if (!rest.empty() && seq.request.on_token) seq.request.on_token(-1, rest);
}

// A stopped sequence ends at once: its draws still in flight are dropped (a
// later sequence in its slot is not theirs: events name sequences by id) and
// whatever they write to its cache lies past the rows it keeps.
void BatchGenerator::retire() {
  for (size_t s = 0; s < slots_.size(); ++s) {
    Sequence* seq = slots_[s].get();
    if (seq == nullptr || seq->prefilling || (!seq->stopped && seq->in_flight > 0)) continue;
    if (!seq->stopped) {
      if (seq->queued < seq->request.options.max_tokens) {
        model_.select_slot(s);
        if (model_.cached() < model_.context()) continue;  // more steps to come
        seq->stats.context_full = true;
      }
      stop(*seq);
    }
    finish(s);
  }
}

void BatchGenerator::finish(size_t slot, const std::string& error) {
  std::unique_ptr<Sequence> seq = std::move(slots_[slot]);
  // The slot keeps the prompt and every token taken but the last (as generate.h).
  model_.select_slot(slot);
  if (!error.empty()) {
    model_.reset();
  } else {
    const int64_t keep = seq->prompt_end + std::max<int32_t>(0, seq->produced - 1);
    if (model_.cached() > keep) model_.rewind(keep);
  }
  if (seq->produced > 0) seq->stats.generate_seconds = seconds_between(seq->first_token, Clock::now());
  if (seq->request.on_done) seq->request.on_done(seq->stats, error);
}

bool BatchGenerator::step() {
  for (auto& seq : slots_) {
    const std::atomic<bool>* c = seq ? seq->request.options.cancel : nullptr;
    if (c != nullptr && c->load() && !seq->stopped) {
      seq->stats.cancelled = true;
      stop(*seq);
    }
  }
  admit();
  // Prompts get a chunk of tokens per round, oldest first: a long prompt
  // runs a chunk a round, while a burst of short ones (many requests at
  // once) all run in one round and decode together from the next step.
  int64_t budget = model_.chunk();
  for (bool first = true;; first = false) {
    Sequence* prefill = oldest_prefilling();
    if (prefill == nullptr) break;
    const int64_t n = int64_t(next_chunk(*prefill));
    if (!first && n > budget) break;
    prefill_chunk(*prefill);  // (may end it: a dead end at its first draw)
    budget -= n;
  }
  bool submitted = decode_step();
  // Keep in_flight steps queued; take the oldest once that many are, and
  // every step holding a constrained draw (its next mask needs the token).
  while (!events_.empty() && (events_.size() >= size_t(in_flight_) || !submitted || constrained_in_flight())) {
    take_event();
    retire();
    if (!submitted) break;
  }
  retire();
  model_.select_slot(0);  // the model's one-sequence calls (generate.h) use slot 0
  return running() > 0 || !waiting_.empty();
}

}  // namespace wgrt::llm
