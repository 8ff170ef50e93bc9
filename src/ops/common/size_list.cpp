#include "ops/common/size_list.h"

#include "wgrt/error.h"

namespace wgrt::ops {

void SizeList::check(const OpArgs& args, size_t i) {
  const Value& v = args.value(i);
  if (!std::holds_alternative<IntList>(v) && !std::holds_alternative<ValueList>(v)) {
    args.fail(i, "expected a size list (int list or value list), got " + std::string(value_kind_name(v)));
  }
}

SizeList SizeList::read(const OpContext& ctx, size_t i) {
  SizeList s;
  const Value& v = ctx.args().value(i);
  if (const auto* ints = std::get_if<IntList>(&v)) {
    for (int64_t x : *ints) s.items_.push_back({x, 0, false});
    return s;
  }
  for (ValueId item : std::get<ValueList>(v).items) {
    const Value& iv = ctx.graph().values.at(item);
    if (const auto* x = std::get_if<int64_t>(&iv)) {
      s.items_.push_back({*x, 0, false});
    } else if (std::holds_alternative<SymInt>(iv)) {
      s.items_.push_back({0, item, true});
    } else {
      ctx.args().fail(i, "size list item " + std::to_string(item) + " is a " + std::string(value_kind_name(iv)) +
                             ", expected an int or symint");
    }
  }
  return s;
}

std::vector<int64_t> SizeList::resolve(const ResizeContext& r) const {
  std::vector<int64_t> out;
  out.reserve(items_.size());
  for (const Item& it : items_) out.push_back(it.symbolic ? r.integer(it.symint) : it.fixed);
  return out;
}

std::vector<ValueId> SizeList::symints() const {
  std::vector<ValueId> ids;
  for (const Item& it : items_) {
    if (it.symbolic) ids.push_back(it.symint);
  }
  return ids;
}

}  // namespace wgrt::ops
