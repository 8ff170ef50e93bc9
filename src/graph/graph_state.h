// What a loaded graph records at lowering and changes at run time: the
// dispatches, their parameters (uniforms), the resize hooks, and the live
// shapes inside the graph's tensors. Owned by ExecutableGraph; ops reach it
// only through OpContext and ResizeContext.
#pragma once

#include <any>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/pipeline_cache.h"
#include "gpu/workgroups.h"
#include "graph/graph.h"
#include "graph/uniform_arena.h"
#include "wgrt/tuning.h"

namespace wgrt {

class ResizeContext;

using DispatchId = size_t;
// Recomputes an op's output live shapes, workgroup counts and uniforms from
// its inputs' live shapes and symbolic ints. Must not allocate.
using ResizeHook = std::function<void(ResizeContext&)>;

struct RecordedDispatch {
  const gpu::ComputePipeline* pipeline = nullptr;
  gpu::BindGroup bind_group;
  gpu::WorkgroupCount count{0, 1, 1};
  std::string label;
  // The bindings as recorded and, per binding, the graph input whose buffer it
  // is (kNotAnInput otherwise): a call given a device tensor for an input
  // builds this dispatch's bind group again with the caller's buffer there.
  std::vector<gpu::BufferBinding> bindings;
  std::vector<ValueId> binding_inputs;
};

inline constexpr ValueId kNotAnInput = ~ValueId{0};

struct HookEntry {
  std::vector<ValueId> deps;  // fires when any of these changed
  ResizeHook fn;
  // Fires on every run: its op sizes dispatches from state it owns, set
  // between runs through its handle (ExecutableGraph::op_state), not from values.
  bool every_run = false;
};

struct GraphState {
  Graph graph;
  Tuning tuning;  // LoadOptions::tuning, for the ops' choices
  std::vector<RecordedDispatch> dispatches;
  std::vector<size_t> op_first_dispatch;  // per op: the index of its first dispatch
  // State an op keeps for its callers (a sampler's rows), by op index: the
  // graph holds it as long as it holds the op's dispatches.
  std::vector<std::pair<size_t, std::any>> op_states;
  UniformArena uniforms;                   // flushed at the end of every resize pass
  std::vector<HookEntry> hooks;
  std::deque<gpu::Buffer> graph_scratch;   // whole-graph scratch, never pooled
  std::vector<uint8_t> changed;            // per value: live shape or value changed this run
  // Inputs whose host bytes some hook reads (et_vk.select_as_symint): their
  // bytes during execute, and a copy of the last ones to notice changes.
  std::vector<ValueId> watched_inputs;
  // Per watched input: 1 when the graph needs its bytes to run (a position),
  // 0 when a hook only checks them (token ids): a device tensor may then be
  // bound for it, and its bytes go unchecked.
  std::vector<uint8_t> watched_required;
  std::vector<std::vector<uint8_t>> watched_bytes;
  std::vector<std::span<const uint8_t>> host_inputs;  // per value (sized at load); set for inputs during execute
};

}  // namespace wgrt
