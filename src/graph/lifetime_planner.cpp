#include "graph/lifetime_planner.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace wgrt {
namespace {

struct Interval {
  size_t first = std::numeric_limits<size_t>::max();
  size_t last = 0;
  bool overlaps(const Interval& o) const { return first <= o.last && o.first <= last; }
};

void touch(const Graph& g, ValueId id, size_t op, std::vector<Interval>& life) {
  if (const auto* list = std::get_if<ValueList>(&g.values[id])) {
    for (ValueId item : list->items) touch(g, item, op, life);
    return;
  }
  life[id].first = std::min(life[id].first, op);
  life[id].last = std::max(life[id].last, op);
}

bool intermediate(const Graph& graph, ValueId id) {
  const auto* t = std::get_if<Tensor>(&graph.values[id]);
  return t != nullptr && t->storage == StorageKind::Intermediate;
}

// Views share their input's object: each value's root is the start of its
// chain of views (itself when it is no view's output).
std::vector<ValueId> view_roots(const Graph& graph, const std::function<bool(std::string_view)>& is_view) {
  std::vector<ValueId> root(graph.values.size());
  for (ValueId id = 0; id < root.size(); ++id) root[id] = id;
  if (is_view) {
    for (const OpCall& op : graph.ops) {
      if (op.args.size() < 2 || !is_view(op.name)) continue;
      const ValueId in = op.args.front(), out = op.args.back();
      if (intermediate(graph, in) && intermediate(graph, out)) root[out] = root[in];
    }
  }
  return root;
}

// Each root's lifetime: the first to the last op naming it or any view of it.
std::vector<Interval> root_lifetimes(const Graph& graph, const std::vector<ValueId>& root) {
  std::vector<Interval> own(graph.values.size());
  for (size_t op = 0; op < graph.ops.size(); ++op) {
    for (ValueId arg : graph.ops[op].args) touch(graph, arg, op, own);
  }
  std::vector<Interval> life(graph.values.size());
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    Interval& l = life[root[id]];
    l.first = std::min(l.first, own[id].first);
    l.last = std::max(l.last, own[id].last);
  }
  return life;
}

// A shared memory object: its size so far and the lifetimes it holds.
struct Object {
  uint64_t bytes = 0;
  std::vector<Interval> users;
};

// The object for a tensor living `life` that needs `need` bytes, among those
// free all that time (-1: none is). Prefers the smallest object that already
// fits, else the largest one (it grows least); sizes only come down since
// tensors go largest first.
int pick_object(const std::vector<Object>& objects, const Interval& life, uint64_t need) {
  int best = -1;
  for (size_t o = 0; o < objects.size(); ++o) {
    const bool free = std::none_of(objects[o].users.begin(), objects[o].users.end(),
                                   [&](const Interval& u) { return u.overlaps(life); });
    if (!free) continue;
    if (best < 0) {
      best = int(o);
    } else {
      const bool fits = objects[o].bytes >= need, best_fits = objects[best].bytes >= need;
      if ((fits && (!best_fits || objects[o].bytes < objects[best].bytes)) ||
          (!fits && !best_fits && objects[o].bytes > objects[best].bytes)) {
        best = int(o);
      }
    }
  }
  return best;
}

}  // namespace

size_t plan_lifetimes(Graph& graph, const std::function<bool(std::string_view)>& is_view) {
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (intermediate(graph, id) && graph.tensor(id).mem_obj_id >= 0) return 0;  // the exporter planned this graph
  }
  const std::vector<ValueId> root = view_roots(graph, is_view);
  std::vector<ValueId> candidates;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (intermediate(graph, id) && root[id] == id) candidates.push_back(id);
  }
  const std::vector<Interval> life = root_lifetimes(graph, root);
  std::stable_sort(candidates.begin(), candidates.end(), [&](ValueId a, ValueId b) {
    return graph.tensor(a).max_device_bytes() > graph.tensor(b).max_device_bytes();
  });

  std::vector<Object> objects;
  for (ValueId id : candidates) {
    Tensor& t = graph.tensor(id);
    if (life[id].first > life[id].last) continue;  // never used by an op: keeps its own buffer
    uint64_t need = t.max_device_bytes();
    for (ValueId m = 0; m < graph.values.size(); ++m) {
      if (root[m] == id) need = std::max(need, graph.tensor(m).max_device_bytes());
    }
    int best = pick_object(objects, life[id], need);
    if (best < 0) {
      best = int(objects.size());
      objects.push_back({});
    }
    objects[best].bytes = std::max(objects[best].bytes, need);
    objects[best].users.push_back(life[id]);
    t.mem_obj_id = best;
  }
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (root[id] != id && graph.tensor(root[id]).mem_obj_id >= 0) {
      graph.tensor(id).mem_obj_id = graph.tensor(root[id]).mem_obj_id;
    }
  }
  return objects.size();
}

ExporterPlan ExporterPlan::take(Graph& graph) {
  ExporterPlan plan;
  plan.ids_.assign(graph.values.size(), -1);
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (!intermediate(graph, id)) continue;
    plan.ids_[id] = graph.tensor(id).mem_obj_id;
    graph.tensor(id).mem_obj_id = -1;
  }
  return plan;
}

void ExporterPlan::restore(Graph& graph) const {
  for (ValueId id = 0; id < ids_.size() && id < graph.values.size(); ++id) {
    if (ids_[id] >= 0 && intermediate(graph, id)) graph.tensor(id).mem_obj_id = ids_[id];
  }
}

}  // namespace wgrt
