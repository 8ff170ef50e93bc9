#!/usr/bin/env python3
"""Describes a .pte with executorch's own deserializers (not wgrt's parser),
so the fixture manifests give wgrt's tests an independent answer.

Usage: python3 tools/export/inspect_pte.py FILE.pte [FILE.ptd ...]
       prints each method's inputs, outputs, CPU kernels and Vulkan graphs,
       with every op's argument kinds.
"""

import importlib.resources
import json
import os
import re
import sys
import tempfile
from collections import Counter

import executorch.backends.vulkan.serialization as vk_serialization
from executorch.backends.vulkan.serialization.vulkan_graph_schema import VkGraph
from executorch.backends.vulkan.serialization.vulkan_graph_serialize import (
    _flatc_decompile,
    _json_to_dataclass,
    extract_vk_flatbuffer,
)
from executorch.exir import schema
from executorch.exir._serialize._program import deserialize_pte_binary

_SCALAR_NAMES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                 6: "float32", 7: "float64", 11: "bool", 15: "bfloat16"}
_VK_NAMES = {0: "bool", 1: "uint8", 2: "int8", 3: "int32", 4: "float16", 5: "float32",
             6: "float64", 7: "int64"}
_NAMED = 2**64 - 1


def flatbuffer_to_vk_graph(flatbuffer: bytes) -> VkGraph:
    """executorch's own flatbuffer_to_vk_graph, except that the JSON flatc
    writes may hold inf/nan (a -inf attention mask constant), which Python's
    json reads only when spelled Infinity/NaN."""
    with tempfile.TemporaryDirectory() as d:
        schema = os.path.join(d, "schema.fbs")
        with open(schema, "wb") as f:
            f.write(importlib.resources.files(vk_serialization).joinpath("schema.fbs").read_bytes())
        with open(os.path.join(d, "schema.bin"), "wb") as f:
            f.write(flatbuffer)
        _flatc_decompile(d, schema, os.path.join(d, "schema.bin"), ["--raw-binary"])
        with open(os.path.join(d, "schema.json")) as f:
            text = f.read()
    text = re.sub(r"(?<![\w\"])(-?)inf(?![\w\"])", r"\1Infinity", text)
    text = re.sub(r"(?<![\w\"])nan(?![\w\"])", "NaN", text)
    return _json_to_dataclass(json.loads(text), VkGraph)


def _io(plan, value_id):
    val = plan.values[value_id].val
    if isinstance(val, schema.Tensor):
        return {"kind": "Tensor", "shape": list(val.sizes),
                "dtype": _SCALAR_NAMES.get(int(val.scalar_type), str(val.scalar_type)),
                "dynamic": int(val.shape_dynamism) != 0}
    return {"kind": type(val).__name__}


def _arg_text(graph, vid):
    v = graph.values[vid].value
    kind = type(v).__name__
    if kind == "VkTensor":
        return f"Tensor{list(v.dims)}{'c' if v.constant_id >= 0 else ''}"
    if kind in ("Int", "Double", "Bool"):
        return f"{kind}({getattr(v, kind.lower() + '_val')})"
    if kind in ("IntList", "DoubleList", "BoolList"):
        return f"{kind}{list(v.items)}"
    if kind == "ValueList":
        return "ValueList[" + ",".join(_arg_text(graph, i) for i in v.items) + "]"
    if kind == "String":
        return f"String({v.string_val!r})"
    if kind == "SymInt":
        return f"SymInt({v.value})"
    return kind


def _describe_graph(graph):
    tensors = [v.value for v in graph.values if type(v.value).__name__ == "VkTensor"]
    shared = Counter(t.mem_obj_id for t in tensors if t.mem_obj_id >= 0)
    return {
        "ops": [op.name for op in graph.chain],
        "op_args": [f"{op.name}({', '.join(_arg_text(graph, a) for a in op.args)})"
                    for op in graph.chain],
        "op_arg_kinds": [[type(graph.values[a].value).__name__ for a in op.args]
                         for op in graph.chain],
        "num_values": len(graph.values),
        "input_ids": list(graph.input_ids),
        "output_ids": list(graph.output_ids),
        "io_dtypes": [_VK_NAMES.get(int(graph.values[i].value.datatype), "?")
                      for i in list(graph.input_ids) + list(graph.output_ids)
                      if type(graph.values[i].value).__name__ == "VkTensor"],
        "mem_obj_ids": {str(k): n for k, n in sorted(shared.items())},
        "constants": [
            {"length": c.length, "named_key": c.named_key if c.offset == _NAMED else ""}
            for c in graph.constants],
        "constant_tensors": [
            {"constant_id": t.constant_id, "dims": list(t.dims),
             "dtype": _VK_NAMES.get(int(t.datatype), str(t.datatype))}
            for t in tensors if t.constant_id >= 0],
    }


def describe_pte(pte_path, ptd_paths=()):
    with open(pte_path, "rb") as f:
        data = f.read()
    program = deserialize_pte_binary(data).program
    methods = {}
    for plan in program.execution_plan:
        cpu_kernels, delegates = [], []
        for chain in plan.chains:
            for instr in chain.instructions:
                args = instr.instr_args
                if isinstance(args, schema.KernelCall):
                    op = plan.operators[args.op_index]
                    cpu_kernels.append(op.name + ("." + op.overload if op.overload else ""))
                elif isinstance(args, schema.DelegateCall):
                    d = plan.delegates[args.delegate_index]
                    blob = program.backend_delegate_data[d.processed.index].data
                    graph = flatbuffer_to_vk_graph(extract_vk_flatbuffer(bytes(blob)))
                    desc = {"backend": d.id, "call_args": list(args.args)}
                    desc.update(_describe_graph(graph))
                    delegates.append(desc)
                else:
                    cpu_kernels.append(f"({type(args).__name__})")
        methods[plan.name] = {
            "program_inputs": [_io(plan, i) for i in plan.inputs],
            "program_outputs": [_io(plan, i) for i in plan.outputs],
            "cpu_kernels": cpu_kernels,
            "delegates": delegates,
        }
    return methods


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    json.dump(describe_pte(sys.argv[1], sys.argv[2:]), sys.stdout, indent=1)
    print()
