#!/usr/bin/env python3
"""The argument schemas of the operators VulkanPartitioner delegates, as the
Vulkan graph serializes their arguments: positional arguments, then the
keyword-only ones, in schema order (so argument i of an op in a delegate
graph is entry i here). Types are torch's schema types ("Scalar", "SymInt?",
"int[]", "Tensor", ...), read from the installed torch and executorch.

The argument-type enumeration test (tests/ops/test_argument_types.cpp)
reads the snapshot this writes, so it runs where executorch is not installed.

Usage: python3 tools/export/op_schemas.py [--write]
  prints a summary; --write refreshes tests/fixtures/op_schemas.json.
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SNAPSHOT = os.path.join(ROOT, "tests", "fixtures", "op_schemas.json")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def schemas():
    """{serialized op name: ["TYPE NAME", ...]} for every operator of the
    installed VulkanPartitioner registry."""
    from executorch.backends.vulkan import op_registry
    from executorch.exir.dialects.edge._ops import EdgeOpOverload
    # torch's own schema objects print SymInt as int; torchgen's parser keeps it.
    from torchgen.model import FunctionSchema

    out = {}
    for op in op_registry.vulkan_supported_ops:
        if not isinstance(op, EdgeOpOverload):
            continue
        text = str(op._schema).split("::", 1)[1]
        parsed = FunctionSchema.parse(text)
        out[op.__name__] = [f"{a.type} {a.name}" for a in parsed.arguments.flat_all]
    return dict(sorted(out.items()))


def snapshot_text(table):
    from vulkan_ops import executorch_version
    lines = [f"  {json.dumps(name)}: {json.dumps(args)}" for name, args in table.items()]
    return ('{\n "executorch": ' + json.dumps(executorch_version()) + ',\n "ops": {\n' + ",\n".join(lines) + "\n }\n}\n")


def main():
    table = schemas()
    types = sorted({a.rsplit(" ", 1)[0] for args in table.values() for a in args})
    print(f"{len(table)} operators; argument types: {', '.join(types)}")
    if "--write" in sys.argv[1:]:
        with open(SNAPSHOT, "w") as f:
            f.write(snapshot_text(table))
        print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    main()
