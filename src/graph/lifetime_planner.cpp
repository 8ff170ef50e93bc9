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

size_t plan_lifetimes(Graph& graph) {
  std::vector<ValueId> candidates;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr || t->storage != StorageKind::Intermediate) continue;
    if (t->mem_obj_id >= 0) return 0;  // the exporter planned this graph
    candidates.push_back(id);
  }

  std::vector<Interval> life(graph.values.size());
  for (size_t op = 0; op < graph.ops.size(); ++op) {
    for (ValueId arg : graph.ops[op].args) touch(graph, arg, op, life);
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
    const uint64_t need = t.max_device_bytes();
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
  return objects.size();
}

}  // namespace wgrt
