#!/usr/bin/env python3
"""Exports a tiny Llama with ExecuTorch's own Llama exporter (Vulkan backend)
into tests/fixtures/llama/, with eager-torch goldens for a prefill and a few
decode steps.

The model is random: a params JSON (dim 64, 2 layers, GQA 4/2 heads, vocab
256) and a checkpoint made here with a fixed seed. The program comes from
`python -m executorch.examples.models.llama.export_llama` with the flags in
EXPORT_FLAGS (4-bit groupwise linears and embedding, KV cache with
sdpa_with_kv_cache, fp32). The goldens come from the same exporter's eager
model: the flags are parsed by its own argument parser and
`_prepare_for_llama_export` builds the module with the same source transforms
(quantization included), which then runs on the CPU: a prefill of PROMPT at
input_pos 0, then greedy decode steps of one token at growing input_pos, on
one module so that its KV cache carries over, as it does in the program.

Writes tiny_llama.pte, tiny_llama.params.json, tiny_llama.stepN.{tokens,
input_pos,logits}.npy and tiny_llama.json (the manifest: steps, tolerance,
the program's inputs/outputs and Vulkan ops as read back by executorch's
deserializers, the export command). Seeds are fixed; a rerun reproduces the
same files.

With --qmode 8da4w the linears get 8-bit dynamic per-token activations and
4-bit groupwise weights instead (torchao.choose_qparams_affine +
et_vk.linear_dq8ca_q4gsw), written as tiny_llama_8da4w.*.

Usage: python3 tools/export/export_llama_fixture.py [--out DIR] [--qmode 4w|8da4w]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inspect_pte import describe_pte  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "tests", "fixtures", "llama")
NAME = "tiny_llama"
SEED = 1234
MAX_SEQ_LEN = 32  # also the context length: the KV cache holds 32 positions

PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,
    "vocab_size": 256,
    "hidden_dim": 128,
    "multiple_of": 32,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}

EXPORT_FLAGS = [
    "-V",  # VulkanPartitioner
    "-kv", "--use_sdpa_with_kv_cache",
    "-qmode", "4w", "-G", "32",  # linears: 4-bit weights, groups of 32 -> et_vk.linear_q4gsw (--qmode)
    "-E", "4,32",  # embedding: 4-bit, groups of 32 -> et_vk.embedding_q4gsw
    "-d", "fp32",
    "--max_seq_length", str(MAX_SEQ_LEN),
    "--max_context_length", str(MAX_SEQ_LEN),
]

PROMPT = [1, 17, 42, 99, 200, 7]  # prefill tokens (S = 6) at input_pos 0
DECODE_STEPS = 4  # then one token at a time, greedy
ATOL, RTOL = 1e-4, 1e-4  # lavapipe lands near 4e-7; leaves room for other GPUs' reduction orders


def make_checkpoint(path):
    """Random weights with a fixed seed, as a Llama checkpoint (`.weight` keys
    only). RMSNorm weights are perturbed from 1 so the test sees them."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(SEED)
    model = construct_transformer(ModelArgs(max_seq_len=MAX_SEQ_LEN, max_context_len=MAX_SEQ_LEN, **PARAMS))
    state = {}
    for key, value in model.state_dict().items():
        if not key.endswith(".weight"):
            continue
        if "norm" in key:
            value = 1.0 + 0.1 * torch.randn_like(value)
        state[key] = value.detach().clone().contiguous()
    torch.save(state, path)


