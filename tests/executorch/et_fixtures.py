"""Fixture files and programs for the ExecuTorch tests: where they are, their
manifests, and what a program holds as read by executorch's own deserializer."""
import importlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PARTIAL_DIR = ROOT / "tests" / "fixtures" / "executorch"
PTE_DIR = ROOT / "tests" / "fixtures" / "pte"
LLAMA_DIR = ROOT / "tests" / "fixtures" / "llama"


def manifest(path: Path) -> dict:
    with open(path) as f:
        return json.load(f)


def load_case_arrays(folder: Path, entries) -> list:
    return [np.load(folder / e["file"]) for e in entries]


def program_summary(pte: Path) -> dict:
    """{method: (CPU kernel names, delegate backend ids)} read back from the
    program by executorch's own deserializer, not by wgrt."""
    from executorch.exir import schema
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(pte.read_bytes()).program
    out = {}
    for plan in program.execution_plan:
        kernels, backends = [], []
        for chain in plan.chains:
            for instr in chain.instructions:
                args = instr.instr_args
                if isinstance(args, schema.KernelCall):
                    kernels.append(plan.operators[args.op_index].name)
                elif isinstance(args, schema.DelegateCall):
                    backends.append(plan.delegates[args.delegate_index].id)
        out[plan.name] = (kernels, backends)
    return out


def import_or_skip(name: str):
    """The module, or (at module level) a skip with the reason; under CI
    (CI=true or WGRT_REQUIRE_GPU=1) a missing module is an error instead."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if os.environ.get("CI") == "true" or os.environ.get("WGRT_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"SKIPPED: {name} is not installed ({e})", allow_module_level=True)
