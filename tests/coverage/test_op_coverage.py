"""Operator coverage against ExecuTorch's VulkanPartitioner (issue 12).

Every operator the partitioner delegates and wgrt's scope covers
(tools/export/vulkan_ops.py: all of them since issue 16) must
either be run by wgrt (`wgrt ops`) and appear in at least one conformance
fixture's Vulkan graph (tests/fixtures/pte/**.json, each checked against
torch by the C++ suite), or, when no export reaches a delegate with it, be
listed in hand_built.txt and tested against torch on a hand-built graph in
tests/ops/test_unexported_ops.cpp, or be listed in known_missing.txt. The list is read
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


HAND_BUILT_TESTS = ROOT / "tests" / "ops" / "test_unexported_ops.cpp"


def test_every_in_scope_op_is_implemented_and_tested_or_listed_missing():
    scope = [o for o in _partitioner_ops() if vulkan_ops.in_scope(o)]
    missing = set(_read_list(HERE / "known_missing.txt"))
    hand_built = set(_read_list(HERE / "hand_built.txt"))
    hand_tests = HAND_BUILT_TESTS.read_text()
    wgrt, tested = _wgrt_ops(), _tested_ops()
    problems = []
    for op in scope:
        if op in missing:
            continue
        if op not in wgrt:
            problems.append(f"{op}: wgrt has no implementation (and known_missing.txt does not list it)")
        elif op in hand_built:
            if f'"{op}"' not in hand_tests:
                problems.append(f"{op}: listed in hand_built.txt but {HAND_BUILT_TESTS.name} does not run it")
        elif op not in tested:
            problems.append(f"{op}: implemented but no fixture under tests/fixtures/pte runs it")
    in_scope = set(scope)
    print(f"{len(scope)} operators in scope: {len(in_scope - missing - hand_built)} tested through exported "
          f"fixtures, {len(hand_built & in_scope)} only on hand-built graphs (no export reaches them): "
          f"{sorted(hand_built & in_scope)}, {len(missing & in_scope)} known missing: {sorted(missing & in_scope)}")
    assert not problems, "\n".join(problems)


def test_known_missing_list_is_honest():
    scope = {o for o in _partitioner_ops() if vulkan_ops.in_scope(o)}
    wgrt, tested = _wgrt_ops(), _tested_ops()
    stale = [op for op in _read_list(HERE / "known_missing.txt")
             if op not in scope or (op in wgrt and op in tested)]
    assert not stale, f"known_missing.txt lists ops that are out of scope or now covered: {stale}"


def test_hand_built_list_is_honest():
    """Only ops no exported fixture reaches belong there, each implemented and
    in no other list."""
    scope = {o for o in _partitioner_ops() if vulkan_ops.in_scope(o)}
    wgrt, tested = _wgrt_ops(), _tested_ops()
    missing = set(_read_list(HERE / "known_missing.txt"))
    stale = [op for op in _read_list(HERE / "hand_built.txt")
             if op not in scope or op not in wgrt or op in tested or op in missing]
    assert not stale, ("hand_built.txt lists ops that are out of scope, not implemented, also known missing, "
                       f"or now reached by an exported fixture (remove them): {stale}")


SCHEMAS = ROOT / "tests" / "fixtures" / "op_schemas.json"


def test_schema_snapshot_covers_the_partitioner_and_matches_torch():
    """The argument-type enumeration (tests/ops/test_argument_types.cpp) reads
    each op's schema from the committed snapshot: it must name every
    partitioner op, and equal what the installed torch says when there is one."""
    snapshot = json.loads(SCHEMAS.read_text())["ops"]
    assert sorted(snapshot) == sorted(_partitioner_ops()), "op_schemas.json and the partitioner's ops differ"
    try:
        import op_schemas
        installed = op_schemas.schemas()
    except ImportError:
        pytest.skip("SKIPPED: executorch is not installed; the enumeration uses the committed schema snapshot")
    assert installed == snapshot, "refresh tests/fixtures/op_schemas.json (tools/export/op_schemas.py --write)"