def run_export(flags, out_dir):
    cmd = [sys.executable, "-m", "executorch.examples.models.llama.export_llama", *flags,
           "--output-dir", out_dir, "-n", NAME]
    print("exporting:", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    return os.path.join(out_dir, f"{NAME}.pte")


def ensure_cpu_kernels():
    """The eager module calls llama::update_cache and llama::custom_sdpa. With
    torch 2.12.1 the C++ kernels in executorch 1.5.1's libcustom_ops_aot_lib.so
    do not land on the CPU dispatch key (the wheel was built against another
    torch), so the missing ones get plain-torch CPU kernels written here from
    the ops' schemas: update_cache copies `value` [B, S, H, D] into
    cache[:, start_pos:start_pos + S]; custom_sdpa attends q [B, S, H, D] to
    the caches' first start_pos + S rows, causally (query i sees keys
    0..start_pos + i), with grouped KV heads. Returns the names supplied."""
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401  (defines the ops)

    supplied = []
    lib = torch.library.Library("llama", "IMPL")  # noqa: TOR901
    ensure_cpu_kernels.lib = lib  # registrations live as long as the Library object

    def has_cpu(name):
        return torch._C._dispatch_has_kernel_for_dispatch_key(f"llama::{name}", "CPU")

    if not has_cpu("update_cache"):
        def update_cache(value, cache, start_pos):
            cache[:, start_pos:start_pos + value.shape[1]] = value
            return torch.empty((1,), dtype=value.dtype)
        lib.impl("update_cache", update_cache, "CPU")
        supplied.append("llama::update_cache")

    if not has_cpu("custom_sdpa"):
        def custom_sdpa(q, k, v, start_pos, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
            assert attn_mask is None and is_causal, "only the causal form is used here"
            _, s, h, d = q.shape
            length = start_pos + s
            group = h // k.shape[2]
            qt = q.transpose(1, 2)  # [B, H, S, D]
            kt = k[:, :length].transpose(1, 2).repeat_interleave(group, dim=1)
            vt = v[:, :length].transpose(1, 2).repeat_interleave(group, dim=1)
            scores = (qt @ kt.transpose(-1, -2)) * (scale if scale is not None else d ** -0.5)
            rows = torch.arange(s).unsqueeze(1) + start_pos
            cols = torch.arange(length).unsqueeze(0)
            scores = scores.masked_fill(cols > rows, float("-inf"))
            return (torch.softmax(scores, dim=-1) @ vt).transpose(1, 2).contiguous()
        lib.impl("custom_sdpa", custom_sdpa, "CPU")
        supplied.append("llama::custom_sdpa")
    return supplied


def eager_model(flags):
    """The exporter's own eager module, source transforms applied."""
    from executorch.examples.models.llama.export_llama_lib import (
        _prepare_for_llama_export,
        build_args_parser,
    )
    from executorch.extension.llm.export.config.llm_config import LlmConfig

    args = build_args_parser().parse_args(flags)
    manager = _prepare_for_llama_export(LlmConfig.from_args(args))
    return manager.model.eval()


def save_npy(out_dir, name, array):
    np.save(os.path.join(out_dir, name), np.ascontiguousarray(array), allow_pickle=False)
    return {"file": name, "shape": list(array.shape), "dtype": str(array.dtype)}


def compact_json(obj):
    text = json.dumps(obj, indent=1)
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--qmode", choices=["4w", "8da4w"], default="4w",
                        help="linear quantization: 4w (linear_q4gsw) or 8da4w (linear_dq8ca_q4gsw)")
    args = parser.parse_args()
    global NAME
    if args.qmode != "4w":
        NAME = f"tiny_llama_{args.qmode}"
        EXPORT_FLAGS[EXPORT_FLAGS.index("-qmode") + 1] = args.qmode
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):  # no stale steps
        if f.startswith(NAME + "."):
            os.remove(os.path.join(args.out, f))

    with tempfile.TemporaryDirectory() as tmp:
        params_path = os.path.join(tmp, "params.json")
        with open(params_path, "w") as f:
            json.dump(PARAMS, f)
        ckpt_path = os.path.join(tmp, "checkpoint.pth")
        make_checkpoint(ckpt_path)
        flags = EXPORT_FLAGS + ["-p", params_path, "-c", ckpt_path]

        pte = run_export(flags, tmp)
        shutil.copy(pte, os.path.join(args.out, f"{NAME}.pte"))
        shutil.copy(params_path, os.path.join(args.out, f"{NAME}.params.json"))

        torch.manual_seed(SEED)
        model = eager_model(flags)
        supplied_kernels = ensure_cpu_kernels()

    steps = []
    tokens, pos = list(PROMPT), 0
    with torch.no_grad():
        for step in range(1 + DECODE_STEPS):
            t = torch.tensor([tokens], dtype=torch.long)
            p = torch.tensor([pos], dtype=torch.long)
            logits = model(t, {"input_pos": p})
            if isinstance(logits, tuple):
                logits = logits[0]
            logits = logits.detach().to(torch.float32)
            prefix = f"{NAME}.step{step}"
            steps.append({
                "kind": "prefill" if step == 0 else "decode",
                "input_pos": pos,
                "inputs": [save_npy(args.out, f"{prefix}.tokens.npy", t.numpy()),
                           save_npy(args.out, f"{prefix}.input_pos.npy", p.numpy())],
                "logits": save_npy(args.out, f"{prefix}.logits.npy", logits.numpy()),
            })
            pos += t.shape[1]
            tokens = [int(logits[0].argmax())]

    described = describe_pte(os.path.join(args.out, f"{NAME}.pte"), [])
    forward = described["forward"]
    manifest = {
        "name": NAME,
        "description": "tiny random Llama (params in tiny_llama.params.json) exported by "
                       "executorch.examples.models.llama.export_llama with the Vulkan backend; "
                       "goldens from the exporter's eager module with the same source transforms",
        "pte": f"{NAME}.pte",
        "seed": SEED,
        "export_command": "python -m executorch.examples.models.llama.export_llama "
                          + " ".join(EXPORT_FLAGS) + " -p params.json -c checkpoint.pth",
        "params": PARAMS,
        "max_seq_len": MAX_SEQ_LEN,
        "tolerance": {"atol": ATOL, "rtol": RTOL},
        "steps": steps,
        "program_inputs": forward["program_inputs"],
        "program_outputs": forward["program_outputs"],
        "cpu_kernels": forward["cpu_kernels"],
        "delegates": [{"backend": d["backend"], "ops": sorted(set(d["ops"])),
                       "input_ids": d["input_ids"], "output_ids": d["output_ids"],
                       "io_dtypes": d["io_dtypes"]} for d in forward["delegates"]],
        "eager_cpu_kernels_supplied": supplied_kernels,
        "constant_methods": sorted(k for k in described if k != "forward"),
        "exported_with": {"torch": torch.__version__.split("+")[0], "executorch": executorch_version()},
    }
    with open(os.path.join(args.out, f"{NAME}.json"), "w") as f:
        f.write(compact_json(manifest) + "\n")
    for s in steps:
        print(f"{s['kind']} at {s['input_pos']}: tokens {s['inputs'][0]['shape']}, "
              f"logits max |x| {np.abs(np.load(os.path.join(args.out, s['logits']['file']))).max():.3f}")
    size = os.path.getsize(os.path.join(args.out, f"{NAME}.pte"))
    print(f"{NAME}.pte: {size} bytes; ops {manifest['delegates'][0]['ops'] if manifest['delegates'] else []}; "
          f"cpu {manifest['cpu_kernels']}")


def executorch_version():
    from executorch.version import __version__
    return __version__.split("+")[0]


if __name__ == "__main__":
    main()
