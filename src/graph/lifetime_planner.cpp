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

}  // namespace

size_t plan_lifetimes(Graph& graph, const std::function<bool(std::string_view)>& is_view) {
  auto intermediate = [&](ValueId id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    return t != nullptr && t->storage == StorageKind::Intermediate;
  };
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (intermediate(id) && graph.tensor(id).mem_obj_id >= 0) return 0;  // the exporter planned this graph
  }

  // Views share their input's object: plan each chain of views as its root.
  std::vector<ValueId> root(graph.values.size());
  for (ValueId id = 0; id < root.size(); ++id) root[id] = id;
  if (is_view) {
    for (const OpCall& op : graph.ops) {
      if (op.args.size() < 2 || !is_view(op.name)) continue;
      const ValueId in = op.args.front(), out = op.args.back();
      if (intermediate(in) && intermediate(out)) root[out] = root[in];
    }
  }
  std::vector<ValueId> candidates;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    if (intermediate(id) && root[id] == id) candidates.push_back(id);
  }

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

  std::stable_sort(candidates.begin(), candidates.end(), [&](ValueId a, ValueId b) {
    return graph.tensor(a).max_device_bytes() > graph.tensor(b).max_device_bytes();
  });

  struct Object {
    uint64_t bytes = 0;
    std::vector<Interval> users;
  };
  std::vector<Object> objects;
  for (ValueId id : candidates) {
    Tensor& t = graph.tensor(id);
    if (life[id].first > life[id].last) continue;  // never used by an op: keeps its own buffer
    uint64_t need = t.max_device_bytes();
    for (ValueId m = 0; m < graph.values.size(); ++m) {
      if (root[m] == id) need = std::max(need, graph.tensor(m).max_device_bytes());
    }
    int best = -1;
    for (size_t o = 0; o < objects.size(); ++o) {
      const bool free = std::none_of(objects[o].users.begin(), objects[o].users.end(),
                                     [&](const Interval& u) { return u.overlaps(life[id]); });
      if (!free) continue;
      // Prefer the smallest object that already fits, else the largest one
      // (it grows least); sizes only come down since we go largest first.
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

}  // namespace wgrt
