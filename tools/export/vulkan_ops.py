#!/usr/bin/env python3
"""The operators ExecuTorch's VulkanPartitioner delegates, read from the
installed executorch (backends/vulkan/op_registry.py), named as the Vulkan
graph serializes them (e.g. aten.convolution.default). All of them are in
scope (issue 16 added the quantized and training operators to issue 12's
floating-point ones).

Usage: python3 tools/export/vulkan_ops.py [--write]
  prints the in-scope ops; --write also refreshes the snapshot that the
  coverage test reads when executorch is not installed
  (tests/coverage/vulkan_partitioner_ops.txt).
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SNAPSHOT = os.path.join(ROOT, "tests", "coverage", "vulkan_partitioner_ops.txt")

# Out of scope: none since issue 16 (quantized and training operators).
EXCLUDED_PREFIXES = ()
EXCLUDED = set()


def in_scope(name):
    return not name.startswith(EXCLUDED_PREFIXES) and name not in EXCLUDED


def partitioner_ops():
    """Every exir_ops.edge operator of the installed registry (its serialized
    name), sorted. Symbolic-int helpers and string-keyed custom ops (the
    llama:: ones) are not edge operators and are left out, as the issue's count does."""
    from executorch.backends.vulkan import op_registry
    from executorch.exir.dialects.edge._ops import EdgeOpOverload
    return sorted(op.__name__ for op in op_registry.vulkan_supported_ops if isinstance(op, EdgeOpOverload))


def executorch_version():
    from executorch.version import __version__
    return __version__.split("+")[0]


def main():
    ops = partitioner_ops()
    scoped = [o for o in ops if in_scope(o)]
    for o in scoped:
        print(o)
    print(f"{len(scoped)} of {len(ops)} operators in scope (executorch {executorch_version()})", file=sys.stderr)
    if "--write" in sys.argv[1:]:
        with open(SNAPSHOT, "w") as f:
            f.write(f"# VulkanPartitioner's operators (executorch {executorch_version()}), all {len(ops)};\n"
                    "# written by tools/export/vulkan_ops.py --write\n")
            f.write("".join(o + "\n" for o in ops))


if __name__ == "__main__":
    main()
