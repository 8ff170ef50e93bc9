// The syntax tree jinja_parse.cpp builds and jinja_render.cpp walks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "llm/jinja/jinja.h"

namespace wgrt::llm::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    Literal,  // value
    Name,     // name
    List,     // args
    Dict,     // keys (in args, even) and values (odd)
    Attr,     // args[0].name
    Index,    // args[0][args[1]]
    Slice,    // args[0][args[1]:args[2]:args[3]] (null parts: Literal Undefined)
    Call,     // args[0](args[1..]) with kwargs; method calls have args[0] an Attr
    Filter,   // args[0] | name(args[1..], kwargs)
    Test,     // args[0] is [not] name(args[1..])   (negate)
    Unary,    // op args[0]: "not", "-", "+"
    Binary,   // args[0] op args[1]
    Ternary,  // args[0] if args[1] else args[2] (args[2] may be absent)
  };
  Kind kind;
  int line = 0;
  Value value;
  std::string name;  // Name, Attr, Filter, Test, and the operator of Unary/Binary
  bool negate = false;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
};

struct Node {
  enum class Kind { Sequence, Text, Output, If, For, Set, Break, Continue, Macro };
  Kind kind;
  int line = 0;
  std::string text;                             // Text
  std::vector<std::unique_ptr<Node>> children;  // Sequence
  ExprPtr expr;                                 // Output, Set (value), For (iterable)
  // If: conditions[i] guards bodies[i]; a trailing extra body is the else.
  std::vector<ExprPtr> conditions;
  std::vector<std::unique_ptr<Node>> bodies;
  // For: loop variables, an optional inline filter, the body and an else (bodies).
  std::vector<std::string> vars;
  ExprPtr loop_filter;
  // Set: the target name, and an attribute when it is `ns.attr`; a block
  // assignment ({% set x %}...{% endset %}) has no expr and its body in bodies.
  // Macro: its name in target, parameters in vars with their defaults in
  // conditions (null where none), the body in bodies.
  std::string target, target_attr;
};

}  // namespace wgrt::llm::jinja
