// A size argument (view_copy, expand_copy): an IntList, or a ValueList whose
// items are Ints or SymInts, read again from the live SymInts in every hook.
#pragma once

#include <vector>

#include "graph/op_context.h"

namespace wgrt::ops {

class SizeList {
 public:
  // Fails through OpArgs when argument i is neither list kind.
  static void check(const OpArgs& args, size_t i);
  // Throws Error(InvalidProgram) when a ValueList item is not an int.
  static SizeList read(const OpContext& ctx, size_t i);

  size_t size() const { return items_.size(); }
  // The current values (a SymInt's live value, -1 where the list says -1).
  std::vector<int64_t> resolve(const ResizeContext& r) const;
  // The SymInts the list holds, to re-run hooks when they change.
  std::vector<ValueId> symints() const;

 private:
  struct Item {
    int64_t fixed = 0;
    ValueId symint = 0;
    bool symbolic = false;
  };
  std::vector<Item> items_;
};

}  // namespace wgrt::ops
