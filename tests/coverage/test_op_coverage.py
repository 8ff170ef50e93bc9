"""Operator coverage against ExecuTorch's VulkanPartitioner (issue 12).

Every operator the partitioner delegates and wgrt's scope covers
(tools/export/vulkan_ops.py: all of them since issue 16) must
either be run by wgrt (`wgrt ops`) and appear in at least one conformance
fixture's Vulkan graph (tests/fixtures/pte/**.json, each checked against
torch by the C++ suite), or be listed in known_missing.txt. The list is read
from the installed executorch when there is one, else from the committed
snapshot (vulkan_partitioner_ops.txt), which must then match what executorch
says when it is installed.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools" / "export"))
import vulkan_ops  # noqa: E402


def _read_list(path):
    return [line.split("#")[0].strip() for line in path.read_text().splitlines()
            if line.split("#")[0].strip()]


def _snapshot():
    return _read_list(HERE / "vulkan_partitioner_ops.txt")


def _installed():
    try:
        return vulkan_ops.partitioner_ops()
    except ImportError:
        return None


def _partitioner_ops():
    return _installed() or _snapshot()


def _wgrt_ops():
    out = subprocess.run([str(WGRT), "ops"], check=True, capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _tested_ops():
    """Ops in the Vulkan graphs of fully delegated fixtures that a test runs
    against torch: the .pte manifests (per method) and the Llama fixture (one
    method, at the top level). refused/ programs only test a refusal."""
    ops = set()
    for manifest in (ROOT / "tests" / "fixtures").rglob("*.json"):
        if "refused" in manifest.parts:
            continue
        data = json.loads(manifest.read_text())
        if not isinstance(data, dict):
            continue
        methods = list(data.get("methods", {}).values()) + ([data] if "delegates" in data else [])
        for method in methods:
            if not isinstance(method, dict) or method.get("cpu_kernels"):
                continue  # a partially delegated program only tests the refusal
            for d in method.get("delegates", []):
                ops.update(d.get("ops", []))
    return ops


def test_snapshot_matches_installed_executorch():
    installed = _installed()
    if installed is None:
        pytest.skip("SKIPPED: executorch is not installed; the coverage test uses the committed snapshot")
    assert installed == _snapshot(), (
        "the installed executorch's VulkanPartitioner registry differs from tests/coverage/"
        "vulkan_partitioner_ops.txt: refresh it (tools/export/vulkan_ops.py --write) and cover the new ops")


def test_every_in_scope_op_is_implemented_and_tested_or_listed_missing():
    scope = [o for o in _partitioner_ops() if vulkan_ops.in_scope(o)]
    missing = set(_read_list(HERE / "known_missing.txt"))
    wgrt, tested = _wgrt_ops(), _tested_ops()
    problems = []
    for op in scope:
        if op in missing:
            continue
        if op not in wgrt:
            problems.append(f"{op}: wgrt has no implementation (and known_missing.txt does not list it)")
        elif op not in tested:
            problems.append(f"{op}: implemented but no fixture under tests/fixtures/pte runs it")
    print(f"{len(scope)} operators in scope, {len(scope) - len(missing & set(scope))} covered, "
          f"{len(missing & set(scope))} known missing: {sorted(missing & set(scope))}")
    assert not problems, "\n".join(problems)


def test_known_missing_list_is_honest():
    scope = {o for o in _partitioner_ops() if vulkan_ops.in_scope(o)}
    wgrt, tested = _wgrt_ops(), _tested_ops()
    stale = [op for op in _read_list(HERE / "known_missing.txt")
             if op not in scope or (op in wgrt and op in tested)]
    assert not stale, f"known_missing.txt lists ops that are out of scope or now covered: {stale}"
