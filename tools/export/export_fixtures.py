#!/usr/bin/env python3
"""Exports the small ExecuTorch programs in tests/fixtures/pte/ (fully
delegated, fixture_models.py) and tests/fixtures/executorch/ (partially
delegated, partial_models.py; --set executorch).

Each model is exported with torch.export, lowered with VulkanPartitioner
(fp32) and serialized to NAME.pte (+ NAME.ptd for external constants). Inputs
and torch's eager outputs are saved as .npy, and NAME.json lists them with the
program's input/output shapes, the ops in each Vulkan graph and the kernels
left on the CPU, as read back from the serialized program by executorch's own
deserializers. Seeds are fixed, so a rerun reproduces the same files.

Usage: python3 tools/export/export_fixtures.py [--set NAME] [--out DIR] [--only NAME ...]
  pte (default): the small programs of fixture_models.py into tests/fixtures/pte/
  executorch: partially delegated programs (partial_models.py) into tests/fixtures/executorch/
  ops: one-op programs (op_models.py) into tests/fixtures/pte/ops/
  quant: quantized programs (quant_models.py) into tests/fixtures/pte/quant/
  models: small torchvision models (model_fixtures.py) into tests/fixtures/pte/models/
  refused: programs wgrt must refuse at load, into tests/fixtures/pte/refused/
  models_local: resnet18 (too big to commit) into the git-ignored tests/fixtures/pte/models_local/
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

import numpy as np
import torch

from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_models import MODELS  # noqa: E402
from op_models import OPS, REFUSED  # noqa: E402
from model_fixtures import MODELS as VISION_MODELS, MODELS_LOCAL  # noqa: E402
from inspect_pte import describe_pte  # noqa: E402
from partial_models import PARTIAL_MODELS  # noqa: E402
from quant_models import QUANT_OPS  # noqa: E402
from hand_partition import HandVulkanPartitioner  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# --set: (models, default output folder)
PTE_DIR = os.path.join(ROOT, "tests", "fixtures", "pte")
SETS = {"pte": (MODELS, PTE_DIR),
        "executorch": (PARTIAL_MODELS, os.path.join(ROOT, "tests", "fixtures", "executorch")),
        "ops": (OPS, os.path.join(PTE_DIR, "ops")),
        "quant": (QUANT_OPS, os.path.join(PTE_DIR, "quant")),
        "models": (VISION_MODELS, os.path.join(PTE_DIR, "models")),
        "models_local": (MODELS_LOCAL, os.path.join(PTE_DIR, "models_local")),
        "refused": (REFUSED, os.path.join(PTE_DIR, "refused"))}


def save_npy(out_dir, name, array):
    # wgrt reads C order only; np.ascontiguousarray would make a 0-d array 1-d
    np.save(os.path.join(out_dir, name), np.require(array, requirements="C"), allow_pickle=False)
    return {"file": name, "shape": list(array.shape), "dtype": str(array.dtype)}


def as_graph_dtype(t):
    """A float64 output (choose_qparams' scales) as the float32 the Vulkan
    graph holds it in (VulkanPartitioner's downcast_64_bit, on by default):
    the reference computes it in float32 and widens it, so this is exact,
    which is checked. Everything else as it is."""
    if t.dtype != torch.float64:
        return t.numpy()
    narrowed = t.float()
    if not torch.equal(narrowed.double(), t):
        raise ValueError("a float64 output is not exactly a float32 value; the fixture would hide a rounding")
    return narrowed.numpy()


def lower(spec):
    """Returns (ExecutorchProgramManager, {method: ExportedProgram inputs})."""
    methods = spec.methods()
    exported = {}
    for method_name, (module, example, dynamic_shapes) in methods.items():
        module.eval()
        exported[method_name] = torch.export.export(
            module, example, dynamic_shapes=dynamic_shapes, strict=spec.strict)
    partitioner = (HandVulkanPartitioner if spec.hand_partition else VulkanPartitioner)(
        compile_options=spec.compile_options)
    program = exported if len(exported) > 1 else next(iter(exported.values()))
    if spec.preserve_ops or spec.edge_config:
        # The other documented flow: to_edge keeping the listed ATen ops out of
        # the core-ATen decomposition (which to_edge_transform_and_lower does
        # not honour), then to_backend. It reaches ops such as max_pool2d and
        # t_copy that the one-call flow always decomposes, and with
        # _skip_dim_order the non-dim-order casts (aten._to_copy).
        edge = to_edge(program, compile_config=EdgeCompileConfig(
            _check_ir_validity=False, preserve_ops=spec.preserve_ops or [],
            **(spec.edge_config or {}))).to_backend(partitioner)
    else:
        edge = to_edge_transform_and_lower(program, partitioner=[partitioner])
    config = ExecutorchBackendConfig(**(spec.backend_config or {}))
    return edge.to_executorch(config), methods


def check_half_eager(spec, module, inputs, reference):
    """An fp16 program's golden is float32 eager rounded to fp16; eager fp16
    must lie within the fixture's tolerance of it too, or the tolerance would
    hide what fp16 itself costs."""
    with torch.no_grad():
        eager = module(*inputs)
    eager = eager if isinstance(eager, (tuple, list)) else (eager,)
    for e, r in zip(eager, reference):
        worst = (e.float() - r.float()).abs().max().item()
        if not torch.allclose(e.float(), r.float(), atol=spec.atol, rtol=spec.rtol):
            raise ValueError(f"{spec.name}: eager fp16 differs from the float32 reference by {worst} "
                             f"(atol {spec.atol}, rtol {spec.rtol})")
        print(f"{spec.name}: eager fp16 within {worst:.3g} of the float32 reference")


def export_one(spec, out_dir):
    torch.manual_seed(spec.seed)
    np.random.seed(spec.seed)
    program, methods = lower(spec)
    pte_name = f"{spec.name}.pte"
    with open(os.path.join(out_dir, pte_name), "wb") as f:
        f.write(spec.patch(program.buffer) if spec.patch else program.buffer)

    ptd_names = []
    if program._tensor_data:  # executorch 1.5 has no public getter here
        # One .ptd per shard tag; named NAME.ptd (NAME.1.ptd, ...) so the
        # fixture folder says which program each belongs to.
        with tempfile.TemporaryDirectory() as tmp:
            program.write_tensor_data_to_file(tmp)
            for i, fname in enumerate(sorted(os.listdir(tmp))):
                target = f"{spec.name}.ptd" if i == 0 else f"{spec.name}.{i}.ptd"
                shutil.copy(os.path.join(tmp, fname), os.path.join(out_dir, target))
                ptd_names.append(target)

    manifest_methods = {}
    for method_name, (module, example, _) in methods.items():
        cases = []
        for case_index, inputs in enumerate(spec.cases(method_name)):
            with torch.no_grad():
                # A module may name an independent reference (e.g. torch
                # autograd for the training ops); else its own eager outputs.
                outputs = getattr(module, "reference", module)(*inputs)
            if not isinstance(outputs, (tuple, list)):
                outputs = (outputs,)
            if any(t.dtype == torch.float16 for t in inputs):
                check_half_eager(spec, module, inputs, outputs)
            prefix = spec.name if len(methods) == 1 else f"{spec.name}.{method_name}"
            if len(spec.cases(method_name)) > 1:
                prefix += f".case{case_index}"
            cases.append({
                "inputs": [save_npy(out_dir, f"{prefix}.in{i}.npy", t.numpy())
                           for i, t in enumerate(inputs)],
                "outputs": [save_npy(out_dir, f"{prefix}.out{i}.npy", as_graph_dtype(t))
                            for i, t in enumerate(outputs)],
            })
        manifest_methods[method_name] = {"cases": cases}

    described = describe_pte(os.path.join(out_dir, pte_name),
                             [os.path.join(out_dir, p) for p in ptd_names])
    for method_name, info in described.items():
        manifest_methods[method_name].update(info)

    manifest = {
        "name": spec.name,
        "description": spec.description,
        "pte": pte_name,
        "ptd": ptd_names,
        "tolerance": {"atol": spec.atol, "rtol": spec.rtol},
        "methods": manifest_methods,
        "exported_with": {"torch": torch.__version__.split("+")[0],
                          "executorch": executorch_version()},
    }
    with open(os.path.join(out_dir, f"{spec.name}.json"), "w") as f:
        f.write(compact_json(manifest) + "\n")
    return manifest


def compact_json(obj):
    """Indented JSON with lists of numbers or strings kept on one line."""
    text = json.dumps(obj, indent=1)
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)


def executorch_version():
    from executorch.version import __version__
    return __version__.split("+")[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="pte")
    parser.add_argument("--out", help="output folder (default: the set's folder under tests/fixtures/)")
    parser.add_argument("--only", nargs="*", help="export only these models")
    args = parser.parse_args()
    models, default_out = SETS[args.set]
    names = [m.name for m in models]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:  # the later spec would silently overwrite the earlier one's files
        sys.exit(f"--set {args.set}: more than one spec named {clashes}")
    args.out = args.out or default_out
    os.makedirs(args.out, exist_ok=True)
    chosen = [m for m in models if not args.only or m.name in args.only]
    if not args.only:
        for f in os.listdir(args.out):  # a full run leaves no stale files
            if os.path.isfile(os.path.join(args.out, f)):
                os.remove(os.path.join(args.out, f))
    failed = []
    for spec in chosen:
        try:
            manifest = export_one(spec, args.out)
        except Exception as e:  # keep going: report every failing spec at the end
            print(f"{spec.name}: export failed: {type(e).__name__}: {str(e)[:2000]}")
            failed.append(spec.name)
            continue
        for method_name, info in manifest["methods"].items():
            ops = sorted({op for d in info["delegates"] for op in d["ops"]})
            print(f"{spec.name}.{method_name}: {len(info['delegates'])} delegate(s), "
                  f"ops {ops}, cpu {info['cpu_kernels']}")
            if args.set not in ("pte", "executorch") and info["cpu_kernels"]:
                # One-op programs and models exist to test delegated ops: drop it.
                print(f"{spec.name}: not fully delegated, CPU kernels {info['cpu_kernels']}: removed")
                for f in os.listdir(args.out):
                    if f.startswith(spec.name + "."):
                        os.remove(os.path.join(args.out, f))
                failed.append(spec.name)
    if failed:
        sys.exit(f"{len(failed)} export(s) failed: {failed}")
    files = [f for f in os.listdir(args.out) if os.path.isfile(os.path.join(args.out, f))]
    total = sum(os.path.getsize(os.path.join(args.out, f)) for f in files)
    print(f"{len(files)} files, {total} bytes in {args.out}")


if __name__ == "__main__":
    main()
